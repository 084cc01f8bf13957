"""The corpus of one task: every text file of the snapshot commit, one document per file.

Read from git (``ls-tree`` then one ``cat-file --batch``), never from a checkout. Left out,
each counted: symlinks and submodules (not files), files over ``MAX_BYTES`` (GitHub's code
search stops indexing at 384 KB too: such a file is past any context budget), binaries
(a NUL byte in the first 8,000 bytes: git's own test), empty files (nothing to match),
paths over ``MAX_PATH_BYTES`` (an engine document id holds 512 bytes), and vendored or
generated files (``pathrules``). Text that is not valid UTF-8 is decoded with replacement
characters, as an indexer reading bytes would.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from qidf_research.filetasks import pathrules
from qidf_research.filetasks.gitio import cat_file, git

MAX_BYTES = 384 * 1024
MAX_PATH_BYTES = 512
BINARY_PROBE = 8000


@dataclass
class Corpus:
    """path -> text, and how many files of the tree were left out and why."""

    commit: str
    docs: dict[str, str]
    tree_files: int
    skipped: Counter[str] = field(default_factory=Counter)

    def manifest(self) -> dict[str, object]:
        return {"commit": self.commit, "tree_files": self.tree_files,
                "documents": len(self.docs), "skipped": dict(sorted(self.skipped.items())),
                "max_bytes": MAX_BYTES, "rules": pathrules.source()}


def _tree(repo: Path, commit: str) -> Iterator[tuple[str, str, str, int]]:
    """Path, type, object and size of every entry of the commit's tree."""
    raw = git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    for entry in raw.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _mode, kind, obj, size = meta.split()
        yield (path.decode("utf-8", errors="replace"), kind.decode(), obj.decode(),
               int(size) if size != b"-" else -1)


def build(repo: Path, commit: str) -> Corpus:
    """Every text file of ``commit`` in ``repo`` that passes the rules above."""
    corpus = Corpus(commit, {}, 0)
    wanted: dict[str, str] = {}  # object -> path (a blob may sit at several paths)
    pending: list[tuple[str, str]] = []
    for path, kind, obj, size in _tree(repo, commit):
        corpus.tree_files += 1
        reason = _skip_by_entry(path, kind, size)
        if reason:
            corpus.skipped[reason] += 1
            continue
        pending.append((path, obj))
        wanted.setdefault(obj, path)
    blobs = {name: data for name, _, data in cat_file(repo, sorted(wanted))}
    for path, obj in pending:
        data = blobs[obj]
        if b"\0" in data[:BINARY_PROBE]:
            corpus.skipped["binary"] += 1
        elif not data.strip():
            corpus.skipped["empty"] += 1
        else:
            corpus.docs[path] = data.decode("utf-8", errors="replace")
    return corpus


def _skip_by_entry(path: str, kind: str, size: int) -> str | None:
    if kind != "blob":
        return "submodule" if kind == "commit" else kind
    if size < 0 or size > MAX_BYTES:
        return "over_size_cap"
    if len(path.encode()) > MAX_PATH_BYTES:
        return "path_too_long"
    return pathrules.excluded_from_corpus(path)


def write(corpus: Corpus, folder: Path) -> None:
    """``corpus.jsonl`` (one ``{"_id", "path", "text"}`` a line, sorted by path) and
    ``corpus-manifest.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / "corpus.jsonl.tmp"
    with tmp.open("w", encoding="utf-8") as fh:
        for path in sorted(corpus.docs):
            fh.write(json.dumps({"_id": path, "path": path, "text": corpus.docs[path]},
                                ensure_ascii=False) + "\n")
    tmp.replace(folder / "corpus.jsonl")
    (folder / "corpus-manifest.json").write_text(
        json.dumps(corpus.manifest(), indent=1) + "\n", encoding="utf-8")


def read(folder: Path) -> dict[str, str]:
    """path -> text of a written corpus."""
    docs: dict[str, str] = {}
    with (folder / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            docs[row["_id"]] = row["text"]
    return docs
