"""The README of the exported tasks (``QIDF_RESEARCH_CACHE/filetasks/README.md``): the
layout ``loader`` reads, for whoever fits a rule on these tasks without the engine.

    python -m qidf_research.filetasks.export
"""

from __future__ import annotations

from pathlib import Path

from qidf_research.filetasks.sources import WORK

README = Path(__file__).with_name("cache_readme.md")


def write(root: Path = WORK) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "README.md"
    path.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write())
