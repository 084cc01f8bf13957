"""The slow index calls a change makes (close, open, write block, clone, health), each
bounded by the engine's own timeouts and then waited for by polling, never by one long HTTP
call.

The client gives up on a request after 60 s and calls that "cannot reach the cluster"; a
``_close`` or ``_open`` on a big index or a busy cluster can take longer. So every such call
carries ``timeout`` and ``cluster_manager_timeout`` (``master_timeout`` on Elasticsearch)
below the client's timeout; when the engine answers "not acknowledged yet", or the client
times out while the cluster still answers, qidf polls the index's state until the step is
done or the step's deadline passes. Only a cluster that stops answering is reported as
unreachable.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster, close_failure, index_path, segment
from qidf_ctl.errors import ClusterError

SERVER_TIMEOUT_S = 30  # below the client's 60 s request timeout
STEP_TIMEOUT_ENV = "QIDF_STEP_TIMEOUT"
DEFAULT_STEP_TIMEOUT_S = 600.0
POLL_S = 0.2


def step_timeout() -> float:
    try:
        return float(os.environ.get(STEP_TIMEOUT_ENV, DEFAULT_STEP_TIMEOUT_S))
    except ValueError:
        return DEFAULT_STEP_TIMEOUT_S


@dataclass
class Wait:
    """How long one step may take, and what to do while waiting (renew the lease)."""

    seconds: float = field(default_factory=step_timeout)
    heartbeat: Callable[[], None] = lambda: None
    poll_s: float = POLL_S

    def until(self, done: Callable[[], bool], doing: str) -> None:
        deadline = time.monotonic() + self.seconds
        last_beat = time.monotonic()
        while not done():
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"{doing} did not finish within {self.seconds:.0f}s (the cluster answers "
                    f"but is slow; raise {STEP_TIMEOUT_ENV} or check GET "
                    "_cluster/allocation/explain)", error_type="timeout", retryable=True)
            if time.monotonic() - last_beat > 30:
                self.heartbeat()
                last_beat = time.monotonic()
            time.sleep(self.poll_s)


def server_params(cluster: Cluster, timeout_s: int = SERVER_TIMEOUT_S,
                  **extra: str) -> dict[str, str]:
    """The engine's own timeouts as request ``params`` (the transport encodes them into the
    query string itself, so ``timeout`` stays a server parameter, not the client's)."""
    manager = ("cluster_manager_timeout" if cluster.engine.distribution == "opensearch"
               else "master_timeout")
    return {"timeout": f"{timeout_s}s", manager: f"{SERVER_TIMEOUT_S}s", **extra}


def reachable(cluster: Cluster) -> bool:
    try:
        cluster.request("GET", "/_cluster/health")
    except ClusterError as exc:
        return exc.error_type != "connection_error"
    return True


def slow_call(cluster: Cluster, method: str, path: str, body: Any, doing: str,
               done: Callable[[], bool], wait: Wait, acked: Callable[[Any], bool],
               params: dict[str, str] | None = None) -> None:
    """One admin call; if the engine (or the client) gives up before it is done, poll."""
    try:
        resp = cluster.request(method, path, body, params)
        if acked(resp):
            return
    except ClusterError as exc:
        if exc.error_type != "connection_error" or not reachable(cluster):
            raise
    wait.until(done, doing)


def index_status(cluster: Cluster, index: str) -> str:
    """'open', 'close', or 'missing'."""
    try:
        rows = cluster.request("GET", f"/_cat/indices/{segment(index)}",
                               params={"format": "json", "h": "index,status",
                                       "expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            return "missing"
        raise
    return str(rows[0]["status"]) if rows else "missing"


def flat_settings(cluster: Cluster, index: str) -> dict[str, Any] | None:
    """The index's flat settings (readable when closed too); None when it does not exist."""
    try:
        resp = cluster.request("GET", index_path(index, "_settings"),
                               params={"flat_settings": "true", "expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    entry = resp.get(index)
    return dict(entry["settings"]) if entry else None


def searchable(cluster: Cluster, index: str) -> bool:
    """Every primary active. Health "yellow" is not enough: the engines report a just
    reopened or just cloned index yellow while its primaries are still initializing (and
    searches on it fail), so the active primaries are counted."""
    health = cluster.request(
        "GET", f"/_cluster/health/{segment(index)}",
        params=server_params(cluster, 5, wait_for_status="yellow", level="indices"))
    entry = health.get("indices", {}).get(index, {})
    shards = int(entry.get("number_of_shards", 0))
    return (not health.get("timed_out") and entry.get("status") in ("yellow", "green")
            and shards > 0 and int(entry.get("active_primary_shards", 0)) >= shards)


def close_index(cluster: Cluster, index: str, wait: Wait) -> None:
    """Close, or say why the engine would not: a refusal inside a 200 answer (a shard's
    privilege) is raised at once; a close not acknowledged yet is polled for."""

    def closed(resp: Any) -> bool:
        failure = close_failure(resp, index)
        if failure is not None and not failure.retryable:
            raise failure
        return failure is None

    slow_call(cluster, "POST", index_path(index, "_close"), None, f"closing {index}",
               lambda: index_status(cluster, index) == "close", wait, closed,
               server_params(cluster))


def open_index(cluster: Cluster, index: str, wait: Wait) -> None:
    """Open and wait until every primary is active (searches succeed)."""
    slow_call(cluster, "POST", index_path(index, "_open"), None, f"opening {index}",
               lambda: index_status(cluster, index) == "open", wait,
               lambda r: bool(r.get("acknowledged")),
               server_params(cluster, wait_for_active_shards="1"))
    wait_searchable(cluster, index, wait)


def wait_searchable(cluster: Cluster, index: str, wait: Wait) -> None:
    wait.until(lambda: searchable(cluster, index), f"waiting for {index} to be searchable")


def block_writes(cluster: Cluster, index: str, wait: Wait) -> None:
    """``PUT _block/write``: unlike setting ``index.blocks.write``, the engine also waits for
    writes already in flight, so a clone taken afterwards holds every acknowledged write."""
    path, params = index_path(index, "_block", "write"), server_params(cluster)

    def acked(resp: Any) -> bool:
        return bool(resp.get("acknowledged")) and bool(resp.get("shards_acknowledged", True))

    slow_call(cluster, "PUT", path, None, f"write-blocking {index}",
               lambda: acked(cluster.request("PUT", path, None, params)), wait, acked, params)


def unblock_writes(cluster: Cluster, index: str) -> None:
    cluster.request("PUT", index_path(index, "_settings"), {"index.blocks.write": None},
                    server_params(cluster))


def put_settings(cluster: Cluster, index: str, body: dict[str, Any]) -> None:
    cluster.request("PUT", index_path(index, "_settings"), body, server_params(cluster))


def delete_index(cluster: Cluster, index: str) -> None:
    try:
        cluster.request("DELETE", index_path(index), None, server_params(cluster))
    except ClusterError as exc:
        if exc.status != 404:
            raise


def clone_index(cluster: Cluster, source: str, target: str, settings: dict[str, Any],
                wait: Wait) -> None:
    """``_clone`` (hard links) with ``settings`` on the new index; returns once it exists
    (the shards are waited for by ``wait_searchable``)."""
    slow_call(cluster, "POST", index_path(source, "_clone", segment(target)),
               {"settings": settings}, f"cloning {source}",
               lambda: index_status(cluster, target) != "missing", wait,
               lambda r: bool(r.get("acknowledged")),
               server_params(cluster, wait_for_active_shards="0"))


def update_aliases(cluster: Cluster, actions: list[dict[str, Any]], wait: Wait,
                   done: Callable[[], bool]) -> None:
    """One atomic ``_aliases`` call."""
    slow_call(cluster, "POST", "/_aliases", {"actions": actions}, "moving the aliases", done,
               wait, _aliases_done, server_params(cluster))


def _aliases_done(resp: Any) -> bool:
    """Acknowledged, and (Elasticsearch 8) no action reported failed."""
    if resp.get("errors"):
        raise ClusterError(f"the alias swap reported errors: {resp.get('action_results')}",
                           status=400, error_type="alias_action_failed")
    return bool(resp.get("acknowledged"))


def doc_count(cluster: Cluster, index: str, refresh: bool = True) -> int:
    if refresh:
        cluster.request("POST", index_path(index, "_refresh"))
    return int(cluster.request("GET", index_path(index, "_count"))["count"])


def aliases_of(cluster: Cluster, index: str) -> dict[str, dict[str, Any]]:
    """Aliases of ``index`` with their properties (filter, routing, is_write_index...)."""
    try:
        resp = cluster.request("GET", index_path(index, "_alias"),
                               params={"expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            return {}
        raise
    return dict(resp.get(index, {}).get("aliases", {}))


def resolves_to(cluster: Cluster, name: str) -> list[str]:
    """The concrete indices ``name`` (an index or alias) resolves to now ([] if none)."""
    try:
        resp = cluster.request("GET", f"/_resolve/index/{segment(name)}",
                               params={"expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status == 404:
            return []
        raise
    for alias in resp.get("aliases", []):
        if alias.get("name") == name:
            return sorted(alias.get("indices", []))
    return [i["name"] for i in resp.get("indices", []) if i.get("name") == name]
