"""Turning a query text into an engine query the way a match query would score it.

A function's code as a query has hundreds of tokens: a ``match`` query makes one clause per
token and trips ``indices.query.bool.max_clause_count`` (1024 on OpenSearch 2.x). The engine's
own analyzer (``_analyze``) gives the tokens; repeated tokens merge into one ``term`` clause
whose boost is the repeat count, which scores exactly like the repeated clauses (BM25 is linear
in the query boost) with far fewer clauses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.progress import Advance

MAX_CLAUSES = 1024


def analyze(cluster: Cluster, index: str, field: str, text: str) -> Counter[str]:
    """Token counts of ``text`` under ``field``'s search analyzer, in first-seen order.

    ``_analyze`` refuses to produce more than ``index.analyze.max_token_count`` tokens
    (10,000 by default; an identifier-splitting analyzer on a long function gets there).
    Such a text is analysed in halves cut at a line break (else at whitespace), which gives
    the same token counts for any tokenizer that does not join tokens across whitespace;
    the index setting is left alone."""
    if not text.strip():
        return Counter()
    try:
        resp = cluster.request("POST", index_path(index, "_analyze"),
                               {"field": field, "text": text})
    except ClusterError as exc:
        halves = _halves(text)
        if "max_token_count" not in str(exc) or halves is None:
            raise
        return analyze(cluster, index, field, halves[0]) + analyze(cluster, index, field,
                                                                   halves[1])
    return Counter(tok["token"] for tok in resp.get("tokens", []))


def _halves(text: str) -> tuple[str, str] | None:
    """``text`` cut near its middle at a line break, else at whitespace; None if it cannot be
    cut without splitting a token."""
    mid = len(text) // 2
    for sep in ("\n", " ", "\t"):
        left, right = text.rfind(sep, 0, mid), text.find(sep, mid)
        cuts = [c for c in (left, right) if c > 0]
        if cuts:
            cut = min(cuts, key=lambda c: abs(c - mid))
            return text[:cut], text[cut + 1:]
    return None


def analyze_all(cluster: Cluster, index: str, field: str, texts: Mapping[str, str],
                advance: Advance = lambda n: None) -> dict[str, Counter[str]]:
    out = {}
    for qid, text in texts.items():
        out[qid] = analyze(cluster, index, field, text)
        advance(1)
    return out


def term_query(field: str, counts: Counter[str], max_clauses: int = MAX_CLAUSES) -> dict[str, Any]:
    """A bool of term clauses, boost = repeat count; keeps the ``max_clauses`` most repeated
    distinct tokens when there are more (ties: first seen)."""
    terms = counts.most_common(max_clauses)
    return {"bool": {"should": [
        {"term": {field: {"value": tok, "boost": float(n)}}} for tok, n in terms
    ]}}
