"""The default predictor's inputs and rule: what looks like code (documents and queries), the
shapes of the df = 1 terms, a query sample read from a file, and qidf-content's decision on
every side of its bounds, the same at every index size."""

from __future__ import annotations

import math
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.predictors import content
from qidf_ctl.stats.hapax_terms import LONG_TERM, glued, hapax_terms
from qidf_ctl.stats.query_sample import analysed_shares, query_sample, sample_ids
from qidf_ctl.stats.source_sample import _values
from qidf_ctl.stats.text_shape import (
    code_punctuation_share,
    looks_like_code,
    text_shape,
    wilson,
)

CODE = [
    "func (r *Reader) Read(p []byte) (n int, err error) {\n\treturn r.fill(p)\n}",
    "def load(path):\n    with open(path) as fh:\n        return json.load(fh)",
    "public int size() { return count; }",
    "def each\n  @items.each { |x| yield x }\nend",
]
PROSE = [
    "Real-time strategy game of ancient warfare (data files)",
    "This command updates the index using the current content found in the working tree.",
    "NewReader returns a new Reader reading from b.",  # a docstring: an identifier, no code
    "Returns the value of the key field, or null if the map holds none.",
]


@pytest.mark.parametrize("text", CODE)
def test_code_looks_like_code(text):
    assert looks_like_code(text)


@pytest.mark.parametrize("text", PROSE)
def test_prose_and_docstrings_do_not(text):
    assert not looks_like_code(text)


def test_a_javadoc_tag_is_code_punctuation():
    """Java docstrings carry {@code ...} and <p>: a quarter of them look like code, which is
    why the bound sits on the share of documents, not on any single one."""
    assert looks_like_code("Returns the value of the {@code key} field.")


def test_call_parentheses_count_and_prose_parentheses_do_not():
    assert code_punctuation_share("load(x)") == pytest.approx(2 / 7)
    assert code_punctuation_share("a game (data files)") == 0.0
    assert code_punctuation_share("   ") == 0.0


def test_text_shape_shares_and_interval():
    shape = text_shape(CODE + PROSE)
    assert shape.texts == 8 and shape.code_like_share == 0.5
    low, high = shape.code_like_interval
    assert 0.2 < low < 0.5 < high < 0.8
    assert shape.identifier_words > 0  # r.fill, json.load, NewReader ...
    assert math.isnan(text_shape([]).code_like_share)
    assert wilson(0, 1000)[0] == 0.0 and wilson(1000, 1000)[1] == 1.0


def test_source_values_follow_the_path():
    assert _values({"a": {"b": "x"}}, ["a", "b"]) == ["x"]
    assert _values({"a": [{"b": "x"}, {"b": ["y", 3]}]}, ["a", "b"]) == ["x", "y"]
    assert _values({"a.b": "flat"}, ["a", "b"]) == ["flat"]
    assert _values({"a": 1}, ["a", "b"]) == []


def test_glued_terms_are_common_terms_concatenated():
    common = {"get", "value", "handle", "web", "socket", "upgrade"}
    assert glued("getvalue", common)
    assert glued("websocketupgrade", common)  # three parts
    assert not glued("handlewebsocketupgrade", common)  # four
    assert not glued("getvaluex", common) and not glued("getit", common)


def test_hapax_term_shapes():
    words = ["the", "max_retry_count", "getvalue", "utf8", "get", "value", "serendipitous"]
    df = np.array([9, 1, 1, 1, 5, 5, 1])
    h = hapax_terms(words, df)
    assert h.terms == 4
    assert h.hapax_joint_share == 0.25 and h.hapax_digit_share == 0.25
    assert h.hapax_glued_share == 0.25  # getvalue
    assert h.hapax_long_share == sum(len(w) >= LONG_TERM for w in
                                     ("max_retry_count", "serendipitous")) / 4
    weighted = hapax_terms(words, df, weights=np.array([1, 3, 1, 1, 1, 1, 1]))
    assert weighted.hapax_joint_share == 0.5
    assert hapax_terms(words, np.full(7, 2)).terms == 0


def test_query_sample_from_files(tmp_path):
    tsv = tmp_path / "q.tsv"
    tsv.write_text("".join(f"q{i}\tfind the value {i}\n" for i in range(30)))
    s = query_sample(tsv, size=10, seed=3)
    assert s.queries_in_file == 30 and s.shape.texts == 10 and len(s.texts) == 10
    assert s.shape.code_like_share == 0.0
    assert query_sample(tsv, size=10, seed=3).texts == s.texts  # seeded
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text('{"_id": "a", "text": "x = f(y);"}\n')
    assert query_sample(jsonl).shape.code_like_share == 1.0
    with pytest.raises(NotFoundError):
        query_sample(tmp_path / "missing.tsv")
    (tmp_path / "bad.tsv").write_text("no tab here\n")
    with pytest.raises(UsageError):
        query_sample(tmp_path / "bad.tsv")
    assert sample_ids({"a": "x", "b": "y"}, size=5) == ["a", "b"]


def test_analysed_query_shares():
    counts = [Counter({"getvalue": 1, "the": 2}), Counter({"nothere": 1})]
    shares = analysed_shares(counts, {"getvalue": 1, "the": 40})
    assert shares == {"query_tokens": 2.0, "query_hapax_share": 0.25,
                      "query_unseen_share": 0.25}


# --- the rule ------------------------------------------------------------------------------


def _field(code_share: float, documents: float = 10_000, splits: list[str] | None = None,
           texts: int = 1000, glued: float = 0.05, length: float = 40.0) -> SimpleNamespace:
    shape = SimpleNamespace(texts=texts, code_like_share=code_share,
                            code_like_interval=(code_share, code_share), mean_words=20.0)
    return SimpleNamespace(source_shape=shape, splits_identifiers=splits or [],
                           documents=documents, field="text", avg_field_length=length,
                           hapax_terms=SimpleNamespace(hapax_glued_share=glued))


def _queries(code_share: float) -> SimpleNamespace:
    return SimpleNamespace(shape=SimpleNamespace(texts=500, code_like_share=code_share,
                                                 code_like_interval=(0.0, 1.0),
                                                 identifier_words=0.1))


def _decide(field: SimpleNamespace, queries: SimpleNamespace | None = None):
    return content.decide(field, queries)  # type: ignore[arg-type]


CODE_DOCS = content.CODE_CORPUS_MIN
TEXT_DOCS = content.TEXT_CORPUS_MAX
MIDDLE_DOCS = (CODE_DOCS + TEXT_DOCS) / 2


@pytest.mark.parametrize("docs, queries, q, ambiguous, words", [
    (0.95, None, content.Q_CODE_CORPUS, False, "a code field"),
    (CODE_DOCS, None, content.Q_CODE_CORPUS, False, "a code field"),
    (0.95, 0.0, content.Q_CODE_CORPUS, False, "a code field"),  # code searched with text
    (MIDDLE_DOCS, None, 1.0, True, "a mixed field"),
    (MIDDLE_DOCS, 1.0, 1.0, True, "a mixed field"),
    (0.01, None, 1.0, True, "--queries FILE would decide"),
    (TEXT_DOCS, None, 1.0, True, "--queries FILE would decide"),
    (0.01, 0.95, content.Q_CODE_QUERIES, False, "text searched with code"),
    (0.01, content.CODE_QUERIES_MIN, content.Q_CODE_QUERIES, False, "text searched with code"),
    (0.01, 0.02, 1.0, False, "text searched with text -> q 1.00: BM25 is right here"),
    (0.01, (content.CODE_QUERIES_MIN + content.TEXT_QUERIES_MAX) / 2, 1.0, True,
     "a mixed query log"),
])
def test_decision_on_every_side_of_the_bounds(docs, queries, q, ambiguous, words):
    d = _decide(_field(docs), None if queries is None else _queries(queries))
    assert (d.q, d.ambiguous) == (q, ambiguous) and words in d.reason
    assert "\n" not in d.reason and len(d.reason) < 300  # one line
    assert "code_like_documents" in d.evidence
    # The query sample always counts: read and reported whatever the field is (issue 36).
    assert ("code_like_queries" in d.evidence) is (queries is not None)
    assert ("query sample" in d.reason or "sampled queries" in d.reason) is (queries is not None)


@pytest.mark.parametrize("length, q", [
    (40.0, content.Q_CODE_CORPUS),  # functions
    (content.WHOLE_FILE_TOKENS_MIN - 1, content.Q_CODE_CORPUS),
    (content.WHOLE_FILE_TOKENS_MIN, content.Q_CODE_FILES),  # whole files
    (1_500.0, content.Q_CODE_FILES),
    (float("nan"), content.Q_CODE_CORPUS),  # unknown length: the function level
])
def test_whole_files_get_the_milder_level(length, q):
    """Whole files searched with commit messages: BM25 was best on one repository of eight,
    and q 0.6 lost there significantly; 0.7 did not (benchmarks/retrieval/whole-files.md)."""
    for queries in (None, _queries(0.0), _queries(0.95)):
        d = _decide(_field(0.95, length=length), queries)
        assert d.q == q and not d.ambiguous
        assert ("whole files" in d.reason) is (q == content.Q_CODE_FILES)
        assert "mean_document_tokens" in d.evidence
    assert content.Q_CODE_CORPUS < content.Q_CODE_FILES < 1.0
    text = _decide(_field(0.01, length=1_500.0), _queries(0.95))  # a text field: unchanged
    assert text.q == content.Q_CODE_QUERIES


def test_glued_df1_terms_do_not_decide():
    """The training fit's docstring gate (glued share of df = 1 terms) failed on prose of 10K+
    documents (predictor.md) and was dropped: without a query sample, text keeps BM25."""
    for share in (0.0, 0.5, 1.0):
        d = _decide(_field(0.01, glued=share))
        assert d.q == 1.0 and d.ambiguous


@pytest.mark.parametrize("documents", [1_000, 52_850, 1_000_000, 10_000_000])
def test_no_size_term(documents):
    """The issue's failure: a 52,850-document prose index crossed qidf-gate's size-adjusted
    gate. Here the index size is not an input at all."""
    for docs, queries in ((0.01, None), (0.01, 0.0), (0.01, 0.95), (0.95, None)):
        small = _decide(_field(docs, 1_000), None if queries is None else _queries(queries))
        big = _decide(_field(docs, documents), None if queries is None else _queries(queries))
        assert (big.q, big.ambiguous) == (small.q, small.ambiguous)


def test_bm25_when_the_analyzer_splits_or_the_text_is_unreadable():
    d = _decide(_field(0.95, splits=["camelCase"]), _queries(1.0))
    assert d.q == 1.0 and "already splits identifiers (camelCase)" in d.reason
    d = _decide(SimpleNamespace(source_shape=None, splits_identifiers=[], field="text"))
    assert d.q == 1.0 and d.ambiguous and "could not be read" in d.reason


def test_bounds_are_ordered():
    assert content.TEXT_CORPUS_MAX < content.CODE_CORPUS_MIN
    assert content.TEXT_QUERIES_MAX < content.CODE_QUERIES_MIN
    assert content.Q_CODE_CORPUS < 1 and content.Q_CODE_QUERIES < 1


# --- version 2 (issue 36): the query sample is read on every field -------------------------


def test_the_sample_is_read_on_a_code_field_and_said_so():
    d = _decide(_field(0.95), _queries(0.02))
    assert d.q == content.Q_CODE_CORPUS
    assert "the query sample was read (2% of 500 look like code, 10% of their words " \
           "identifiers)" in d.reason
    assert d.evidence["identifier_words_queries"].value == 0.1


def test_levels_are_grid_points_and_below_bm25():
    for level in (content.Q_CODE_CORPUS, content.Q_CODE_QUERIES):
        assert 0.05 <= level <= 1.0 and round(level, 2) == level
