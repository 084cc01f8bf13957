"""The speed benchmark's query sets: natural-language and code queries, as request bodies."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.queries import analyze, term_query
from qidf_research.corpora import (
    Pair,
)
from qidf_research.speed.settings import FIELD

Build = Callable[[bytes], bytes]  # a query's text -> the body to send, inside the timer


@dataclass
class QuerySet:
    """Bodies are serialised once: the timed loop only sends bytes. ``texts`` are the query
    texts (what query time starts from); ``extra`` goes into every body built from a text;
    ``work`` overrides, per system, what is sent (bodies, or texts and how to build them)."""

    name: str
    description: str
    bodies: list[bytes]
    clauses: list[int]
    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    work: dict[str, tuple[list[bytes], Build | None]] = field(default_factory=dict)

    def for_system(self, system: str) -> tuple[list[bytes], Build | None]:
        return self.work.get(system, (self.bodies, None))


def search_body(query: dict[str, Any], size: int, exhaustive: bool = False) -> dict[str, Any]:
    """``_source`` is left out: fetching it costs the same on every index and only dilutes
    the differences this benchmark is after."""
    body: dict[str, Any] = {"query": query, "size": size, "_source": False}
    if exhaustive:
        body["track_total_hits"] = True
    return body


def nl_queries(cluster: Cluster, index: str, pairs: Sequence[Pair], size: int,
               exhaustive: bool = False) -> QuerySet:
    """The query text goes to the engine as is; ``_analyze`` only counts its distinct terms.

    ``exhaustive`` asks for the exact hit count: every matching document is then scored, no
    dynamic pruning, which exposes the per-document cost of each similarity."""
    bodies = [json.dumps(search_body({"match": {FIELD: p.doc}}, size, exhaustive)).encode()
              for p in pairs]
    clauses = [max(1, len(analyze(cluster, index, FIELD, p.doc))) for p in pairs]
    texts = [p.doc for p in pairs]
    if exhaustive:
        return QuerySet("doc_comment_exhaustive", "the doc-comment queries with "
                        "track_total_hits=true: every matching document is scored",
                        bodies, clauses, [p.id for p in pairs], texts,
                        {"track_total_hits": True})
    return QuerySet("doc_comment", "a held-out pair's doc comment as a match query "
                    "(what a coding agent types); default track_total_hits (10,000)",
                    bodies, clauses, [p.id for p in pairs], texts)


def code_queries(cluster: Cluster, index: str, pairs: Sequence[Pair], size: int) -> QuerySet:
    """Whole functions are too long for a match query (too_many_clauses): merged term
    clauses score the same with one clause per distinct token."""
    bodies, clauses, ids, texts = [], [], [], []
    for p in pairs:
        counts = analyze(cluster, index, FIELD, p.code)
        if not counts:
            continue
        q = term_query(FIELD, counts)
        bodies.append(json.dumps(search_body(q, size)).encode())
        clauses.append(len(q["bool"]["should"]))
        ids.append(p.id)
        texts.append(p.code)
    return QuerySet("code", "a held-out function's code: _analyze, then one term clause per "
                    "distinct token, boost = repeats (at most 1024)", bodies, clauses, ids,
                    texts)
