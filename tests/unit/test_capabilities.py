"""``cluster.capabilities.close_disabled`` on the answers the engines really give."""

from __future__ import annotations

from typing import Any

import pytest

from qidf_ctl.cluster import capabilities
from qidf_ctl.errors import ClusterError, ConflictError


class Answer:
    """A cluster whose ``GET _cluster/settings`` answers ``body`` (or fails with ``status``)."""

    def __init__(self, body: Any = None, status: int | None = None) -> None:
        self.body, self.status = body, status
        self.params: Any = None
        self.serverless = False

    def request(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.params = params
        if self.status is not None:
            raise ClusterError("refused", status=self.status)
        return self.body


# OpenSearch 2.19.6, transient false: filter_path answers the nested form (with
# flat_settings=true the same filter answered {} and a disabled close went unseen).
NESTED_OFF = {"transient": {"cluster": {"indices": {"close": {"enable": "false"}}}},
              "defaults": {"cluster": {"indices": {"close": {"enable": "true"}}}}}
NESTED_ON = {"defaults": {"cluster": {"indices": {"close": {"enable": "true"}}}}}


def test_a_nested_false_is_seen_and_a_later_layer_wins():
    assert capabilities.close_disabled(Answer(NESTED_OFF)) is True
    assert capabilities.close_disabled(Answer(NESTED_ON)) is False
    persistent_on = {"transient": {"cluster.indices.close.enable": "true"},
                     "persistent": {"cluster.indices.close.enable": "false"}}
    assert capabilities.close_disabled(Answer(persistent_on)) is False


def test_the_request_asks_for_the_nested_form():
    cluster = Answer(NESTED_ON)
    capabilities.close_disabled(cluster)
    assert "flat_settings" not in cluster.params


def test_unreadable_settings_leave_it_to_the_close_and_check_closable_refuses_false():
    assert capabilities.close_disabled(Answer(status=403)) is None
    capabilities.check_closable(Answer(status=403))
    with pytest.raises(ConflictError, match="--strategy clone"):
        capabilities.check_closable(Answer(NESTED_OFF))
