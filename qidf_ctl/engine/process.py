"""Starting, stopping and inspecting the local node: a plain Java process on 127.0.0.1.

OpenSearch refuses to run as root; when qidf runs as root the node runs as the unprivileged
user ``nobody``. ``stop`` ends only the node it started (its recorded pid, checked against the
process's command line).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from qidf_ctl.engine.assemble import assemble, make_readable
from qidf_ctl.engine.config import (
    ENV_JAVA_OPTS,
    FLAVORS,
    RUN_AS_WHEN_ROOT,
    EngineConfig,
    NodeRecord,
)
from qidf_ctl.engine.java import find_java
from qidf_ctl.errors import EngineError
from qidf_ctl.progress import Progress, quiet


def _record_path(cfg: EngineConfig) -> Path:
    return cfg.node_dir / "node.json"


def read_record(cfg: EngineConfig) -> NodeRecord | None:
    try:
        return NodeRecord(**json.loads(_record_path(cfg).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _is_our_node(pid: int, node_dir: Path) -> bool:
    """True only for a live engine process started with this node's folder."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    engine = any(f.main_class in cmdline for f in FLAVORS.values())
    return engine and str(node_dir) in cmdline


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _health(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"{url}/_cluster/health", timeout=2) as resp:
            return json.loads(resp.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None


def status(cfg: EngineConfig) -> dict:
    """What runs where: for ``qidf engine status`` and for scripts."""
    rec = read_record(cfg)
    running = bool(rec and _is_our_node(rec.pid, cfg.node_dir))
    health = _health(cfg.url) if running else None
    return {
        "running": running,
        "url": cfg.url,
        "pid": rec.pid if running and rec else None,
        "version": rec.version if rec else cfg.version,
        "health": health.get("status") if health else None,
        "node_dir": str(cfg.node_dir),
        "logs": str(cfg.node_dir / "logs"),
        "installed": (cfg.dist / ".qidf-assembled").exists(),
    }


def _chown_tree(path: Path, user: str) -> None:
    import pwd

    entry = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        os.chown(root, entry.pw_uid, entry.pw_gid)
        for name in dirs + files:
            os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid, follow_symlinks=False)


# Hook run before the JVM starts, after the node's config/ exists: may add files and settings
# to it and returns the distribution to launch (e.g. a copy with the security plugin).
NodePrep = Callable[[Path, Path, Progress], Path]


def start(cfg: EngineConfig, progress: Progress = quiet, timeout_s: float = 180, *,
          prepare: NodePrep | None = None,
          probe: Callable[[], dict | None] | None = None) -> dict:
    """Start the node (assembling it first if needed) and wait until it is at least yellow.

    ``prepare`` (node folder, distribution, progress) -> distribution to launch; ``probe``
    replaces the plain-HTTP health check (a node with TLS and authentication).
    """
    current = status(cfg)
    if current["running"]:
        return {**current, "already_running": True}
    if _port_in_use(cfg.port):
        raise EngineError(
            f"port {cfg.port} on 127.0.0.1 is already in use by another process: "
            "stop it, or pick another port with --port / QIDF_ENGINE_PORT"
        )
    java_home = find_java(cfg.version, cfg.java_home, cfg.distribution)
    dist = assemble(cfg, progress)
    node = cfg.node_dir
    for sub in ("data", "logs"):
        (node / sub).mkdir(parents=True, exist_ok=True)
    config = node / "config"
    if not config.exists():
        shutil.copytree(dist / "config", config)
        _point_jvm_files_at(config / "jvm.options", node)
    if prepare is not None:
        dist = prepare(node, dist, progress)
    jvm_heap = config / "jvm.options.d" / "qidf-heap.options"
    jvm_heap.parent.mkdir(exist_ok=True)
    jvm_heap.write_text(f"-Xms{cfg.heap}\n-Xmx{cfg.heap}\n")
    run_as = RUN_AS_WHEN_ROOT if os.geteuid() == 0 else None
    if run_as:
        make_readable(cfg.root)
        _chown_tree(node, run_as)
    flavor = cfg.flavor
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(node),
        "JAVA_HOME": str(java_home),
        flavor.env_java: str(java_home),
        flavor.env_conf: str(config),
        # The node folder on the JVM's command line lets `stop` recognise this node.
        flavor.env_opts: f"-Dqidf.node.dir={node} "
        + os.environ.get(ENV_JAVA_OPTS, ""),
    }
    pid_file = node / "engine.pid"
    pid_file.unlink(missing_ok=True)
    args = [
        str(dist / "bin" / flavor.launcher), *flavor.extra_settings,
        "-Ediscovery.type=single-node", "-Enetwork.host=127.0.0.1",
        f"-Ehttp.port={cfg.port}", "-Etransport.port=" + str(cfg.port + 100),
        f"-Epath.data={node / 'data'}", f"-Epath.logs={node / 'logs'}",
        f"-Enode.name=qidf-{cfg.port}", "-Ecluster.name=qidf-local",
        "-Eaction.auto_create_index=true",
        "-p", str(pid_file),
    ]
    progress(f"starting {flavor.title} {cfg.version} on {cfg.url}")
    console = open(node / "logs" / "console.log", "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(
        args, env=env, cwd=str(node), stdout=console, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True, user=run_as,
    )
    console.close()
    record = NodeRecord(proc.pid, cfg.port, cfg.version, cfg.url, str(node), time.time())
    _record_path(cfg).write_text(json.dumps(asdict(record)))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise EngineError(
                f"{flavor.title} exited during start (code {proc.returncode}): "
                f"{_last_error(node)}; full log in {node / 'logs'}"
            )
        health = probe() if probe is not None else _health(cfg.url)
        if health and health.get("status") in ("green", "yellow"):
            _adopt_java_pid(cfg, record, pid_file)
            return {**status(cfg), "already_running": False}
        time.sleep(0.5)
    stop(cfg)
    raise EngineError(
        f"{flavor.title} did not become ready within {timeout_s:.0f}s; log in {node / 'logs'}"
    )


def _point_jvm_files_at(jvm_options: Path, node: Path) -> None:
    """The stock jvm.options writes GC logs, heap dumps and crash files relative to the
    distribution; send them to this node's folder, which the node user can write."""
    text = jvm_options.read_text()
    text = text.replace("file=logs/", f"file={node}/logs/")
    text = text.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={node}/logs/")
    text = text.replace("-XX:HeapDumpPath=data", f"-XX:HeapDumpPath={node}/data")
    jvm_options.write_text(text)


def _adopt_java_pid(cfg: EngineConfig, record: NodeRecord, pid_file: Path) -> None:
    """Record the JVM's own pid (the launcher script may not exec into it)."""
    try:
        record.pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
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


def stop(cfg: EngineConfig, timeout_s: float = 60) -> bool:
    """Stop this node (by its recorded pid) and nothing else; False when it was not running."""
    rec = read_record(cfg)
    if rec is None or not _is_our_node(rec.pid, cfg.node_dir):
        return False
    os.kill(rec.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _is_our_node(rec.pid, cfg.node_dir):
            break
        time.sleep(0.3)
    else:
        os.kill(rec.pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(rec.pid, os.WNOHANG)
    return True
