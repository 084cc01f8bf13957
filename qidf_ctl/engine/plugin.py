"""Building the native plugin with Maven and installing it into the local engine.

A plugin loads only into the exact engine version it was built for, so it is built per
version from the source tree (``plugin-java/``, ``scripts/build_plugin.sh``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from qidf_ctl.engine import process
from qidf_ctl.engine.assemble import assemble
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.engine.java import find_java
from qidf_ctl.errors import EngineError, UsageError
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
    proc = subprocess.run(args, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].endswith(".zip"):
        tail = [ln for ln in proc.stderr.splitlines() if "ERROR" in ln or "error" in ln]
        raise EngineError(f"plugin build failed: {(tail or ['see scripts/build_plugin.sh'])[0]}")
    return Path(lines[-1])


def install_local(cfg: EngineConfig, zip_path: Path,
                  progress: Progress = quiet) -> dict:
    """Install (or replace) the plugin in the local engine's distribution and restart it."""
    if not zip_path.is_file():
        raise UsageError(f"plugin zip {zip_path} not found: build it with `qidf plugin build`")
    dist = assemble(cfg, progress)
    was_running = process.status(cfg)["running"]
    if was_running:
        progress("stopping the local node to install the plugin")
        process.stop(cfg)
    java_home = str(find_java(cfg.version, cfg.java_home, cfg.distribution))
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
    return process.start(cfg, progress)
