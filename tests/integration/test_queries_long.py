"""A query whose analysis exceeds ``index.analyze.max_token_count`` (what an identifier-
splitting analyzer does to a long function) is analysed in pieces and gives the same token
counts as one pass would."""

from __future__ import annotations

from collections import Counter

import pytest

from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import queries

pytestmark = pytest.mark.integration
INDEX = "qidf-it-long-query"
TEXT = "\n".join(f"func handleWebSocketUpgrade{i}(w http.ResponseWriter) error {{ return nil }}"
                 for i in range(40))


def _drop(cluster):
    cluster.request("DELETE", f"/{INDEX}", None, {"ignore_unavailable": "true"})


@pytest.fixture()
def small_limit_index(cluster):
    _drop(cluster)
    cluster.request("PUT", f"/{INDEX}", {
        "settings": {"number_of_replicas": 0, "index.analyze.max_token_count": 50},
        "mappings": {"properties": {"text": {"type": "text", "analyzer": "standard"}}}})
    yield INDEX
    _drop(cluster)


def test_long_text_is_analysed_in_pieces(cluster, small_limit_index):
    with pytest.raises(ClusterError, match="max_token_count"):
        cluster.request("POST", f"/{INDEX}/_analyze", {"field": "text", "text": TEXT})
    counts = queries.analyze(cluster, INDEX, "text", TEXT)
    expected = Counter()
    for line in TEXT.splitlines():  # each line alone is under the limit
        resp = cluster.request("POST", f"/{INDEX}/_analyze", {"field": "text", "text": line})
        expected.update(t["token"] for t in resp["tokens"])
    assert counts == expected and sum(counts.values()) > 50
    assert counts["handlewebsocketupgrade7"] == 1 and counts["return"] == 40
