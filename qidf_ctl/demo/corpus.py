"""The corpus shipped with qidf: real Go standard-library (function, docstring) pairs, as
package data, so that ``pip install qidf && qidf demo`` needs nothing else."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SHIPPED = {"go": "go-stdlib.jsonl.gz"}


def shipped_corpus(language: str = "go") -> Path:
    """Path of the shipped pairs file for ``language`` (only Go, BSD-licensed, is shipped)."""
    try:
        name = SHIPPED[language]
    except KeyError:
        raise FileNotFoundError(
            f"no shipped corpus for {language!r} (shipped: {sorted(SHIPPED)})") from None
    path = Path(str(resources.files("qidf_ctl.demo") / "data" / name))
    if not path.is_file():
        raise FileNotFoundError(f"shipped corpus missing from the installed package: {path}")
    return path
