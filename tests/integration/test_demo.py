"""The demo, the main job of the README's first command, on the real engine: q-log beats
BM25 on real Go code, the default predictor's q (the demo's queries as its sample) is among
the rows, and the index ends on built-in BM25."""

from __future__ import annotations

import pytest

from qidf_ctl import demo, install
from qidf_ctl.predictors import content

pytestmark = pytest.mark.integration
INDEX = "qidf-it-demo"


def test_demo_rows_and_cleanup(cluster):
    result = demo.run_demo(cluster, max_queries=150, index=INDEX)
    try:
        labels = [r.label for r in result.rows]
        assert labels[0] == "BM25 (built-in)" and result.documents == 13_994
        # Go docstrings searched with code: the queries decide
        assert result.predicted_q == content.Q_CODE_QUERIES
        assert f"q-log q={result.predicted_q:g} (qidf predict)" in labels
        bm25 = result.rows[0].ndcg10
        assert all(r.ndcg10 > bm25 + 0.1 for r in result.rows[1:])  # +0.15 to +0.24 measured
        assert result.example["qlog_rank"] <= 3
        assert install.show(cluster, INDEX)["kind"] == "builtin"
    finally:
        cluster.request("DELETE", f"/{INDEX}")
