"""The query-time equivalence benchmark: boosted queries against the installed similarity,
on one shard and on several, and the two sweep modes timed
(``python -m qidf_research.bench_querytime``)."""
