"""The (function, docstring) pair record and its jsonl(.gz) storage.

One flat record per pair, with its provenance, so that a benchmark result can always be
traced back to the exact source file, version and license it came from.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO


@dataclass(frozen=True)
class Pair:
    """A function's code and the first paragraph of its doc comment, with provenance.

    ``id`` is stable across rebuilds of the same source version (language, path, qualified
    name), so qrels and cached results stay valid. ``path`` is relative to the source
    repository's root (e.g. ``src/bytes/buffer.go`` in the Go repository).
    """

    id: str
    language: str
    name: str
    code: str
    doc: str
    path: str
    package: str
    version: str
    license: str


_FIELDS = tuple(f.name for f in fields(Pair))


def _open_text(path: Path, mode: str) -> IO[str]:
    """Open plain or gzip text; gzip is written with mtime 0 so rebuilds are byte-identical."""
    if path.suffix == ".gz":
        if "w" in mode:
            raw = open(path, "wb")  # noqa: SIM115 - closed through the wrapper
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9)
            return _ClosingWrapper(gz, raw)
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, mode, encoding="utf-8")


class _ClosingWrapper(io.TextIOWrapper):
    """Text wrapper over a GzipFile that also closes the underlying raw file."""

    def __init__(self, gz: gzip.GzipFile, raw: io.BufferedWriter) -> None:
        super().__init__(gz, encoding="utf-8", newline="\n")
        self._raw = raw

    def close(self) -> None:
        """Flush the gzip trailer first, then close the file it was written to."""
        try:
            super().close()
        finally:
            self._raw.close()


def load_pairs(path: str | Path) -> list[Pair]:
    """Read pairs from a ``.jsonl`` or ``.jsonl.gz`` file, in file order."""
    path = Path(path)
    out: list[Pair] = []
    with _open_text(path, "r") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            missing = [k for k in _FIELDS if k not in row]
            if missing:
                raise ValueError(f"{path}:{lineno}: missing fields {missing}")
            out.append(Pair(**{k: row[k] for k in _FIELDS}))
    return out


def write_pairs(pairs: Iterable[Pair], path: str | Path) -> int:
    """Write pairs sorted by id (deterministic bytes for the same input); return the count.

    Ids must be unique: a duplicate id would make qrels ambiguous, so it is an error.
    """
    path = Path(path)
    ordered = sorted(pairs, key=lambda p: p.id)
    for a, b in itertools.pairwise(ordered):
        if a.id == b.id:
            raise ValueError(f"duplicate pair id {a.id!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open_text(path, "w") as fh:
        for p in ordered:
            fh.write(json.dumps(asdict(p), ensure_ascii=False, sort_keys=False) + "\n")
    return len(ordered)
