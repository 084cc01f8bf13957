"""What ``revert`` can give back of a mapping that had no ``_meta`` (issue 33): the engines
keep a mapping's ``_meta`` once it is set (a ``_meta: null`` update is ignored; ``{}`` is
the emptiest it gets), so after apply and revert the mapping holds ``"_meta": {}`` where it
held none. This pins that limit on the real engine (if an engine ever lets ``_meta`` go, this
test fails and revert should use it), and that nothing of qidf's stays in it."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.similarity import QlogParams

pytestmark = pytest.mark.integration

INDEX = "qidf-meta-limit"


def _mapping(cluster) -> dict:
    return cluster.request("GET", index_path(INDEX, "_mapping"))[INDEX]["mappings"]


def test_revert_leaves_no_qidf_key_and_the_engine_keeps_an_empty_meta(cluster):
    try:
        cluster.request("DELETE", index_path(INDEX))
    except ClusterError as exc:
        if exc.status != 404:
            raise
    cluster.request("PUT", index_path(INDEX), {
        "settings": {"number_of_shards": 1, "number_of_replicas": 0},
        "mappings": {"properties": {"text": {"type": "text"}}}})
    try:
        assert "_meta" not in _mapping(cluster)
        install.apply(cluster, INDEX, QlogParams(0.3))
        assert "qidf" in _mapping(cluster)["_meta"]
        install.revert(cluster, INDEX)
        assert _mapping(cluster).get("_meta") == {}  # nothing of qidf's: the emptiest it gets
        cluster.request("PUT", index_path(INDEX, "_mapping"), {"_meta": None})
        assert _mapping(cluster).get("_meta") == {}, "the engine now drops _meta: use it"
        assert install.show(cluster, INDEX)["record"] is None
    finally:
        cluster.request("DELETE", index_path(INDEX))
