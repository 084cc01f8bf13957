"""Where the research reads and writes: the repository's benchmark folders and the
git-ignored cache of fetched sources and built corpora (``.qidf/`` at the repository root,
or ``QIDF_RESEARCH_CACHE``)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
CACHE = Path(os.environ.get("QIDF_RESEARCH_CACHE") or REPO / ".qidf")
