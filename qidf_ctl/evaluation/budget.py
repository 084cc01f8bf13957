"""Recall@8K-tokens needs each retrieved document's length in LLM tokens: fetched from the
index only as far as each query's budget walk reaches."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.evaluation import runs


def source_text(source: Mapping[str, Any], dotted: str) -> str:
    """The text of field ``dotted`` in a document's ``_source`` (a list joined by spaces): what
    the token counter counts."""
    node: Any = source
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    if isinstance(node, list):
        return " ".join(str(x) for x in node)
    return "" if node is None else str(node)


def _fetch_token_counts(cluster: Cluster, index: str, field_name: str, ids: list[str],
                        count: Callable[[str], int], cache: dict[str, int]) -> None:
    for start in range(0, len(ids), 1000):
        batch = ids[start:start + 1000]
        resp = cluster.request("POST", index_path(index, "_mget"), {"ids": batch},
                               {"_source_includes": field_name})
        for doc in resp["docs"]:
            cache[doc["_id"]] = count(source_text(doc.get("_source") or {}, field_name))


def token_counts_for_run(
    cluster: Cluster, index: str, field_name: str, run: runs.Run, budget: int,
    count: Callable[[str], int], cache: dict[str, int] | None = None,
) -> dict[str, int]:
    """Token counts of the documents each query's budget walk reaches, fetched in rounds
    (only what the walk needs: the whole corpus is never read unless it must be)."""
    cache = {} if cache is None else cache
    pos = dict.fromkeys(run, 0)
    used = dict.fromkeys(run, 0)
    while pos:
        wanted: list[str] = []
        for qid in list(pos):
            hits = run[qid]
            i = pos[qid]
            while i < len(hits) and hits[i][0] in cache and used[qid] <= budget:
                used[qid] += cache[hits[i][0]]
                i += 1
            pos[qid] = i
            if i >= len(hits) or used[qid] > budget:
                del pos[qid]
                continue
            wanted.extend(d for d, _ in hits[i:i + 64] if d not in cache)
        if wanted:
            _fetch_token_counts(cluster, index, field_name, sorted(set(wanted)), count, cache)
    return cache
