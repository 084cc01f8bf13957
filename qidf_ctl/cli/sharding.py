"""The warning ``show`` and ``predict`` print for an index with more than one shard.

With the default ``query_then_fetch`` each shard scores with its own df and N, so a term
with df = 1 on one shard may have df = 3 index-wide; q-log amplifies exactly those
differences. Measured in ``benchmarks/sharding/``: per-shard statistics cost q-log much of
its gain, and ``dfs_query_then_fetch`` (index-wide statistics, one extra round trip) gets
it back at a small latency cost (docs/multinode.md).
"""

from __future__ import annotations

ADVICE = ("search with search_type=dfs_query_then_fetch (index-wide df; measured cost "
          "~0.3-0.6 ms per search), or keep the index in one shard (docs/multinode.md)")


def sharding_warning(shards: int) -> str | None:
    """One line for an index of ``shards`` primary shards; None for one shard."""
    if shards <= 1:
        return None
    return (f"the index has {shards} shards: with the default query_then_fetch each shard "
            "scores with its own df and N, which costs q-log much of its gain (benchmark: "
            "0.57 -> 0.40 NDCG@10 on Go code at 12 shards); " + ADVICE)
