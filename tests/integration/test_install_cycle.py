"""apply -> show -> revert on the real engine restores the original settings exactly."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import indexing
from qidf_ctl.similarity import QlogParams

pytestmark = pytest.mark.integration


def _settings(cluster, index):
    return cluster.request("GET", f"/{index}/_settings", params={"flat_settings": "true"})[
        index]["settings"]


@pytest.mark.parametrize("original_similarity", [None, {"default": {"type": "BM25", "k1": 1.1,
                                                                    "b": 0.6}}])
def test_apply_show_revert_restores_settings(cluster, original_similarity):
    index = "qidf-it-cycle"
    indexing.create_index(cluster, index, similarity=original_similarity)
    indexing.bulk_index(cluster, index, {"1": "func ParseForm parses the request body",
                                         "2": "ReadFile reads the named file"})
    cluster.request("PUT", f"/{index}/_mapping", {"_meta": {"owner": "search-team"}})
    before = _settings(cluster, index)

    first = install.apply(cluster, index, QlogParams(0.3))
    assert first.changed
    shown = install.show(cluster, index)
    assert shown["kind"] == "qlog" and shown["params"]["q"] == 0.3
    assert shown["mode"] == "script"
    assert not install.apply(cluster, index, QlogParams(0.3)).changed
    install.apply(cluster, index, QlogParams(0.7, form="rsj"))
    assert install.show(cluster, index)["params"]["form"] == "rsj"

    reverted = install.revert(cluster, index)
    assert reverted.changed
    assert _settings(cluster, index) == before
    mapping = cluster.request("GET", f"/{index}/_mapping")[index]["mappings"]
    assert mapping["_meta"] == {"owner": "search-team"}
    assert install.show(cluster, index)["kind"] == "builtin"
    hits = cluster.request("POST", f"/{index}/_search",
                           {"query": {"match": {indexing.FIELD: "ReadFile"}}})["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["2"]
    cluster.request("DELETE", f"/{index}")
