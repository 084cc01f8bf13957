"""Building the native plugin with Maven and installing it on the local engine's nodes.

A plugin loads only into the exact engine version it was built for, so it is built per
version from the source tree (``plugin-java/``, ``scripts/build_plugin.sh``). Each node has
its own distribution copy, so the plugin is installed node by node: on a running cluster,
one node at a time (``rolling``), which keeps the cluster serving searches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.engine import process
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.engine.java import find_java
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.engine.rolling import NodeChange, restart_each
from qidf_ctl.errors import EngineError, NotFoundError
from qidf_ctl.install.mode import PLUGIN_NAME
from qidf_ctl.progress import Progress, quiet

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "scripts" / "build_plugin.sh"


def build_argument(cfg: EngineConfig) -> str:
    """How scripts/build_plugin.sh names an engine version: 2.19.6, or es-8.19.21."""
    return ("es-" if cfg.distribution == "elasticsearch" else "") + cfg.version


def build(cfg: EngineConfig, *, skip_tests: bool = False) -> Path:
    """Build the plugin zip for ``cfg``'s engine version with scripts/build_plugin.sh."""
    if not BUILD_SCRIPT.exists():
        raise EngineError(
            "building the plugin needs the qidf source tree (scripts/build_plugin.sh, "
            "plugin-java/): clone the repository and run this from it"
        )
    args = ["bash", str(BUILD_SCRIPT), build_argument(cfg)] + (
        ["--skip-tests"] if skip_tests else [])
    proc = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].endswith(".zip"):
        tail = [ln for ln in proc.stderr.splitlines() if "ERROR" in ln or "error" in ln]
        raise EngineError(f"plugin build failed: {(tail or ['see scripts/build_plugin.sh'])[0]}")
    return Path(lines[-1])


def _tool(spec: NodeSpec, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the engine's plugin tool on one node's own distribution and configuration."""
    cfg = spec.cfg
    java_home = str(find_java(cfg.version, cfg.java_home, cfg.distribution))
    env = {**os.environ, "JAVA_HOME": java_home, cfg.flavor.env_java: java_home,
           cfg.flavor.env_conf: str(spec.config)}
    return subprocess.run([str(spec.dist / "bin" / cfg.flavor.plugin_tool), *args], env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


def _remove(spec: NodeSpec) -> None:
    if (spec.dist / "plugins" / PLUGIN_NAME).exists():
        _tool(spec, "remove", PLUGIN_NAME)
        shutil.rmtree(spec.dist / "plugins" / PLUGIN_NAME, ignore_errors=True)


def _installer(zip_path: Path) -> NodeChange:
    def install(spec: NodeSpec, progress: Progress) -> None:
        _remove(spec)
        progress(f"installing {zip_path.name} on node {spec.name}")
        proc = _tool(spec, "install", "--batch", zip_path.resolve().as_uri())
        if proc.returncode != 0:
            detail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines()
                      or ["no output"])[-1]
            raise EngineError(f"{spec.cfg.flavor.plugin_tool} install on node {spec.name} "
                              f"failed: {detail}")
    return install


def install_local(cfg: EngineConfig, zip_path: Path, progress: Progress = quiet,
                  ports: Sequence[int] | None = None) -> dict[str, Any]:
    """Install (or replace) the plugin on every node of the local engine (or on ``ports``
    only) and restart them: one node at a time when a cluster runs, so it stays available.
    A local engine that is not running is started."""
    if not zip_path.exists():
        raise NotFoundError(f"plugin zip {zip_path} not found: build it with `qidf plugin "
                            "build`")
    textfile.check_file(str(zip_path), "plugin zip")  # a folder is a usage error
    steps = restart_each(cfg, _installer(zip_path), ports, progress, probe=_probe(cfg))
    return {**process.status(cfg), "restarts": steps}


def _probe(cfg: EngineConfig) -> process.HealthProbe | None:
    """The health check a restart of these nodes needs: over TLS as the admin for a node
    that ``--security`` set up (its plugin and config persist; plain HTTP never answers)."""
    from qidf_ctl.engine import security

    secured = (process.recorded(cfg).node_dir / security.ACCESS_DIR / "access.json").exists()
    return security.node_probe if secured else None


def remove_local(cfg: EngineConfig, ports: Sequence[int] | None = None,
                 progress: Progress = quiet) -> dict[str, Any]:
    """Remove the plugin from the nodes on ``ports`` (default: all), restarting each."""
    def remove(spec: NodeSpec, progress: Progress) -> None:
        progress(f"removing {PLUGIN_NAME} from node {spec.name}")
        _remove(spec)

    steps = restart_each(cfg, remove, ports, progress, probe=_probe(cfg))
    return {**process.status(cfg), "restarts": steps}
