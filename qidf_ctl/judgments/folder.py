"""The judgments folder: what ``qidf judgments git`` and ``qidf judgments ubi`` write and what
``sweep``, ``eval``, ``apply --judgments`` and ``predict --judgments`` read.

::

    DIR/queries.jsonl      BEIR queries: {"_id", "text", "metadata": {..., "split"}} a line
    DIR/qrels.tsv          BEIR qrels: query-id<TAB>corpus-id<TAB>score, with its header
    DIR/older.qrels.tsv    the judgments of the queries that choose q
    DIR/newer.qrels.tsv    the judgments of the queries that report
    DIR/judgments.json     the manifest: source, repository or log, range, rules, every
                           count (skips included) and the split

``qidf sweep --queries DIR/queries.jsonl --qrels DIR/older.qrels.tsv`` sweeps on the older
queries only (the queries file holds both halves; a sweep keeps the judged ones). Each file
is written under a temporary name and renamed, the manifest last: a reader never sees half
a file, and a folder with a manifest is complete.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.evaluation.files import Qrels, read_qrels, read_queries
from qidf_ctl.judgments.split import NEWER, OLDER

QUERIES = "queries.jsonl"
QRELS = "qrels.tsv"
OLDER_QRELS = "older.qrels.tsv"
NEWER_QRELS = "newer.qrels.tsv"
MANIFEST = "judgments.json"
FORMAT = 1
BEIR_HEADER = "query-id\tcorpus-id\tscore\n"


@dataclass
class Judgments:
    """Judged queries with their split, as a folder holds them."""

    queries: dict[str, str]
    qrels: Qrels
    older: list[str]
    newer: list[str]
    manifest: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # per query id
    folder: Path | None = None

    def part(self, which: str) -> tuple[dict[str, str], Qrels]:
        """The queries and judgments of the ``older`` or ``newer`` split."""
        ids = self.older if which == OLDER else self.newer
        return ({q: self.queries[q] for q in ids if q in self.qrels},
                {q: self.qrels[q] for q in ids if q in self.qrels})

    def describe(self) -> dict[str, Any]:
        """What a decision records of its judgments: the source, its size and the split."""
        return {"source": self.manifest.get("source"),
                "folder": str(self.folder) if self.folder else None,
                "origin": self.manifest.get("origin"),
                "queries": len(self.qrels),
                "judgments": sum(len(v) for v in self.qrels.values()),
                "split": {"older_queries": len([q for q in self.older if q in self.qrels]),
                          "newer_queries": len([q for q in self.newer if q in self.qrels]),
                          **{k: v for k, v in (self.manifest.get("split") or {}).items()
                             if k in ("by", "older_share", "newer_from")}}}


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _qrels_text(qrels: Mapping[str, Mapping[str, int]], ids: list[str] | None = None) -> str:
    rows = [BEIR_HEADER]
    for qid in (ids if ids is not None else list(qrels)):
        for doc, rel in (qrels.get(qid) or {}).items():
            rows.append(f"{qid}\t{doc}\t{rel}\n")
    return "".join(rows)


def check_folder(out: str | Path) -> Path:
    """``out`` as a folder qidf may write judgments into (created if missing), checked before
    any work: not a file, writable."""
    folder = Path(out).expanduser()
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out {out} is a file: give a folder for the judgments")
    base = folder
    while not base.exists():
        base = base.parent
    if not os.access(base, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: {base} is not a writable folder")
    return folder


def write_folder(out: str | Path, judgments: Judgments) -> dict[str, str]:
    """Write ``judgments`` into ``out`` (see the module docstring); returns the files."""
    folder = check_folder(out)
    folder.mkdir(parents=True, exist_ok=True)
    split_of = {q: OLDER for q in judgments.older} | {q: NEWER for q in judgments.newer}
    lines = []
    for qid, text in judgments.queries.items():
        meta = {**judgments.metadata.get(qid, {}), "split": split_of.get(qid, OLDER)}
        lines.append(json.dumps({"_id": qid, "text": text, "metadata": meta},
                                ensure_ascii=False) + "\n")
    written = {"queries": QUERIES, "qrels": QRELS, "older_qrels": OLDER_QRELS,
               "newer_qrels": NEWER_QRELS}
    _write_atomic(folder / QUERIES, "".join(lines))
    _write_atomic(folder / QRELS, _qrels_text(judgments.qrels))
    _write_atomic(folder / OLDER_QRELS, _qrels_text(judgments.qrels, judgments.older))
    _write_atomic(folder / NEWER_QRELS, _qrels_text(judgments.qrels, judgments.newer))
    manifest = {"format": FORMAT, **judgments.manifest, "files": written}
    _write_atomic(folder / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True,
                                                ensure_ascii=False) + "\n")
    judgments.manifest = manifest
    judgments.folder = folder.resolve()
    return written


def read_folder(path: str | Path, option: str = "--judgments") -> Judgments:
    """A judgments folder as written above; one usage error naming what is missing or
    wrong (a folder without a manifest is not one qidf wrote, or its writing was cut)."""
    folder = Path(path).expanduser()
    if not folder.exists():
        raise NotFoundError(f"{option} {path}: no such folder (write one with `qidf "
                            "judgments git` or `qidf judgments ubi`)")
    if not folder.is_dir():
        raise UsageError(f"{option} {path} is a file: give the folder `qidf judgments` "
                         "wrote (it holds judgments.json)")
    manifest_file = folder / MANIFEST
    if not manifest_file.is_file():
        raise UsageError(f"{option} {path} holds no {MANIFEST}: give the folder `qidf "
                         "judgments git` or `qidf judgments ubi` wrote")
    text = textfile.read(manifest_file, "judgments manifest", option)
    try:
        manifest = textfile.loads_json(text.text)
    except ValueError as exc:
        raise text.error(f"not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise text.error(f"not a judgments manifest of format {FORMAT} (written by another "
                         "qidf version?): write the folder again")
    queries = read_queries(folder / QUERIES, option)
    qrels = read_qrels(folder / QRELS, option)
    metadata = _metadata(folder / QUERIES)
    older = [q for q in queries if metadata.get(q, {}).get("split", OLDER) == OLDER]
    newer = [q for q in queries if metadata.get(q, {}).get("split") == NEWER]
    return Judgments(queries, qrels, older, newer, manifest, metadata, folder.resolve())


def _metadata(path: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            meta = row.get("metadata")
            if isinstance(meta, dict):
                out[str(row.get("_id"))] = meta
    return out
