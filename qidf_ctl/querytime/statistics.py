"""The df and N a query's boosts are computed from, read from a running cluster with read
privileges only (``_termvectors`` and ``_search``: no settings, no monitor API).

Two scopes, because the engine scores with two different statistics:

- ``shard``: one shard's Lucene statistics, from ``_termvectors`` on an artificial document
  whose values are the terms themselves (keyword analyzer, so each value is one term). Like
  the similarity's own, this df counts deleted documents until their segments merge, and N is
  the field's docCount: on a one-shard index it is exactly what the installed similarity sees.
- ``index``: index-wide statistics for ``dfs_query_then_fetch``, from one size-0 search: a
  ``filters`` aggregation (one bucket per term) under an ``exists`` query whose exact hit
  count is N. It counts live documents, so it equals the engine's dfs statistics once
  deleted documents are merged away.

Default ``query_then_fetch`` on several shards scores each shard with its own df; one request
carries one boost per term, so no statistics reproduce that exactly (``docs/how-to/query-time.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.stats.read import _shard_lookup

SHARD = "shard"
INDEX = "index"
LOOKUP_BATCH = 10_000  # terms per artificial document
# The filters aggregation may not make more buckets than search.max_buckets (65,535 on
# OpenSearch 2.x, 65,536 on Elasticsearch 8); a search-only user cannot read the setting, so
# batches stay well below it and halve if the cluster still refuses.
FILTERS_BATCH = 10_000


@dataclass(frozen=True)
class TermStats:
    """N and each term's df under one scope; a term absent from the index has df 0."""

    doc_count: int
    df: dict[str, int] = field(default_factory=dict)
    scope: str = SHARD  # "shard:K" or "index"

    def of(self, term: str) -> int:
        return self.df.get(term, 0)


def shard_scope(shard: int) -> str:
    return f"{SHARD}:{shard}"


def shard_statistics(cluster: Cluster, index: str, field_name: str, terms: Sequence[str],
                     shard: int = 0) -> TermStats:
    """Lucene's df of each term and the field's docCount on shard ``shard`` (one request per
    ``LOOKUP_BATCH`` terms; an empty ``terms`` still reads N)."""
    unique = list(dict.fromkeys(terms))
    df: dict[str, int] = {}
    doc_count = 0
    for start in range(0, max(len(unique), 1), LOOKUP_BATCH):
        batch = unique[start:start + LOOKUP_BATCH] or ["qidf"]
        found, totals = _shard_lookup(cluster, index, field_name, batch, shard)
        doc_count = totals.doc_count
        df.update({t: int(found.get(t, {}).get("doc_freq", 0)) for t in batch})
    return TermStats(doc_count, {t: df[t] for t in unique}, shard_scope(shard))


def index_statistics(cluster: Cluster, index: str, field_name: str, terms: Sequence[str],
                     batch: int = FILTERS_BATCH) -> TermStats:
    """Live documents holding each term, and live documents holding the field (N), over all
    shards: one size-0 search per ``batch`` terms."""
    pending = list(dict.fromkeys(terms))
    df: dict[str, int] = {}
    while True:
        chunk, rest = pending[:batch], pending[batch:]
        try:
            doc_count, counts = _filters_search(cluster, index, field_name, chunk)
        except ClusterError as exc:
            if "too_many_buckets" not in str(exc) or batch == 1:
                raise
            batch = max(1, batch // 2)
            continue
        df.update(zip(chunk, counts, strict=True))
        if not rest:
            break
        pending = rest
    return TermStats(doc_count, df, INDEX)


def _filters_search(cluster: Cluster, index: str, field_name: str,
                    terms: Sequence[str]) -> tuple[int, list[int]]:
    body: dict[str, Any] = {"size": 0, "track_total_hits": True,
                  "query": {"exists": {"field": field_name}}}
    if terms:
        body["aggs"] = {"df": {"filters": {"filters": [{"term": {field_name: t}}
                                                       for t in terms]}}}
    resp = cluster.request("POST", index_path(index, "_search"), body)
    total = resp["hits"]["total"]
    n = int(total["value"] if isinstance(total, dict) else total)
    buckets = resp.get("aggregations", {}).get("df", {}).get("buckets", [])
    return n, [int(b["doc_count"]) for b in buckets]


def shard_count(cluster: Cluster, index: str) -> int:
    """Shards a search on ``index`` reaches (one copy each), from a search's own ``_shards``:
    the only way that needs nothing beyond search privileges."""
    resp = cluster.request("POST", index_path(index, "_search"),
                           {"size": 0, "track_total_hits": False})
    return int(resp["_shards"]["total"])
