"""The pinned repositories (benchmarks/filetasks/sources.json): which repository, which
snapshot commit, its language, and where its fetched bare git directory lives."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from qidf_research.paths import BENCHMARKS, CACHE

SOURCES = BENCHMARKS / "filetasks" / "sources.json"
# Where the search tool's ``fetch`` puts a repository: MIRRORS/owner+name/repo (bare).
MIRRORS = Path(os.environ.get("QIDF_FILETASKS_MIRRORS", "/work/.mirror"))
WORK = CACHE / "filetasks"


@dataclass(frozen=True)
class Source:
    """One repository at one commit."""

    key: str
    repo: str  # owner/name on GitHub
    language: str
    family: str
    commit: str
    commit_date: str
    license: str

    @property
    def mirror(self) -> Path:
        return MIRRORS / self.repo.replace("/", "+") / "repo"


def load(path: Path = SOURCES) -> list[Source]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Source(**{k: r[k] for k in Source.__dataclass_fields__})
            for r in data["repositories"]]


def by_key(keys: list[str] | None = None, path: Path = SOURCES) -> list[Source]:
    """The sources named by ``keys`` (all when None), in the file's order."""
    sources = load(path)
    if keys is None:
        return sources
    known = {s.key: s for s in sources}
    missing = [k for k in keys if k not in known]
    if missing:
        raise SystemExit(f"unknown repository key(s) {', '.join(missing)}: "
                         f"choose from {', '.join(known)}")
    return [known[k] for k in keys]
