"""Running many queries against an index and collecting a ranked run."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from .cluster import Cluster
from .errors import ClusterError
from .queries import term_query

Run = dict[str, list[tuple[str, float]]]  # query id -> [(doc id, score)] best first
Advance = Callable[[int], None]


def search_run(
    cluster: Cluster,
    index: str,
    field: str,
    query_terms: Mapping[str, Counter[str]],
    *,
    k: int = 100,
    batch_size: int = 50,
    search_type: str | None = "dfs_query_then_fetch",
    advance: Advance = lambda n: None,
) -> Run:
    """Top-``k`` hits per query via ``_msearch``. ``dfs_query_then_fetch`` makes scores use
    index-wide statistics on multi-shard indices (identical to the default on one shard)."""
    run: Run = {}
    qids = list(query_terms)
    header: dict[str, Any] = {"index": index}
    if search_type:
        header["search_type"] = search_type
    for start in range(0, len(qids), batch_size):
        batch = qids[start:start + batch_size]
        lines = []
        for qid in batch:
            lines.append(json.dumps(header))
            lines.append(json.dumps({"size": k, "_source": False, "track_total_hits": False,
                                     "query": term_query(field, query_terms[qid])}))
        resp = cluster.request("POST", "/_msearch", "\n".join(lines) + "\n")
        for qid, item in zip(batch, resp["responses"], strict=True):
            if "error" in item:
                raise ClusterError(f"query {qid!r} failed: {item['error']}")
            run[qid] = [(h["_id"], float(h["_score"])) for h in item["hits"]["hits"]]
        advance(len(batch))
    return run
