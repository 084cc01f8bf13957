"""Finding a JDK that can run the engine version asked for."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from qidf_ctl.engine.config import FLAVORS
from qidf_ctl.errors import EngineError


def _java_major(java: Path) -> int | None:
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java(version: str, explicit: str | None = None, distribution: str = "opensearch"
              ) -> Path:
    """A JAVA_HOME that can run this engine version (OpenSearch 2.x and Elasticsearch 8.x:
    17-23, as they still use the security manager; OpenSearch 3.x, Elasticsearch 9.x: 21+)."""
    major_version = int(version.split(".")[0])
    needed = 21 if major_version >= (3 if distribution == "opensearch" else 9) else 17
    candidates = [explicit, os.environ.get("JAVA_HOME")]
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        candidates += [str(p) for p in sorted(jvm.iterdir()) if (p / "bin" / "java").exists()]
    on_path = shutil.which("java")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent.parent))
    for cand in candidates:
        if not cand:
            continue
        java = Path(cand) / "bin" / "java"
        major = _java_major(java) if java.exists() else None
        if major is not None and major >= needed and (needed >= 21 or major <= 23):
            return Path(cand)
    raise EngineError(
        f"no Java {needed}+ found for {FLAVORS[distribution].title} {version}: install a JDK "
        f"(e.g. apt-get install openjdk-{needed}-jdk-headless) or set QIDF_JAVA_HOME"
    )
