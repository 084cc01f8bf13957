"""Query-time q-log: the installed similarity's ranking from a query alone, with no change to
the index (no settings privilege, no close, no Painless, no plugin).

BM25 multiplies each term's IDF by its clause boost, so a bool of ``term`` clauses boosted by
``count(t) * idf_q(t) / idf_bm25(t)`` scores every document with q-log BM25 on an index that
keeps built-in BM25. Modules: ``statistics`` (df and N from the cluster), ``cache`` (a
bounded, time-limited df cache), ``boosts`` (the ratio, from ``qidf_ctl.formula``),
``query`` (the request body), ``target`` (the field and shards, with read privileges
only), ``builder`` (text in, query out).

    from qidf_ctl.querytime import QueryTime
    qt = QueryTime.connect(cluster, "code-search", q=0.3)
    built = qt.build("func (h *Header) FileInfo() fs.FileInfo")
    hits = qt.search(built, size=10)
"""

from qidf_ctl.querytime.boosts import boosts, idf_ratio
from qidf_ctl.querytime.builder import DFS, STATS_CHOICES, QlogQuery, QueryTime
from qidf_ctl.querytime.cache import DfCache
from qidf_ctl.querytime.query import boosted_query
from qidf_ctl.querytime.statistics import (
    INDEX,
    SHARD,
    TermStats,
    index_statistics,
    shard_statistics,
)
from qidf_ctl.querytime.target import Target, inspect

__all__ = ["DFS", "INDEX", "SHARD", "STATS_CHOICES", "DfCache", "QlogQuery", "QueryTime",
           "Target", "TermStats", "boosted_query", "boosts", "idf_ratio", "index_statistics",
           "inspect", "shard_statistics"]
