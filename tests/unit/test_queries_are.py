"""A stated query kind (``--queries-are``, ``queries_are``) in qidf-content's rule: without a
sample it stands in for the query-sample branch; with one, the sample decides and the reason
names a kind it contradicts; where the field decides alone, it is noted and not read."""

from __future__ import annotations

import pytest

from qidf_ctl import predictors as predict
from qidf_ctl.errors import UsageError
from qidf_ctl.predictors import QueryKind, content

from .test_content import _field, _queries
from .test_predict import _field as _paper_field
from .test_stats import INDEX, SMALL, StatsEngine, fake

CODE, TEXT = QueryKind.CODE, QueryKind.TEXT
MIXED_QUERIES = (content.CODE_QUERIES_MIN + content.TEXT_QUERIES_MAX) / 2


def _decide(docs: float, queries: float | None, kind: QueryKind | None, **field):
    sample = None if queries is None else _queries(queries)
    return content.decide(_field(docs, **field), sample, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize("docs, queries, kind, q, ambiguous, use, words", [
    # no sample: the stated kind answers the query-sample branch of a text field
    (0.01, None, CODE, content.Q_CODE_QUERIES, False, "decided",
     "queries stated to be code (--queries-are code, no query sample): text searched with code"),
    (0.01, None, TEXT, 1.0, False, "decided",
     "queries stated to be text (--queries-are text, no query sample): text searched with "
     "text -> q 1.00: BM25 is right here"),
    (0.01, None, None, 1.0, True, None, "--queries-are code|text if you know"),
    # a sample decides; the stated kind is weighed against it
    (0.01, 0.95, TEXT, content.Q_CODE_QUERIES, False, "contradicted",
     "--queries-are text contradicts the sample, and the sample decides"),
    (0.01, 0.02, CODE, 1.0, False, "contradicted",
     "--queries-are code contradicts the sample, and the sample decides"),
    (0.01, 0.95, CODE, content.Q_CODE_QUERIES, False, "agrees", "agrees with --queries-are code"),
    (0.01, 0.02, TEXT, 1.0, False, "agrees", "agrees with --queries-are text"),
    (0.01, MIXED_QUERIES, CODE, 1.0, True, "overruled",
     "a mixed query log); --queries-are code does not override a mixed sample"),
    # the field decides alone
    (0.95, None, TEXT, content.Q_CODE_CORPUS, False, "not needed",
     "a code field, rare identifiers deserve more weight than BM25 gives (--queries-are text "
     "noted: the field decides here)"),
    ((content.CODE_CORPUS_MIN + content.TEXT_CORPUS_MAX) / 2, None, CODE, 1.0, True,
     "not needed", "a mixed field) (--queries-are code noted"),
])
def test_stated_kind_on_every_branch(docs, queries, kind, q, ambiguous, use, words):
    d = _decide(docs, queries, kind)
    assert (d.q, d.ambiguous, d.query_kind_use) == (q, ambiguous, use)
    assert words in d.reason and "\n" not in d.reason


def test_an_identifier_splitting_analyzer_keeps_bm25_whatever_is_stated():
    d = _decide(0.01, None, CODE, splits=["camelCase"])
    assert d.q == 1.0 and d.query_kind_use == "not needed"
    assert "already splits identifiers" in d.reason and "--queries-are code noted" in d.reason


def test_without_a_stated_kind_nothing_changes():
    """The two-argument call (what every caller made before) decides as it did."""
    for docs, queries in ((0.01, None), (0.01, 0.95), (0.01, 0.02), (0.95, None)):
        sample = None if queries is None else _queries(queries)
        two = content.decide(_field(docs), sample)  # type: ignore[arg-type]
        assert two == _decide(docs, queries, None) and two.query_kind_use is None


def test_predict_records_the_stated_kind_and_how_it_was_read():
    p = predict.predict_for_index(fake(StatsEngine(SMALL)), INDEX, query_kind="code")
    assert (p.q, p.query_kind, p.query_kind_use) == (content.Q_CODE_QUERIES, "code", "decided")
    record = p.record()["prediction"]
    assert (record["query_kind"], record["query_kind_use"]) == ("code", "decided")
    plain = predict.predict_for_index(fake(StatsEngine(SMALL)), INDEX)
    assert (plain.q, plain.query_kind, plain.as_dict()["query_kind"]) == (1.0, None, None)


def test_a_predictor_that_ignores_the_kind_refuses_it():
    assert predict.get("qidf-content").reads_query_kind
    assert not predict.get("paper").reads_query_kind
    with pytest.raises(UsageError, match="predictor paper does not read a stated query kind"):
        predict.predict(_paper_field(0.05), "paper", query_kind="code")
    assert predict.predict(_paper_field(0.05), "paper").query_kind is None


@pytest.mark.parametrize("raw, kind", [("code", CODE), (" Text ", TEXT), (CODE, CODE),
                                       (None, None)])
def test_parse_query_kind(raw, kind):
    assert predict.parse_query_kind(raw) is kind


def test_parse_query_kind_refuses_anything_else():
    with pytest.raises(UsageError, match="queries are 'code' or 'text', got 'sql'"):
        predict.parse_query_kind("sql")
