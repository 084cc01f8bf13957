"""The analyzer probe on real analyzers: the standard analyzer keeps identifiers whole, the
benchmark's identifier-aware analyzer (word_delimiter_graph) splits both naming styles, and
the default predictor then keeps BM25 whatever the field holds."""

from __future__ import annotations

import pytest
from qidf_research import pipeline as benchmark
from qidf_research.corpora import load_pairs, shipped_corpus

from qidf_ctl import predictors as predict
from qidf_ctl.evaluation import indexing
from qidf_ctl.stats.analyzer_probe import split_styles

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def go_docs():
    pairs = sorted(load_pairs(shipped_corpus("go")), key=lambda p: p.id)[:2000]
    return {p.id: p.doc for p in pairs}


@pytest.mark.parametrize(("analyzer", "styles"), [
    ("standard", []), ("identifier", ["camelCase", "snake_case"])])
def test_probe_and_default_predictor(cluster, go_docs, analyzer, styles):
    index = f"qidf-it-probe-{analyzer}"
    indexing.ensure_index(cluster, index, go_docs, analyzer=analyzer,
                          analysis=benchmark.ANALYZERS[analyzer])
    try:
        assert split_styles(cluster, index, indexing.FIELD) == styles
        p = predict.predict_for_index(cluster, index, indexing.FIELD, exact=True)
        assert p.statistics["splits_identifiers"] == styles
        if styles:
            assert p.q == 1.0 and "splits identifiers" in p.reason
        else:  # Go docstrings under the standard analyzer: a text field, so the default
            # keeps BM25 without a query sample and says so; the density gate opens
            assert p.q == 1.0 and p.ambiguous and "--queries" in p.reason
            gate = predict.predict_for_index(cluster, index, indexing.FIELD, exact=True,
                                             predictor="qidf-gate")
            assert gate.q < 1.0
    finally:
        cluster.request("DELETE", f"/{index}")
