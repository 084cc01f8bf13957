"""The order of the judged documents at every q, from one search per query: what judgments
that judge only what was shown (clicks) need, for a search each instead of one per q.

A query-time q-log query is a bool of ``term`` clauses boosted by ``count * idf_q / idf_bm25``
(``qidf_ctl.querytime``), and a term clause's score is linear in its boost. One search at an
anchor q, restricted to the query's judged documents (an ``ids`` filter), each clause named
(``_name``) and ``include_named_queries_score`` on, returns every judged document's score
term by term; its score at any other q is the sum of those terms, each times
``ratio_t(q) / ratio_t(anchor)``. Condensed-list NDCG (judged documents only) needs nothing
else: the documents it ranks are exactly these. A judged document that matches no term of
the query is not returned, as the real search would not return it. Scores that differ
within float rounding (a relative 1e-6) may order differently than the engine would;
``tests/integration/test_judgments_decide.py`` compares the orders with real searches.

``include_named_queries_score`` is a search parameter (OpenSearch 2.13+, Elasticsearch
8.8+) that ``_msearch`` does not take: the searches run one request each, a few in flight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import runs
from qidf_ctl.progress import Advance
from qidf_ctl.querytime import QueryTime
from qidf_ctl.querytime.boosts import idf_ratio
from qidf_ctl.querytime.statistics import TermStats

WORKERS = 4  # searches in flight


def _named(body: dict[str, Any], field_name: str) -> dict[str, str]:
    """Name each term clause of ``body`` (in place); clause name -> term."""
    names = {}
    for i, clause in enumerate(body.get("bool", {}).get("should", [])):
        spec = clause["term"][field_name]
        spec["_name"] = f"t{i}"
        names[f"t{i}"] = str(spec["value"])
    return names


def _scores(hit: dict[str, Any]) -> dict[str, float]:
    matched = hit.get("matched_queries") or {}
    if isinstance(matched, list):  # an engine that does not return the scores
        raise ClusterError("the engine returned matched_queries without their scores: "
                           "judging clicks needs include_named_queries_score (OpenSearch "
                           "2.13+, Elasticsearch 8.8+)")
    return {name: float(score) for name, score in matched.items()}


class JudgedOrder:
    """Per query, each judged document's per-term scores at the anchor q; ``run(q)`` ranks
    them at any q."""

    def __init__(self, cluster: Cluster, qt: QueryTime, anchor: float,
                 rescale: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.cluster, self.qt, self.anchor = cluster, qt, anchor
        self.rescale = rescale  # bodies -> bodies, for an index with q-log installed
        self.names: dict[str, dict[str, str]] = {}
        self.scores: dict[str, dict[str, dict[str, float]]] = {}
        self.stats: TermStats | None = None

    def prepare(self, terms: Mapping[str, Counter[str]], judged: Mapping[str, Sequence[str]],
                advance: Advance) -> None:
        """One search per query, restricted to its judged documents."""
        self.stats = self.qt.statistics(list(dict.fromkeys(t for c in terms.values()
                                                           for t in c)))
        bodies = self.qt.queries(terms, self.anchor)
        if self.rescale is not None:
            bodies = self.rescale(bodies)
        params = {"include_named_queries_score": "true"}
        if self.qt.search_type:
            params["search_type"] = self.qt.search_type
        path = index_path(self.qt.target.index, "_search")

        def one(qid: str) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
            body = bodies[qid]
            names = _named(body, self.qt.target.field)
            docs = list(judged.get(qid, ()))
            should = body.get("bool", {}).get("should", [])
            if not docs or not should:
                return names, {}
            query = {"bool": {"should": should, "filter": [{"ids": {"values": docs}}],
                              "minimum_should_match": 1}}
            found = self.cluster.request("POST", path, {
                "query": query, "size": len(docs), "_source": False,
                "track_total_hits": False}, params)
            return names, {str(h["_id"]): _scores(h) for h in found["hits"]["hits"]}

        with ThreadPoolExecutor(WORKERS) as pool:
            for qid, (names, scores) in zip(terms, pool.map(one, terms), strict=True):
                self.names[qid], self.scores[qid] = names, scores
                advance(1)

    def _ratio(self, term: str, q: float) -> float:
        assert self.stats is not None
        return idf_ratio(q, self.stats.doc_count, self.stats.of(term), self.qt.form)

    def run(self, qids: Sequence[str], q: float) -> runs.Run:
        """The judged documents of each query in their order at ``q``, best first."""
        out: runs.Run = {}
        for qid in qids:
            factor = {name: self._ratio(term, q) / max(self._ratio(term, self.anchor), 1e-300)
                      for name, term in self.names.get(qid, {}).items()}
            scored = [(doc, sum(s * factor.get(n, 1.0) for n, s in parts.items()))
                      for doc, parts in self.scores.get(qid, {}).items()]
            out[qid] = sorted(scored, key=lambda x: (-x[1], x[0]))
        return out
