"""The native plugin from the control plane: is it on the cluster, build it, install it locally.

An index whose similarity type is missing on a node fails there ("Unknown Similarity type"),
so ``--mode auto`` picks the plugin only when every data node has it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import local_engine
from .cluster import Cluster
from .errors import EngineError, QidfError, UsageError
from .progress import Progress, quiet
from .similarity import Mode

PLUGIN_NAME = "qidf-qlog-similarity"
REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = REPO_ROOT / "scripts" / "build_plugin.sh"


@dataclass(frozen=True)
class PluginPresence:
    data_nodes: list[str]
    missing_on: list[str]

    @property
    def everywhere(self) -> bool:
        return bool(self.data_nodes) and not self.missing_on


def presence(cluster: Cluster) -> PluginPresence:
    """Which data nodes lack the plugin (GET _nodes/plugins)."""
    nodes = cluster.request("GET", "/_nodes/plugins")["nodes"]
    data, missing = [], []
    for node_id, node in sorted(nodes.items()):
        roles = node.get("roles", [])
        if not any(r == "data" or r.startswith("data_") for r in roles):
            continue
        name = node.get("name", node_id)
        data.append(name)
        if PLUGIN_NAME not in {p.get("name") for p in node.get("plugins", [])}:
            missing.append(name)
    return PluginPresence(data, missing)


def choose_mode(cluster: Cluster, requested: str) -> tuple[Mode, str]:
    """Resolve ``auto``/``script``/``plugin`` to a mode and a one-line reason."""
    if requested not in ("auto", "script", "plugin"):
        raise UsageError(f"--mode must be auto, script or plugin, got {requested!r}")
    if requested == "script":
        return Mode.SCRIPT, "Painless scripted similarity (asked for)"
    found = presence(cluster)
    if found.everywhere:
        return Mode.PLUGIN, f"native plugin ({PLUGIN_NAME} is on all {len(found.data_nodes)} " \
            "data nodes)"
    if requested == "plugin":
        where = ", ".join(found.missing_on) or "the cluster (no data nodes)"
        raise QidfError(
            f"plugin {PLUGIN_NAME} is missing on {where}: install it on every data node "
            "(locally: qidf plugin install) or use --mode script"
        )
    return Mode.SCRIPT, f"Painless scripted similarity ({PLUGIN_NAME} is not on every data node)"


def build(engine_version: str, *, skip_tests: bool = False) -> Path:
    """Build the plugin zip for one engine version with scripts/build_plugin.sh."""
    if not BUILD_SCRIPT.exists():
        raise EngineError(
            "building the plugin needs the qidf source tree (scripts/build_plugin.sh, "
            "plugin-java/): clone the repository and run this from it"
        )
    args = ["bash", str(BUILD_SCRIPT), engine_version] + (["--skip-tests"] if skip_tests else [])
    proc = subprocess.run(args, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].endswith(".zip"):
        tail = [ln for ln in proc.stderr.splitlines() if "ERROR" in ln or "error" in ln]
        raise EngineError(f"plugin build failed: {(tail or ['see scripts/build_plugin.sh'])[0]}")
    return Path(lines[-1])


def install_local(cfg: local_engine.EngineConfig, zip_path: Path,
                  progress: Progress = quiet) -> dict:
    """Install (or replace) the plugin in the local engine's distribution and restart it."""
    if not zip_path.is_file():
        raise UsageError(f"plugin zip {zip_path} not found: build it with `qidf plugin build`")
    dist = local_engine.assemble(cfg, progress)
    was_running = local_engine.status(cfg)["running"]
    if was_running:
        progress("stopping the local node to install the plugin")
        local_engine.stop(cfg)
    java_home = str(local_engine.find_java(cfg.version, cfg.java_home, cfg.distribution))
    env = {**os.environ, "JAVA_HOME": java_home, cfg.flavor.env_java: java_home,
           cfg.flavor.env_conf: str(dist / "config")}
    tool = str(dist / "bin" / cfg.flavor.plugin_tool)
    if (dist / "plugins" / PLUGIN_NAME).exists():
        subprocess.run([tool, "remove", PLUGIN_NAME], env=env, capture_output=True, text=True)
        shutil.rmtree(dist / "plugins" / PLUGIN_NAME, ignore_errors=True)
    progress(f"installing {zip_path.name}")
    proc = subprocess.run([tool, "install", "--batch", zip_path.resolve().as_uri()], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines()
                  or ["no output"])[-1]
        raise EngineError(f"{cfg.flavor.plugin_tool} install failed: {detail}")
    progress("starting the local node")
    return local_engine.start(cfg, progress)
