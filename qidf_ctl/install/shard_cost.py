"""What per-shard statistics cost q-log, from the project's measured curve, and the one
client change that avoids it where qidf cannot (Elasticsearch, clusters without the plugin).

With the default ``query_then_fetch`` each shard scores with its own df and N, and q-log
amplifies exactly the differences in rare-term df. The numbers are those of
``benchmarks/sharding/`` (go-large, q-log at the q the default predictor gave it); a unit test
keeps them equal to its ``results.json``. Between measured shard counts the share lost is
interpolated on log(shards); beyond the largest it is at least the largest one measured.
"""

from __future__ import annotations

import itertools
import math

CORPUS = "184K Go docs, 1,000 code queries"
Q = 0.7  # the default predictor's q for that corpus when it was measured
BM25_ONE_SHARD = 0.2666
QLOG_QTF = {1: 0.4916, 3: 0.4444, 12: 0.3594}  # NDCG@10 at the predicted q, query_then_fetch
QLOG_DFS = {1: 0.4916, 3: 0.4928, 12: 0.4930}  # dfs_query_then_fetch (and qidf's pipeline)
CLIENT_CHANGE = "search_type=dfs_query_then_fetch"


def lost_share(shards: int) -> float:
    """Share of q-log's one-shard NDCG@10 gain over BM25 that plain searches lose."""
    gain = QLOG_QTF[1] - BM25_ONE_SHARD
    points = sorted((n, (QLOG_QTF[1] - v) / gain) for n, v in QLOG_QTF.items())
    if shards <= 1:
        return 0.0
    for (n0, l0), (n1, l1) in itertools.pairwise(points):
        if shards <= n1:
            t = (math.log(shards) - math.log(n0)) / (math.log(n1) - math.log(n0))
            return l0 + t * (l1 - l0)
    return points[-1][1]


def cost_line(shards: int) -> str | None:
    """One line for an index of ``shards`` primary shards searched with per-shard
    statistics; None for one shard."""
    if shards <= 1:
        return None
    share = lost_share(shards)
    bound = "at least " if shards > max(QLOG_QTF) else ("about " if shards not in QLOG_QTF
                                                        else "")
    curve = ", ".join(f"{v:.3f} on {n} shard{'s' if n > 1 else ''}"
                      for n, v in sorted(QLOG_QTF.items()))
    return (f"the index has {shards} shards: plain searches (query_then_fetch) score each "
            f"shard with its own df and N, which costs q-log {bound}{share:.0%} of its "
            f"one-shard NDCG@10 gain (measured on {CORPUS}, q = {Q:g}: {curve}; with dfs "
            f"{QLOG_DFS[max(QLOG_DFS)]:.3f})")


def client_change() -> str:
    """The one-line change every application that searches the index would make."""
    return (f"to keep the whole gain, send {CLIENT_CHANGE} with every search (the URL "
            f"parameter ?{CLIENT_CHANGE}, or the client's search_type argument), or keep "
            "the index in one shard (docs/how-to/shards.md)")
