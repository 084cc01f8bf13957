"""The warning ``show`` and ``predict`` print for an index with more than one shard.

With the default ``query_then_fetch`` each shard scores with its own df and N, so a term
with df = 1 on one shard may have df = 3 index-wide; q-log amplifies exactly those
differences. Measured in ``benchmarks/sharding/``: per-shard statistics cost q-log much of
its gain, and ``dfs_query_then_fetch`` (index-wide statistics, one extra round trip) gets
it back at a small latency cost (docs/how-to/multinode.md).
"""

from __future__ import annotations

ADVICE = ("search with search_type=dfs_query_then_fetch (index-wide df: the one-shard "
          "NDCG@10 back, measured +0.04 to +0.53 ms at p50), or keep the index in one shard "
          "(docs/how-to/multinode.md)")


def sharding_warning(shards: int) -> str | None:
    """One line for an index of ``shards`` primary shards; None for one shard."""
    if shards <= 1:
        return None
    return (f"the index has {shards} shards: with the default query_then_fetch each shard "
            "scores with its own df and N, which costs q-log part of its gain (benchmark, "
            "184K Go docs: NDCG@10 0.54 on 1 shard, 0.47 on 3, 0.40 on 12); " + ADVICE)
