"""qidf-content, the default predictor: leave BM25 only on clear evidence of code search.

q-log helps when rare identifiers carry the match: code searched with text (docstrings ->
functions) or text searched with code (functions -> docstrings). It costs a little on text
searched with text. So the predictor asks two questions, each answered by a share of
sampled raw texts that look like code (``stats.text_shape``), never by a density and never
by the index's size:

1. Is the field code? The share of a seeded sample of documents (``_source``) that look like
   code. Clearly code (>= CODE_CORPUS_MIN): q = Q_CODE_CORPUS, or the milder Q_CODE_FILES
   where the documents are whole files (their mean length, in the field's own tokens, at
   least WHOLE_FILE_TOKENS_MIN). Whole files searched with commit messages or issue text
   (the coding agent's case) gain less from rare identifiers than functions do, and BM25 can
   be best: a level that never loses significantly there matters more than the last bit of
   gain (benchmarks/retrieval/whole-files.md).
2. If the field is clearly text (<= TEXT_CORPUS_MAX): is it searched with code? That needs
   an unlabeled query sample (``--queries FILE``): clearly code queries (>= CODE_QUERIES_MIN)
   give q = Q_CODE_QUERIES, clearly text queries (<= TEXT_QUERIES_MAX) keep BM25. Without a
   sample the field may be docstrings searched with code (which gain) or prose searched with
   prose (which does not): no statistic of the corpus told them apart at every size (a gate
   on the glued share of df = 1 terms did on the training corpora and failed on prose of 10K+
   documents), so BM25 stays and the reason says a query sample would decide.

Where the user knows what the queries are and has no sample, ``query_kind`` (``--queries-are
code|text``) answers question 2 in the sample's place: code gives Q_CODE_QUERIES, text keeps
BM25 without calling it ambiguous. With a sample, the sample decides and a stated kind it
contradicts is named in the reason: the sample is measured on the real queries, the kind is
a claim about them (which may be stale, or true of only some). Where the field itself
decides (code, mixed, an identifier-splitting analyzer), the stated kind is noted, not read.

Anything between the bounds is ambiguous (a mixed field, a mixed query log): BM25 stays and
the decision says so. A field whose analyzer already splits identifiers keeps BM25 too
(``analyzer_probe``; such fields lose at lower q). Every bound is a share of a sample of
about a thousand texts, read the same way at any index size; the bounds and levels are
fitted on the retrieval benchmark (benchmarks/retrieval/predictor.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qidf_ctl.predictors.base import (
    BUILTIN_HINT,
    Decision,
    Evidence,
    Predictor,
    QueryKind,
    register,
)
from qidf_ctl.predictors.evidence import code_like, plain
from qidf_ctl.stats.text_shape import DEFINITIONS as SHAPES

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.query_sample import QuerySample

# Bounds: 10% either side of the geometric middle (0.594) of the training gap between the
# text corpora (Kotlin docstrings, 39% code-like) and the code corpora (Haskell functions, 90%,
# with the line-shape detector; Ruby's rose from 78% to 99%); the same gap, mirrored, for
# queries. Levels: 0.6 for code documents, 0.7 for text searched with code. Issue 36 fitted
# them again for the worst task, leave-one-family-out (benchmarks/retrieval/families.md): no
# candidate beat these on its adoption rule, so they stay.
CODE_CORPUS_MIN = 0.653
TEXT_CORPUS_MAX = 0.534
CODE_QUERIES_MIN = 0.653
TEXT_QUERIES_MAX = 0.534
Q_CODE_CORPUS = 0.6
Q_CODE_QUERIES = 0.7
# Whole files: function-level code documents of the benchmark average 25-91 tokens, the
# whole files of eight repositories' trees about 290-1,600; the bound is the geometric middle
# of the gap. 0.7 is the one level never significantly below BM25 on all eight file-level
# tasks and with at least half the oracle gain on each where it is significant (also when
# each repository is left out of the choice: benchmarks/retrieval/whole-files.md).
WHOLE_FILE_TOKENS_MIN = 160.0
Q_CODE_FILES = 0.7
Q_BM25 = 1.0


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _stated(kind: QueryKind) -> str:
    return f"--queries-are {kind.value}"


def _field_decides(decision: Decision, kind: QueryKind | None) -> Decision:
    """A decision the field made alone: a stated query kind is noted, not read."""
    if kind is None:
        return decision
    return Decision(decision.q, f"{decision.reason} ({_stated(kind)} noted: the field "
                    "decides here)", decision.ambiguous, decision.evidence, "not needed")


def _text_field(text: str, evidence: dict[str, Evidence], kind: QueryKind | None
                ) -> Decision:
    """A text field without a query sample: the stated kind, if any, stands in for one."""
    if kind is None:
        return Decision(Q_BM25, (
            f"{text} (prose or docstrings) -> q 1.00: BM25 stays (ambiguous: docstrings "
            f"searched with code gain at q {Q_CODE_QUERIES:g}, prose does not; --queries FILE "
            "would decide, or --queries-are code|text if you know)"), ambiguous=True,
            evidence=evidence)
    stated = f"{text}, queries stated to be {kind.value} ({_stated(kind)}, no query sample)"
    if kind is QueryKind.CODE:
        return Decision(Q_CODE_QUERIES, (
            f"{stated}: text searched with code -> q {Q_CODE_QUERIES:.2f}: rare identifiers "
            "deserve more weight than BM25 gives"), evidence=evidence, query_kind_use="decided")
    return Decision(Q_BM25, (
        f"{stated}: text searched with text -> q 1.00: BM25 is right here; {BUILTIN_HINT}"),
        evidence=evidence, query_kind_use="decided")


def _sample_on_code(queries: QuerySample | None, evidence: dict[str, Evidence],
                    tail: str = "text and code queries both gain on a code field") -> str:
    """A query sample on a code field is read and reported: what it holds, and why it keeps
    the level (on the benchmark, code documents gain at this level whether they are searched
    with text or with code; benchmarks/retrieval/predictor.md, issue 36)."""
    if queries is None:
        return ""
    asked = code_like(queries.shape, "queries")
    evidence["code_like_queries"] = asked
    words = queries.shape.identifier_words
    evidence["identifier_words_queries"] = plain(
        words, f"{SHAPES['identifier_words'][0]} (queries, {queries.shape.texts:,} sampled)",
        SHAPES["identifier_words"][1])
    named = f", {_pct(words)} of their words identifiers" if words == words else ""
    return (f"; the query sample was read ({_pct(asked.value)} of {queries.shape.texts:,} "
            f"look like code{named}): {tail}")


def _sample_read(queries: QuerySample | None, evidence: dict[str, Evidence]) -> str:
    """A query sample on a mixed field: reported; no mixed field was measured to say which
    level its queries would want, so BM25 stays."""
    if queries is None:
        return ""
    asked = code_like(queries.shape, "queries")
    evidence["code_like_queries"] = asked
    return (f"; the query sample was read ({_pct(asked.value)} of {queries.shape.texts:,} "
            "look like code) and does not decide a mixed field")


def _against_sample(kind: QueryKind | None, verdict: QueryKind | None) -> tuple[str, str | None]:
    """What the reason says of a stated kind next to the sample's verdict (None: mixed)."""
    if kind is None:
        return "", None
    if verdict is None:
        return f"; {_stated(kind)} does not override a mixed sample", "overruled"
    if verdict is kind:
        return f"; agrees with {_stated(kind)}", "agrees"
    return (f"; {_stated(kind)} contradicts the sample, and the sample decides (measured on "
            "the real queries, not stated)", "contradicted")


def decide(field_stats: FieldStats, queries: QuerySample | None,
           query_kind: QueryKind | None = None) -> Decision:
    evidence: dict[str, Evidence] = {}
    shape = field_stats.source_shape
    if field_stats.splits_identifiers:
        return _field_decides(Decision(Q_BM25, (
            f"the analyzer already splits identifiers ({', '.join(field_stats.splits_identifiers)})"
            f" -> q 1.00: rare identifiers are no longer one-off tokens, BM25 stays; "
            f"{BUILTIN_HINT}")), query_kind)
    if shape is None or not shape.texts or not shape.mean_words:
        return _field_decides(Decision(
            Q_BM25, "the field's raw text could not be read (no _source?) -> q 1.00: nothing "
            "shows code, BM25 stays (ambiguous)", ambiguous=True), query_kind)
    docs = code_like(shape, "documents")
    evidence["code_like_documents"] = docs
    share = docs.value
    if share >= CODE_CORPUS_MIN:
        length = field_stats.avg_field_length
        evidence["mean_document_tokens"] = plain(
            length, "mean tokens per document (the field's own analyzer)",
            "the field's tokens / its documents, as BM25's avgdl")
        if length >= WHOLE_FILE_TOKENS_MIN:
            return _field_decides(Decision(Q_CODE_FILES, (
                f"{_pct(share)} of {shape.texts:,} sampled documents look like code and "
                f"average {length:,.0f} tokens (whole files, >= {WHOLE_FILE_TOKENS_MIN:.0f}) "
                f"-> q {Q_CODE_FILES:.2f}: rare identifiers deserve more weight than BM25 "
                "gives, a milder level than for functions (on whole files BM25 can be best)"
                f"{_sample_on_code(queries, evidence)}"), evidence=evidence), query_kind)
        return _field_decides(Decision(Q_CODE_CORPUS, (
            f"{_pct(share)} of {shape.texts:,} sampled documents look like code -> q "
            f"{Q_CODE_CORPUS:.2f}: a code field, rare identifiers deserve more weight than "
            f"BM25 gives{_sample_on_code(queries, evidence)}"), evidence=evidence), query_kind)
    if share > TEXT_CORPUS_MAX:
        return _field_decides(Decision(Q_BM25, (
            f"{_pct(share)} of {shape.texts:,} sampled documents look like code: neither "
            f"clearly code (>= {_pct(CODE_CORPUS_MIN)}) nor text (<= {_pct(TEXT_CORPUS_MAX)})"
            f" -> q 1.00: BM25 stays (ambiguous: a mixed field){_sample_read(queries, evidence)}"
            ), ambiguous=True, evidence=evidence), query_kind)
    text = f"{_pct(share)} of {shape.texts:,} sampled documents look like code: a text field"
    if queries is None:
        return _text_field(text, evidence, query_kind)
    asked = code_like(queries.shape, "queries")
    evidence["code_like_queries"] = asked
    qs = asked.value
    searched = f"{_pct(qs)} of {queries.shape.texts:,} sampled queries look like code"
    if qs >= CODE_QUERIES_MIN:
        note, use = _against_sample(query_kind, QueryKind.CODE)
        return Decision(Q_CODE_QUERIES, (
            f"{text}, {searched}: text searched with code -> q {Q_CODE_QUERIES:.2f}: rare "
            f"identifiers deserve more weight than BM25 gives{note}"), evidence=evidence,
            query_kind_use=use)
    if qs <= TEXT_QUERIES_MAX:
        note, use = _against_sample(query_kind, QueryKind.TEXT)
        return Decision(Q_BM25, (
            f"{text}, {searched}: text searched with text -> q 1.00: BM25 is right here; "
            f"{BUILTIN_HINT}{note}"), evidence=evidence, query_kind_use=use)
    note, use = _against_sample(query_kind, None)
    return Decision(Q_BM25, (
        f"{text}, {searched}: neither clearly code (>= {_pct(CODE_QUERIES_MIN)}) nor text "
        f"(<= {_pct(TEXT_QUERIES_MAX)}) -> q 1.00: BM25 stays (ambiguous: a mixed query "
        f"log){note}"), ambiguous=True, evidence=evidence, query_kind_use=use)


CONTENT = register(Predictor(
    name="qidf-content",
    formula=(f"q = 1 if the analyzer splits identifiers; q = {Q_CODE_CORPUS:g} if >= "
             f"{_pct(CODE_CORPUS_MIN)} of sampled documents look like code (code punctuation "
             f"or code lines), {Q_CODE_FILES:g} if they also average >= "
             f"{WHOLE_FILE_TOKENS_MIN:.0f} tokens (whole files); if <= "
             f"{_pct(TEXT_CORPUS_MAX)} do and a query sample is given, q = {Q_CODE_QUERIES:g} "
             f"if >= {_pct(CODE_QUERIES_MIN)} of the queries look like code (without a "
             "sample, if the queries are stated to be code); else q = 1"),
    source="fitted on the retrieval benchmark for the worst task, leave-one-family-out "
           "(version 2, issue 36; benchmarks/retrieval/predictor.md)",
    decide=decide,
    reads_query_kind=True,
))
