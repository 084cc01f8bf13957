"""The query-latency benchmark: built-in BM25, the native plugin and Painless on the same
segments (``python -m qidf_research.bench_speed``)."""
