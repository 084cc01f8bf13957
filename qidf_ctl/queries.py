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

from .cluster import Cluster
from .progress import Advance

MAX_CLAUSES = 1024


def analyze(cluster: Cluster, index: str, field: str, text: str) -> Counter[str]:
    """Token counts of ``text`` under ``field``'s search analyzer, in first-seen order."""
    if not text.strip():
        return Counter()
    resp = cluster.request("POST", f"/{index}/_analyze", {"field": field, "text": text})
    return Counter(tok["token"] for tok in resp.get("tokens", []))


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
