"""What measuring q reads from the cluster, with read privileges only: the sample's tokens
(the field's analyzer, through ``QueryTime``: ``_analyze``, or ``_termvectors`` where that is
refused), their df, each template's anchor (one search whose clauses count the template's
rare tokens), and a seeded pool of target documents with their tokens' df."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation.queries import MAX_CLAUSES
from qidf_ctl.measured.simulate import Target, Template
from qidf_ctl.progress import Advance
from qidf_ctl.querytime import QueryTime

BATCH = 50  # searches per _msearch
POOL = 1000  # target documents read (their term vectors)


def tokens(cluster: Cluster, index: str, field: str, texts: Sequence[str],
           advance: Advance) -> list[Counter[str]]:
    """Each text's token counts under the field's index analyzer: ``_mtermvectors`` on
    artificial documents, ``BATCH`` texts a request (a read action; the query-time path's
    fallback for one text, here batched)."""
    out: list[Counter[str]] = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start:start + BATCH]
        docs = [{"doc": {field: text}, "fields": [field], "term_statistics": False,
                 "field_statistics": False, "positions": False, "offsets": False,
                 "payloads": False} for text in batch]
        resp = cluster.request("POST", index_path(index, "_mtermvectors"), {"docs": docs})
        for doc in resp["docs"]:
            if "error" in doc:
                raise ClusterError(f"reading a query's tokens failed: {doc['error']}")
            terms = ((doc.get("term_vectors") or {}).get(field) or {}).get("terms") or {}
            out.append(Counter({t: int(v["term_freq"]) for t, v in terms.items()}))
        advance(len(batch))
    return out


def templates(qt: QueryTime, texts: Sequence[str], advance: Advance) -> tuple[list[Template],
                                                                              int]:
    """Each text's tokens and their df, and N (one statistics read for every distinct
    token)."""
    counts = tokens(qt.cluster, qt.target.index, qt.target.field, texts, advance)
    stats = qt.statistics(list(dict.fromkeys(t for c in counts for t in c)))
    return [Template(dict(c), {t: stats.of(t) for t in c}) for c in counts], stats.doc_count


def anchors(cluster: Cluster, index: str, field: str, rare: Sequence[Sequence[str]],
            advance: Advance) -> list[tuple[str, list[str]]]:
    """Per list of rare tokens: the document holding most of them (the engine's first on a
    tie) and which it holds (``matched_queries``); ("", []) when none matches."""
    out: list[tuple[str, list[str]]] = []
    for start in range(0, len(rare), BATCH):
        batch = rare[start:start + BATCH]
        lines = []
        for tokens in batch:
            lines.append(json.dumps({"index": index}))
            should = [{"constant_score": {"filter": {"term": {field: t}}, "boost": 1.0,
                                          "_name": t}} for t in list(tokens)[:MAX_CLAUSES]]
            lines.append(json.dumps({"size": 1, "_source": False, "track_total_hits": False,
                                     "query": {"bool": {"should": should}}}))
        resp = cluster.request("POST", "/_msearch", "\n".join(lines) + "\n")
        for item in resp["responses"]:
            if "error" in item:
                raise ClusterError(f"an anchor search failed: {item['error']}")
            hits = item["hits"]["hits"]
            out.append((hits[0]["_id"], list(hits[0].get("matched_queries") or []))
                       if hits else ("", []))
        advance(len(batch))
    return out


def pool(cluster: Cluster, index: str, field: str, size: int = POOL, seed: int = 0
         ) -> list[Target]:
    """A seeded uniform sample of documents holding the field, with each token's df (one
    shard's, scaled to the index: only used to match df, never to score)."""
    body: dict[str, Any] = {"size": size, "_source": False, "query": {"function_score": {
        "query": {"exists": {"field": field}}, "boost_mode": "replace",
        "random_score": {"seed": seed, "field": "_seq_no"}}}}
    hits = cluster.request("POST", index_path(index, "_search"), body)["hits"]["hits"]
    total = cluster.request("POST", index_path(index, "_search"), {
        "size": 0, "track_total_hits": True, "query": {"exists": {"field": field}}})
    n = int(total["hits"]["total"]["value"])
    ids = [h["_id"] for h in hits]
    out: list[Target] = []
    for start in range(0, len(ids), 250):
        resp = cluster.request("POST", index_path(index, "_mtermvectors"), {
            "ids": ids[start:start + 250], "parameters": {
                "fields": [field], "term_statistics": True, "field_statistics": True,
                "positions": False, "offsets": False, "payloads": False}})
        for doc in resp["docs"]:
            tv = (doc.get("term_vectors") or {}).get(field) or {}
            shard_n = int((tv.get("field_statistics") or {}).get("doc_count") or n) or n
            scale = n / shard_n
            df = {t: max(1, round(int(v.get("doc_freq", 1)) * scale))
                  for t, v in (tv.get("terms") or {}).items()}
            if df:
                out.append(Target(doc["_id"], df))
    return out
