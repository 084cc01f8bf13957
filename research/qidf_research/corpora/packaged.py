"""Sources made of several released packages: unpacked on disk (Debian .debs, npm tarballs)
or zip archives (source jars).

Ruby, PHP and JavaScript have no single standard library as big as Go's or Java's, so their
corpora come from many packages. Each pair keeps its own package, version and license;
which packages, at which versions, is pinned in ``benchmarks/retrieval/sources.json``.
"""

from __future__ import annotations

import dataclasses
import os
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats, Candidate, build_pairs

MINIFIED_LINE = 1000  # a source line this long means a bundled or minified file


@dataclass(frozen=True)
class PackageDir:
    """One unpacked package: where its files are and what it is."""

    name: str
    version: str
    license: str
    root: Path


@dataclass
class PackagedSource:
    """Every file with one of ``extensions`` under each package's root, as ``name@version/...``."""

    language: str
    packages: list[PackageDir]
    extensions: tuple[str, ...]
    extract: Callable[[str, bytes, str], list[Candidate]]
    keywords: frozenset[str]
    version: str = "pinned"
    license: str = "per package"

    def files(self) -> Iterator[tuple[str, bytes]]:
        for pkg in sorted(self.packages, key=lambda p: p.name):
            for dirpath, dirnames, filenames in os.walk(pkg.root):
                dirnames[:] = sorted(d for d in dirnames if d != "node_modules")
                for fn in sorted(filenames):
                    if fn.endswith(self.extensions):
                        full = Path(dirpath) / fn
                        rel = full.relative_to(pkg.root).as_posix()
                        yield f"{pkg.name}@{pkg.version}/{rel}", full.read_bytes()

    def split(self, relpath: str) -> tuple[PackageDir, str]:
        """(package, path inside it) of a ``name@version/...`` path; names may hold ``/``."""
        for pkg in self.packages:
            prefix = f"{pkg.name}@{pkg.version}/"
            if relpath.startswith(prefix):
                return pkg, relpath[len(prefix):]
        raise KeyError(f"{relpath!r} belongs to no package of this source")

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Minified or bundled files (very long lines) are not source anyone wrote."""
        if ".min." in relpath or any(len(line) > MINIFIED_LINE for line in content.splitlines()):
            return "minified/bundled"
        return None

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        return self.extract(relpath, content, self.split(relpath)[0].name)


def _no_skip(relpath: str, content: bytes) -> str | None:
    return None


@dataclass
class ArchiveSource(PackagedSource):
    """Zip archives of sources (a JDK's src.zip, Maven ``-sources.jar``s), one per package
    (``PackageDir.root`` is the archive), entries named ``name@version/<entry>``.

    Only entries with one of ``extensions`` are read (source jars of Kotlin or Scala
    libraries often ship ``.java`` files too). ``skip`` sees the path inside the archive;
    there is no minified-file rule, as no source archive ships bundled code.
    """

    skip: Callable[[str, bytes], str | None] = _no_skip

    def files(self) -> Iterator[tuple[str, bytes]]:
        for pkg in sorted(self.packages, key=lambda p: p.name):
            with zipfile.ZipFile(pkg.root) as zf:
                for name in sorted(n for n in zf.namelist() if n.endswith(self.extensions)):
                    yield f"{pkg.name}@{pkg.version}/{name}", zf.read(name)

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        return self.skip(self.split(relpath)[1], content)


def build_packaged(source: PackagedSource, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs of every package, each stamped with its own version and license."""
    meta = {p.name: p for p in source.packages}
    return [dataclasses.replace(p, version=meta[p.package].version,
                                license=meta[p.package].license)
            for p in build_pairs(source, stats)]
