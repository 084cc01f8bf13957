"""qidf: q-logarithmic IDF for BM25 on Elasticsearch and OpenSearch, without a reindex.

The library behind the ``qidf`` command. The pieces, each usable on its own:

- ``qidf_ctl.formula``: the q-log IDF itself.
- ``qidf_ctl.similarity``: parameters -> index settings (Painless or plugin) and back.
- ``qidf_ctl.cluster``: connecting (``Cluster.connect``), engine detection, index names.
- ``qidf_ctl.install``: ``apply``, ``revert``, ``show`` on a live index.
- ``qidf_ctl.stats`` and ``qidf_ctl.predictors``: corpus statistics and a label-free q.
- ``qidf_ctl.evaluation``: eval and sweep with relevance labels.
- ``qidf_ctl.engine``: the embedded local engine; ``qidf_ctl.demo``: the demo.
"""

__version__ = "0.2.0"
