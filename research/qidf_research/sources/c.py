"""C corpus: kernel-doc'd functions of the Linux kernel, from Debian's linux-source package.

The pin (``c`` in benchmarks/retrieval/sources.json) is a Debian bookworm package that
ships a source tarball (``linux-source-6.1``: /usr/src/linux-source-6.1.tar.xz). It is
fetched once with ``apt-get download`` (corpus_sources.fetch_debian); then only the pinned
directories' ``.c`` files are unpacked, once, under .qidf/sources/debian/<pkg>/c/ (the
whole tarball is ~1.4 GB unpacked; headers are not read, so ``static inline`` helpers in
.h files are left out). ``dirs`` in the pin lists the top-level directories read, so the
build is reproducible; an empty list means the whole tree.

Called by corpus_sources.corpus_path("c", log) through its EXTRA_LANGUAGES dispatch.
"""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.c import EXTENSIONS, build_c
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir
from qidf_research.sources.pinned import PINS, Log, fetch_debian

PIN_KEY = "c"


def pins() -> tuple[list[tuple[str, str]], list[str]]:
    """(package, version) pairs and the top-level directories read ([] = all)."""
    entry = json.loads(PINS.read_text())[PIN_KEY]
    return [(n, v) for n, v in entry["packages"]], list(entry.get("dirs", []))


def wanted(member: str, dirs: list[str]) -> str | None:
    """Path inside the tree of a tarball member to unpack (``linux-source-6.1/mm/slab.c``
    -> ``mm/slab.c``), or None: only ``.c`` files, only under ``dirs`` when given, never
    outside the tree."""
    _, _, rel = member.partition("/")
    if not rel or not rel.endswith(EXTENSIONS) or rel.startswith("/") or ".." in rel.split("/"):
        return None
    if dirs and not any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in dirs):
        return None
    return rel


def unpack_sources(pkg: PackageDir, dirs: list[str], log: Log) -> Path:
    """Unpack the wanted ``.c`` files of every /usr/src/*.tar.* in the package, once.

    The cache is keyed by the directory list, so a changed pin unpacks again.
    """
    dest = pkg.root.parent / "c"
    stamp = dest / ".done"
    key = json.dumps(dirs) + "\n"
    if stamp.is_file() and stamp.read_text() == key:
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    tarballs = sorted((pkg.root / "usr" / "src").glob("*.tar.*"))
    if not tarballs:
        raise FileNotFoundError(f"{pkg.name}: no source tarball under /usr/src")
    n = 0
    for tb in tarballs:
        log(f"unpacking .c files of {tb.name}")
        with tarfile.open(tb) as tf:
            for member in tf:
                rel = wanted(member.name, dirs) if member.isfile() else None
                if rel is None:
                    continue
                fh = tf.extractfile(member)
                if fh is None:
                    continue
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(fh.read())
                n += 1
    log(f"{n} .c files unpacked to {dest}")
    stamp.write_text(key)
    return dest


def packages(log: Log) -> list[PackageDir]:
    """Every pinned package, fetched and unpacked, rooted at its unpacked ``.c`` tree."""
    pkg_pins, dirs = pins()
    out = []
    for name, version in pkg_pins:
        pkg = fetch_debian(name, version, log)
        out.append(PackageDir(name, version, pkg.license, unpack_sources(pkg, dirs, log)))
    return out


def pairs(log: Log, stats: BuildStats) -> list[Pair]:
    """The c corpus: every pinned tree's documented functions, deduplicated together."""
    return build_c(packages(log), stats)


if __name__ == "__main__":
    from qidf_research.sources.pinned import corpus_path

    print(corpus_path("c", print))
