"""Starting, stopping and inspecting the local engine's nodes: plain Java processes on 127.0.0.1.

One node, or a cluster of several on consecutive ports that find each other through their
transport ports. OpenSearch refuses to run as root; when qidf runs as root the nodes run as
the unprivileged user ``nobody``. ``stop`` ends only the nodes it started (their recorded
pids, checked against each process's command line).

``start`` takes ``prepare`` hooks: each runs for every node it starts, after the node's folder,
configuration and distribution copy exist and before the JVM starts, and may add ``-E``
settings or files (e.g. a security plugin and its certificates). Settings that must survive a
restart by another command (``qidf plugin install`` restarts nodes) belong in the node's
``config/`` files, which persist; the ``-E`` settings a hook adds apply to that start only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from qidf_ctl.engine import local_http, node_user
from qidf_ctl.engine.assemble import assemble
from qidf_ctl.engine.config import (
    ENV_JAVA_OPTS,
    EXTRA_START_TIMEOUT_PER_NODE_S,
    FLAVORS,
    START_TIMEOUT_S,
    EngineConfig,
    NodeRecord,
    distribution_of_version,
)
from qidf_ctl.engine.java import find_java
from qidf_ctl.engine.layout import NodeSpec, ensure_node_dist, point_jvm_files_at
from qidf_ctl.engine.node_user import NodeUser
from qidf_ctl.errors import EngineError
from qidf_ctl.progress import Progress, quiet

# A hook run for each node before its JVM starts: may add -E settings or files.
NodePrep = Callable[[NodeSpec, dict[str, str], Progress], None]
# A node's _cluster/health, None until it answers: replaces the plain-HTTP check for a node
# with TLS and authentication (engine/security.py).
HealthProbe = Callable[[NodeSpec], dict | None]


def _record_path(cfg: EngineConfig) -> Path:
    return cfg.node_dir / "node.json"


def read_record(cfg: EngineConfig) -> NodeRecord | None:
    try:
        fields = json.loads(_record_path(cfg).read_text())
        if "distribution" not in fields:  # written by qidf 0.1, which ran one engine per port
            fields["distribution"] = distribution_of_version(str(fields.get("version", "")))
        return NodeRecord(**fields)
    except (OSError, ValueError, TypeError):
        return None


def members(cfg: EngineConfig) -> tuple[int, ...]:
    """HTTP ports of the cluster the node on ``cfg.port`` belongs to: as recorded when it last
    started, else the ones ``cfg`` asks for."""
    rec = read_record(cfg)
    return rec.members if rec else cfg.ports


def recorded(cfg: EngineConfig) -> EngineConfig:
    """``cfg`` with the engine, heap and cluster size recorded by the last start on its port
    (as given when nothing was recorded): what a restart of those nodes must use."""
    rec = read_record(cfg)
    if rec is None:
        return cfg
    return dataclasses.replace(cfg, distribution=rec.distribution, version=rec.version,
                               heap=rec.heap or cfg.heap, nodes=len(rec.members),
                               port=rec.members[0])


def _is_our_node(pid: int, node_dir: Path) -> bool:
    """True only for a live engine process started with this node's folder."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return False
    return is_engine_command(args, node_dir)


def is_engine_command(args: Sequence[str], node_dir: Path) -> bool:
    """An engine's JVM (its main class alone, or after its module as Elasticsearch 8 runs
    it: ``org.elasticsearch.server/org.elasticsearch.bootstrap.Elasticsearch``) started with
    exactly this node folder."""
    engine = any(a == f.main_class or a.endswith("/" + f.main_class)
                 for a in args for f in FLAVORS.values())
    return engine and f"-Dqidf.node.dir={node_dir}" in args


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def running_pid(cfg: EngineConfig) -> int | None:
    """The pid of the node on ``cfg.port`` if qidf started it and it still runs."""
    rec = read_record(cfg)
    return rec.pid if rec and _is_our_node(rec.pid, cfg.node_dir) else None


def node_status(cfg: EngineConfig) -> dict:
    """One node: running or not, where its folder and logs are."""
    rec = read_record(cfg)
    pid = running_pid(cfg)
    return {
        "running": pid is not None,
        "url": cfg.url,
        "pid": pid,
        "version": rec.version if rec else cfg.version,
        "node_dir": str(cfg.node_dir),
        "logs": str(cfg.node_dir / "logs"),
    }


def status(cfg: EngineConfig) -> dict:
    """What runs where: for ``qidf engine status`` and for scripts. For a cluster, ``running``
    means every node runs; ``nodes`` has each node's own status."""
    ports = members(cfg)
    nodes = [node_status(cfg.for_port(p)) for p in ports]
    up = [n for n in nodes if n["running"]]
    health = next((h for h in (local_http.health(n["url"]) for n in up) if h), None)
    rec = read_record(cfg)
    return {
        "running": len(up) == len(nodes),
        "url": cfg.url,
        "pid": running_pid(cfg),
        "version": rec.version if rec else cfg.version,
        "engine": rec.spelling if rec else cfg.spelling,
        "health": health.get("status") if health else None,
        "node_dir": str(cfg.node_dir),
        "logs": str(cfg.node_dir / "logs"),
        "installed": (cfg.dist / ".qidf-assembled").exists(),
        "cluster_name": health.get("cluster_name") if health else None,
        "running_nodes": len(up),
        "nodes": nodes,
    }


def _check_folder(spec: NodeSpec) -> None:
    """Refuse to start an engine on a folder holding another engine's or cluster's data: a
    newer engine upgrades data in place (the old one can no longer read it), and a node with
    another cluster's state never joins this one."""
    rec = read_record(spec.cfg)
    if rec is None or not any((spec.node_dir / "data").glob("*")):
        return
    what = None
    if rec.spelling != spec.cfg.spelling:
        what = f"data of {rec.spelling}"
    elif rec.members != spec.members:
        what = ("data of a single node" if len(rec.members) == 1 else
                f"data of a cluster on ports {rec.members[0]}-{rec.members[-1]}")
    if what:
        raise EngineError(
            f"{spec.node_dir} holds {what}, not of {spec.cfg.spelling} on ports "
            f"{spec.members[0]}-{spec.members[-1]}: pick other ports (--port) or delete that "
            "folder")


def _check_ports(spec: NodeSpec) -> None:
    for port, what in ((spec.port, "HTTP"), (spec.transport_port, "transport")):
        if _port_in_use(port):
            raise EngineError(
                f"port {port} on 127.0.0.1 ({what} port of node {spec.name}) is already in use "
                "by another process: stop it, or pick other ports with --port / "
                "QIDF_ENGINE_PORT")


def _prepare_node(spec: NodeSpec, shared_dist: Path) -> None:
    node = spec.node_dir
    for sub in ("data", "logs"):
        (node / sub).mkdir(parents=True, exist_ok=True)
    ensure_node_dist(spec, shared_dist)
    if not spec.config.exists():
        shutil.copytree(shared_dist / "config", spec.config)
        point_jvm_files_at(spec.config / "jvm.options", node)
    jvm_heap = spec.config / "jvm.options.d" / "qidf-heap.options"
    jvm_heap.parent.mkdir(exist_ok=True)
    jvm_heap.write_text(f"-Xms{spec.cfg.heap}\n-Xmx{spec.cfg.heap}\n")


def prepare(spec: NodeSpec, progress: Progress = quiet) -> None:
    """Lay out a node's folder (data, logs, config, its distribution copy) without starting
    it: e.g. to install a plugin before the first start."""
    _prepare_node(spec, assemble(spec.cfg, progress))


def _launch(spec: NodeSpec, java_home: Path, settings: dict[str, str],
            progress: Progress, user: NodeUser | None) -> subprocess.Popen[bytes]:
    cfg, node = spec.cfg, spec.node_dir
    flavor = cfg.flavor
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(node),
        "JAVA_HOME": str(java_home),
        flavor.env_java: str(java_home),
        flavor.env_conf: str(spec.config),
        # The node folder on the JVM's command line lets `stop` recognise this node.
        flavor.env_opts: f"-Dqidf.node.dir={node} " + os.environ.get(ENV_JAVA_OPTS, ""),
    }
    pid_file = node / "engine.pid"
    pid_file.unlink(missing_ok=True)
    args = [str(spec.dist / "bin" / flavor.launcher), *flavor.extra_settings,
            *(f"-E{k}={v}" for k, v in settings.items()), "-p", str(pid_file)]
    progress(f"starting {flavor.title} {cfg.version} node {spec.name} on {spec.url}")
    node_user.ready_to_launch(user, cfg.root, node, Path(args[0]))
    console = open(node / "logs" / "console.log", "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(
            args, env=env, cwd=str(node), stdout=console, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
            **(user.popen_args() if user else {}))
    except OSError as exc:
        raise EngineError(f"cannot start {args[0]}: {exc.strerror or exc}") from None
    finally:
        console.close()
    record = NodeRecord(proc.pid, spec.port, cfg.version, spec.url, str(node), time.time(),
                        cfg.distribution, list(spec.members), cfg.heap)
    _record_path(cfg).write_text(json.dumps(asdict(record)))
    return proc


def start(cfg: EngineConfig, progress: Progress = quiet, timeout_s: float | None = None,
          prepare: Sequence[NodePrep] = (), probe: HealthProbe | None = None) -> dict:
    """Start the node, or the ``cfg.nodes`` nodes of a cluster (assembling the engine first if
    needed), and wait until every node has joined and the cluster is at least yellow.

    Nodes of the cluster that already run are left alone; the others start together (a new
    cluster elects its first cluster manager only once a majority of nodes is up). ``probe``
    replaces the plain-HTTP health check (a node with TLS and authentication).
    """
    ports = cfg.ports if cfg.nodes > 1 else members(cfg)  # a recorded cluster starts whole
    specs = [NodeSpec(cfg.for_port(p), ports) for p in ports]
    to_start = [s for s in specs if running_pid(s.cfg) is None]
    if not to_start:
        return {**status(cfg), "already_running": True}
    for spec in to_start:
        _check_folder(spec)
        _check_ports(spec)
    user = node_user.for_home(cfg.root)
    java_home = find_java(cfg.version, cfg.java_home, cfg.distribution)
    node_user.check_java(user, java_home)
    shared = assemble(cfg, progress)
    launched = []
    for spec in to_start:
        _prepare_node(spec, shared)
        settings = spec.settings()
        for hook in prepare:
            hook(spec, settings, progress)
        launched.append((spec, _launch(spec, java_home, settings, progress, user)))
    limit = timeout_s or START_TIMEOUT_S + EXTRA_START_TIMEOUT_PER_NODE_S * (len(launched) - 1)
    try:
        _wait_joined(launched, len(specs), limit, probe)
    except EngineError:
        for spec, _ in launched:
            stop_node(spec.cfg)
        raise
    return {**status(cfg), "already_running": False}


def start_node(spec: NodeSpec, progress: Progress = quiet,
               prepare: Sequence[NodePrep] = (), timeout_s: float = START_TIMEOUT_S,
               probe: HealthProbe | None = None) -> None:
    """(Re)start one node of an existing cluster and wait until it has joined."""
    if running_pid(spec.cfg) is not None:
        return
    _check_ports(spec)
    user = node_user.for_home(spec.cfg.root)
    java_home = find_java(spec.cfg.version, spec.cfg.java_home, spec.cfg.distribution)
    node_user.check_java(user, java_home)
    _prepare_node(spec, assemble(spec.cfg, progress))
    settings = spec.settings()
    for hook in prepare:
        hook(spec, settings, progress)
    _wait_joined([(spec, _launch(spec, java_home, settings, progress, user))],
                 len(spec.members), timeout_s, probe)


def _wait_joined(launched: list[tuple[NodeSpec, subprocess.Popen[bytes]]], size: int,
                 timeout_s: float, probe: HealthProbe | None = None) -> None:
    """Until each launched node answers with a cluster of ``size`` nodes, yellow or green: a
    node answers health only once it has joined a cluster with an elected manager."""
    deadline = time.monotonic() + timeout_s
    waiting = list(launched)
    while waiting and time.monotonic() < deadline:
        for spec, proc in list(waiting):
            if proc.poll() is not None:
                raise EngineError(
                    f"{spec.cfg.flavor.title} node {spec.name} exited during start (code "
                    f"{proc.returncode}): {_last_error(spec.node_dir)}; full log in "
                    f"{spec.node_dir / 'logs'}")
            health = probe(spec) if probe is not None else local_http.health(spec.url)
            if (health and health.get("number_of_nodes") == size
                    and health.get("status") in ("green", "yellow")):
                _adopt_java_pid(spec.cfg, spec.node_dir / "engine.pid")
                waiting.remove((spec, proc))
        if waiting:
            time.sleep(0.5)
    if waiting:
        names = ", ".join(s.name for s, _ in waiting)
        raise EngineError(
            f"node(s) {names} did not join a {size}-node cluster within {timeout_s:.0f}s; "
            f"logs in {waiting[0][0].node_dir / 'logs'}")


def _adopt_java_pid(cfg: EngineConfig, pid_file: Path) -> None:
    """Record the JVM's own pid (the launcher script may not exec into it)."""
    record = read_record(cfg)
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    if record is not None:
        record.pid = pid
        _record_path(cfg).write_text(json.dumps(asdict(record)))


def _last_error(node: Path) -> str:
    try:
        lines = (node / "logs" / "console.log").read_text(errors="replace").splitlines()
    except OSError:
        return "no console output"
    for line in reversed(lines):
        if "Exception" in line or "ERROR" in line or "error" in line:
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "no console output"


def _signal(cfg: EngineConfig, sig: int) -> int | None:
    pid = running_pid(cfg)
    if pid is not None:
        os.kill(pid, sig)
    return pid


def _wait_gone(cfg: EngineConfig, pid: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        if not _is_our_node(pid, cfg.node_dir):
            break
        time.sleep(0.3)
    else:
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def stop_node(cfg: EngineConfig, timeout_s: float = 60, *, kill: bool = False) -> bool:
    """Stop the one node on ``cfg.port`` (SIGTERM, or SIGKILL to simulate a crash); False
    when it was not running."""
    pid = _signal(cfg, signal.SIGKILL if kill else signal.SIGTERM)
    if pid is None:
        return False
    _wait_gone(cfg, pid, time.monotonic() + timeout_s)
    return True


def stop(cfg: EngineConfig, timeout_s: float = 60) -> bool:
    """Stop every node of the cluster ``cfg.port`` belongs to (by recorded pid) and nothing
    else; False when none was running. All get SIGTERM at once."""
    ports = members(cfg)
    pids = [(cfg.for_port(p), _signal(cfg.for_port(p), signal.SIGTERM)) for p in ports]
    deadline = time.monotonic() + timeout_s
    for node_cfg, pid in pids:
        if pid is not None:
            _wait_gone(node_cfg, pid, deadline)
    return any(pid is not None for _, pid in pids)
