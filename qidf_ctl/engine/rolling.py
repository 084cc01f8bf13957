"""Changing the nodes of a running local cluster one at a time, so that it stays available.

The usual rolling-restart procedure: before a node stops, replica allocation is paused
(``cluster.routing.allocation.enable: primaries``) so the cluster does not start copying its
shards elsewhere, and a flush makes the node's copies quick to recover; the node is changed
(e.g. a plugin installed into its own distribution), restarted, and allocation resumes; the
next node waits until the cluster is back to the health it had. With at least one replica
every shard keeps a copy on a running node.

That alone still fails a few searches: a search whose query phase ran on the stopping node
loses its fetch phase with it (``node_disconnected_exception``, ``search_context_missing``;
the engine retries only the query phase on another copy). So on OpenSearch 2.4+ the node is
first weighed away from search traffic (weighted shard routing on the ``qidf_node`` awareness
attribute: weight 0) and stops only once it runs no search and holds no search context; the
weights are removed at the end. Searches a client sends to the stopping node's own HTTP port
still break with its connection, as with any node restart: clients with several hosts retry
them on another node.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from qidf_ctl.engine import local_http, process
from qidf_ctl.engine.config import DRAIN_TIMEOUT_S, GREEN_TIMEOUT_S, NODE_ATTRIBUTE, EngineConfig
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.errors import EngineError
from qidf_ctl.progress import Progress, quiet

NodeChange = Callable[[NodeSpec, Progress], None]
_WEIGHTS = f"/_cluster/routing/awareness/{NODE_ATTRIBUTE}/weights"


def _allocation(url: str, value: str | None) -> None:
    local_http.call(url, "PUT", "/_cluster/settings", {
        "persistent": {"cluster.routing.allocation.enable": value}})


def _weigh(url: str, weights: dict[str, str] | None) -> None:
    """Set the search weight of each node (None: remove the weights). The API checks a
    version number, so the current one is read first."""
    version = local_http.call(url, "GET", _WEIGHTS).get("_version", -1)
    if weights is None:
        local_http.call(url, "DELETE", "/_cluster/routing/awareness/weights",
                        {"_version": version})
    else:
        local_http.call(url, "PUT", _WEIGHTS, {"weights": weights, "_version": version})


def _undrain(urls: list[str]) -> None:
    """Remove the weights through whichever node answers (best effort: this runs on the way
    out of a failed restart too, and must not hide that failure)."""
    for url in urls:
        try:
            _weigh(url, None)
            return
        except EngineError:
            continue


def _drain(url: str, spec: NodeSpec, progress: Progress) -> dict[str, int]:
    """Weigh ``spec``'s node away from searches and wait until it has none in flight (twice
    in a row, to catch a search that was routed just before the weights arrived). Returns the
    search counters still above zero when the wait gave up (empty when the node went quiet):
    open search contexts that outlive their search, e.g. those of a search whose coordinating
    node stopped, hold the wait to its end."""
    progress(f"moving search traffic off node {spec.name}")
    _weigh(url, {NodeSpec(spec.cfg.for_port(p), spec.members).name:
                 "0" if p == spec.port else "1" for p in spec.members})
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    quiet_polls = 0
    busy: dict[str, int] = {}
    while time.monotonic() < deadline and quiet_polls < 2:
        nodes = local_http.call(url, "GET", f"/_nodes/{spec.name}/stats/indices/search")
        search = next(iter(nodes["nodes"].values()))["indices"]["search"]
        busy = {k: search[k] for k in ("query_current", "fetch_current", "open_contexts",
                                       "scroll_current") if search.get(k, 0)}
        quiet_polls = 0 if busy else quiet_polls + 1
        time.sleep(0.2)
    if quiet_polls < 2:
        progress(f"node {spec.name} still had searches after {DRAIN_TIMEOUT_S}s "
                 f"({', '.join(f'{k} {v}' for k, v in busy.items())}); stopping it")
    return busy


def _wait_health(url: str, status: str, timeout_s: int) -> None:
    health = local_http.call(
        url, "GET", f"/_cluster/health?wait_for_status={status}&wait_for_no_initializing_shards"
        f"=true&timeout={timeout_s}s", timeout=timeout_s + 10)
    if health.get("timed_out"):
        raise EngineError(
            f"the cluster did not return to {status} within {timeout_s}s after a node "
            f"restart (now {health.get('status')}); see GET _cluster/allocation/explain")


def restart_each(
    cfg: EngineConfig,
    change: NodeChange,
    ports: Sequence[int] | None = None,
    progress: Progress = quiet,
    green_timeout_s: int = GREEN_TIMEOUT_S,
    prepare: Sequence[process.NodePrep] = (),
    probe: process.HealthProbe | None = None,
) -> list[dict[str, Any]]:
    """Apply ``change`` to each node of ``ports`` (default: every node of the cluster) and
    restart it, one node at a time; a cluster that is not running is changed and started.
    ``prepare`` hooks run before each node starts and ``probe`` checks its health, as in
    ``process.start``.

    Returns, per node, how long it was down and how long its whole step took, and the parts
    of the step: the change, the drain (and flush), and the wait for the cluster's health
    after the node is back; ``drain_busy``: the search counters that kept the drain from
    finishing (empty when the node went quiet).
    """
    cfg = process.recorded(cfg)
    cluster = cfg.ports
    ports = list(ports or cluster)
    stray = [p for p in ports if p not in cluster]
    if stray:
        raise EngineError(f"port(s) {stray} are not nodes of the local cluster on ports "
                          f"{cluster[0]}-{cluster[-1]}")
    specs = {p: NodeSpec(cfg.for_port(p), cluster) for p in cluster}
    running = [p for p in cluster if process.running_pid(specs[p].cfg) is not None]
    if not running:
        for p in ports:
            process.prepare(specs[p], progress)
            change(specs[p], progress)
        process.start(cfg, progress, prepare=prepare, probe=probe)
        return [{"port": p, "down_s": None, "step_s": None} for p in ports]
    if len(running) != len(cluster):
        names = ", ".join(specs[p].name for p in cluster if p not in running)
        raise EngineError(f"node(s) {names} of the local cluster are not running: start the "
                          f"cluster first (qidf engine start --port {cluster[0]})")
    if len(cluster) == 1:
        spec = specs[cluster[0]]
        started = time.monotonic()
        change(spec, progress)
        down = time.monotonic()
        process.stop_node(spec.cfg)
        process.start_node(spec, progress, prepare, probe=probe)
        return [{"port": spec.port, "down_s": time.monotonic() - down,
                 "step_s": time.monotonic() - started}]
    before = local_http.call(specs[cluster[0]].url, "GET", "/_cluster/health")["status"]
    target = "green" if before == "green" else "yellow"
    steps = []
    drain = specs[cluster[0]].can_drain
    try:
        for port in ports:
            spec = specs[port]
            other = specs[next(p for p in cluster if p != port)].url
            started = time.monotonic()
            change(spec, progress)
            changed = time.monotonic()
            busy = _drain(other, spec, progress) if drain else {}
            progress(f"restarting node {spec.name} (replica allocation paused)")
            _allocation(other, "primaries")
            try:
                local_http.call(other, "POST", "/_flush", timeout=120)
                down = time.monotonic()
                process.stop_node(spec.cfg)
                process.start_node(spec, progress, prepare, probe=probe)
                up = time.monotonic()
            finally:
                _allocation(other, None)
            progress(f"waiting for the cluster to be {target} again")
            _wait_health(spec.url, target, green_timeout_s)
            steps.append({"port": port, "down_s": up - down,
                          "step_s": time.monotonic() - started, "change_s": changed - started,
                          "drain_s": down - changed, "recovery_s": time.monotonic() - up,
                          "drain_busy": busy})
    finally:
        if drain:
            _undrain([specs[p].url for p in cluster])
    return steps
