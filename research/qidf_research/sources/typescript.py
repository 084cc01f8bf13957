"""The TypeScript corpus: npm packages that publish their ``.ts`` sources, built once.

Most npm packages ship only compiled ``.js`` and ``.d.ts``; the pinned ones (key
``typescript`` of benchmarks/retrieval/sources.json) were chosen because their tarball
carries the TypeScript source itself (usually ``src/``), with bodies and JSDoc. Each is
fetched with ``npm pack NAME@VERSION`` (corpus_sources.fetch_npm, cached under .qidf/).
Called by corpus_sources.corpus_path("typescript", log).
"""

from __future__ import annotations

import json

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.typescript import build_typescript
from qidf_research.sources.pinned import PINS, Log, fetch_npm


def pins() -> list[tuple[str, str]]:
    """(npm name, exact version) of every pinned package."""
    return [(n, v) for n, v in json.loads(PINS.read_text())["typescript"]["packages"]]


def pairs(log: Log, stats: BuildStats) -> list[Pair]:
    """Fetch every pinned package and build their pairs together (one dedup over all)."""
    packages = [fetch_npm(name, version, log) for name, version in pins()]
    return build_typescript(packages, stats)
