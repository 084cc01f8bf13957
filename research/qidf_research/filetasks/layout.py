"""Where a task's files live under the research cache (``QIDF_RESEARCH_CACHE/filetasks``),
one folder per repository; the layout the loader reads (documented in that folder's
README.md, written by ``export``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qidf_research.filetasks.sources import WORK

TASKS = WORK / "tasks"


@dataclass(frozen=True)
class TaskFolder:
    root: Path

    @property
    def corpus(self) -> Path:  # corpus.jsonl, corpus-manifest.json
        return self.root

    @property
    def judgments(self) -> Path:  # what the judgments command wrote
        return self.root / "judgments"

    @property
    def sample(self) -> Path:  # the label-free decision's query sample (older half)
        return self.root / "older-sample.jsonl"

    @property
    def split(self) -> Path:
        return self.root / "split.json"

    @property
    def terms(self) -> Path:
        return self.root / "terms.json"

    @property
    def curves(self) -> Path:
        return self.root / "curves.json"

    @property
    def deep(self) -> Path:
        return self.root / "deep.json"

    @property
    def result(self) -> Path:
        return self.root / "result.json"

    @property
    def task(self) -> Path:
        return self.root / "task.json"


def task(key: str, root: Path = TASKS) -> TaskFolder:
    folder = TaskFolder(root / key)
    folder.root.mkdir(parents=True, exist_ok=True)
    return folder
