"""Read the exported file-localization tasks (the layout in
``QIDF_RESEARCH_CACHE/filetasks/README.md``): corpus, judged commits, the time split, the
per-query sweep curves and each file's token count, for studies that fit a rule on them
(issue 36's label-free q) without rerunning the engine.

    from qidf_research.filetasks import loader
    for task in loader.load_all():
        task.curves.at(0.6)["<commit>"]    # NDCG@10 of that commit's message at q 0.6
        task.curves.mean("baseline", task.newer)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.evaluation.files import Qrels, read_qrels, read_queries
from qidf_research.filetasks import corpus as corpus_lib
from qidf_research.filetasks.curves import Curves
from qidf_research.filetasks.layout import TASKS, TaskFolder


@dataclass
class FileTask:
    key: str
    meta: dict[str, Any]  # task.json: repository, commit, language, family, index, fields
    queries: dict[str, str]  # commit -> cleaned message (every judged commit)
    qrels: Qrels  # commit -> {path: 1}
    older: tuple[str, ...]  # q is chosen here
    newer: tuple[str, ...]  # and reported here
    curves: Curves  # per-query NDCG@10 at every q of the grid, and "baseline" (BM25)
    doc_tokens: dict[str, int]  # path -> cl100k tokens
    folder: TaskFolder
    result: dict[str, Any] | None = None  # measure's result.json, when measured

    @property
    def language(self) -> str:
        return str(self.meta["language"])

    @property
    def family(self) -> str:
        return str(self.meta["family"])

    def corpus(self) -> dict[str, str]:
        """path -> file text (read on demand: the largest corpus is tens of MB)."""
        return corpus_lib.read(self.folder.corpus)

    def sample(self) -> dict[str, str]:
        """The 1,000 older-half messages given to the label-free decision as --queries."""
        return read_queries(self.folder.sample)


def keys(root: Path = TASKS) -> list[str]:
    """Tasks whose curves exist, in name order."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "curves.json").exists()
                  and (p / "task.json").exists())


def load(key: str, root: Path = TASKS) -> FileTask:
    folder = TaskFolder(root / key)
    meta = json.loads(folder.task.read_text(encoding="utf-8"))
    split = json.loads(folder.split.read_text(encoding="utf-8"))
    tokens = json.loads((folder.root / "tokens.json").read_text(encoding="utf-8"))["tokens"]
    result = (json.loads(folder.result.read_text(encoding="utf-8"))
              if folder.result.exists() else None)
    queries = read_queries(folder.judgments / "queries.jsonl")
    qrels = read_qrels(folder.judgments / "qrels.tsv")
    judged = {q: t for q, t in queries.items() if q in qrels}
    return FileTask(key, meta, judged, {q: qrels[q] for q in judged}, tuple(split["older"]),
                    tuple(split["newer"]), Curves.load(folder.curves),
                    {k: int(v) for k, v in tokens.items()}, folder, result)


def load_all(root: Path = TASKS) -> list[FileTask]:
    return [load(k, root) for k in keys(root)]
