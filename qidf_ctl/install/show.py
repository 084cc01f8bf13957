"""``show``: the installed similarity of an index, what qidf recorded installing it, which
statistics its scoring searches use (and what per-shard ones cost it), and any interrupted
operation, change in progress or disagreement between record and settings."""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.install import scope
from qidf_ctl.install.notice import inspect
from qidf_ctl.install.state import read_state
from qidf_ctl.install.target import resolve_target


def show(cluster: Cluster, name: str) -> dict[str, Any]:
    state = read_state(cluster, name)
    installed = state.installed
    key = resolve_target(cluster, name, allow_hidden=True).key
    statistics = scope.inspect(cluster, state, key)
    return {
        "index": state.index,
        "status": state.status,
        "engine": str(cluster.engine),
        "similarity": installed.describe(),
        "kind": installed.kind,
        "mode": installed.mode.value if installed.mode else None,
        "params": installed.params.as_dict() if installed.params else None,
        "record": state.record,
        "fields_with_own_similarity": state.own_similarity_fields,
        **inspect(cluster, name),
        "shards": state.description.shards,
        "search_statistics": statistics,
        "sharding_warning": scope.advice(cluster, state.description.shards,
                                         statistics["scope"]),
    }
