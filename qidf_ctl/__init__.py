"""qidf: q-logarithmic IDF for BM25 on Elasticsearch and OpenSearch, without a reindex."""

__version__ = "0.1.0"
