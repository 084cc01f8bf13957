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


def checkout(repo: str, commit: str, log: Log, extensions: tuple[str, ...] = ()) -> Path:
    """The files of ``repo`` at ``commit`` (those ending in ``extensions``; all when empty),
    exported once from its mirror. Read blob by blob (``git cat-file --batch``): a mirror may
    lack its largest blobs (data files), which no extractor reads."""
    dest = SOURCES / "git" / f"{repo.replace('/', '+')}@{commit[:12]}"
    if (dest / ".done").is_file():
        return dest / "tree"
    mirror = MIRRORS / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise FileNotFoundError(f"no mirror of {repo} at {mirror}: bring it first "
                                f"(the research tools' fetch github:{repo})")
    shutil.rmtree(dest, ignore_errors=True)
    (dest / "tree").mkdir(parents=True)
    log(f"exporting {repo}@{commit[:12]}")
    listing = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    wanted: list[tuple[str, str]] = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000" and (not extensions or path.endswith(extensions)):
            wanted.append((sha, path))
    batch = subprocess.run(["git", "-C", str(mirror), "cat-file", "--batch"],
                           input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
                           capture_output=True, check=True).stdout
    pos = 0
    for _sha, path in wanted:
        end = batch.index(b"\n", pos)
        header = batch[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        out = dest / "tree" / path
        if ".." not in Path(path).parts:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(batch[pos:pos + size])
        pos += size + 1
    (dest / ".done").write_text("ok\n")
    return dest / "tree"


def packages(pin_key: str, log: Log, extensions: tuple[str, ...] = ()) -> list[PackageDir]:
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
        root = checkout(repo, commit, log, extensions)
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
    source = SnapshotSource(language, packages(language, log, extensions), extensions, extract,
                            keywords)
    return build_packaged(source, stats)
