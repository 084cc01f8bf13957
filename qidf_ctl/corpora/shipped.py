"""Where the corpora shipped with the repository live.

The shipped files let the demo and CI run on a machine without a Go toolchain or
Tree-sitter. ``QIDF_DATA_DIR`` points elsewhere (e.g. an installed package's data).
"""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED = {"go": "go-stdlib.jsonl.gz"}


def data_dirs() -> list[Path]:
    """Directories searched, in order: ``$QIDF_DATA_DIR/corpora`` and ``$QIDF_DATA_DIR``
    when the variable is set (so it may name either data/ or data/corpora/), else
    ``<repo root>/data/corpora``.
    """
    env = os.environ.get("QIDF_DATA_DIR")
    if env:
        return [Path(env) / "corpora", Path(env)]
    return [Path(__file__).resolve().parents[2] / "data" / "corpora"]


def shipped_corpus(language: str = "go") -> Path:
    """Path of the shipped pairs file for ``language``; FileNotFoundError when absent.

    Only BSD-licensed Go is shipped; Java (GPLv2+CPE) and Python are built locally with
    scripts/build_corpus.py and never committed.
    """
    try:
        name = SHIPPED[language]
    except KeyError:
        raise FileNotFoundError(
            f"no shipped corpus for {language!r} (shipped: {sorted(SHIPPED)}); "
            f"build one with scripts/build_corpus.py {language}"
        ) from None
    candidates = [d / name for d in data_dirs()]
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(f"shipped corpus missing: {', '.join(map(str, candidates))}")
