"""Corpora built from GitHub snapshots: a pinned repository and commit, read from the bare
mirror the research tooling brings (``/work/.mirror/<owner>+<name>/repo``, or
``$QIDF_MIRRORS``), exported once with ``git archive`` under the research cache. The code
itself is never committed; the pins are (``sources.json``).

Also the builder for languages whose packages come from Debian (Lua), so every language
added for issue 36 is built the same way: the packages' files, the language's extractor,
CodeSearchNet's rules (``corpora.extract``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats, Candidate
from qidf_research.corpora.packaged import PackageDir, PackagedSource, build_packaged
from qidf_research.sources.pinned import PINS, SOURCES, Log, _license_of, fetch_debian

MIRRORS = Path(os.environ.get("QIDF_MIRRORS", "/work/.mirror"))
# Directories of vendored, generated or example code: not the project's own functions.
SKIP_DIRS = ("third_party/", "vendor/", "deps/", "examples/", "bench/", "benchmarks/",
             "fixtures/", "priv/templates/", "installer/templates/")


def checkout(repo: str, commit: str, log: Log) -> Path:
    """The tree of ``repo`` at ``commit``, exported once from its mirror."""
    dest = SOURCES / "git" / f"{repo.replace('/', '+')}@{commit[:12]}"
    if (dest / ".done").is_file():
        return dest / "tree"
    mirror = MIRRORS / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise FileNotFoundError(f"no mirror of {repo} at {mirror}: bring it first "
                                f"(the research tools' fetch github:{repo})")
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "tree").mkdir(parents=True)
    log(f"git archive {repo}@{commit[:12]}")
    archive = dest / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(mirror), "archive", commit], stdout=out, check=True)
    with tarfile.open(archive) as tf:
        tf.extractall(dest / "tree", filter="data")
    archive.unlink()
    (dest / ".done").write_text("ok\n")
    return dest / "tree"


def packages(pin_key: str, log: Log) -> list[PackageDir]:
    """Every pinned package of ``pin_key``: GitHub snapshots or Debian packages."""
    entry = json.loads(PINS.read_text())[pin_key]
    if entry["registry"] == "debian":
        pkgs = [fetch_debian(n, v, log) for n, v in entry["packages"]]
        for p in pkgs:
            for sub in ("usr/share/doc", "usr/share/man", "usr/share/lintian"):
                shutil.rmtree(p.root / sub, ignore_errors=True)
        return pkgs
    out = []
    for repo, commit in entry["packages"]:
        root = checkout(repo, commit, log)
        out.append(PackageDir(repo, commit[:12], _license_of(root), root))
    return out


class SnapshotSource(PackagedSource):
    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        inner = self.split(relpath)[1]
        if any(inner.startswith(d) or f"/{d}" in inner for d in SKIP_DIRS):
            return "vendored/example"
        return super().skip_reason(relpath, content)


def build(language: str, extract: Callable[[str, bytes, str], list[Candidate]],
          extensions: tuple[str, ...], keywords: frozenset[str], log: Log,
          stats: BuildStats) -> list[Pair]:
    """Pairs of ``language`` from its pinned packages (``sources.json`` key = language)."""
    source = SnapshotSource(language, packages(language, log), extensions, extract, keywords)
    return build_packaged(source, stats)
