"""The per-query cache of finished measurements, one folder per corpus, so a rerun resumes.

``.qidf/peers/<corpus>/runs.jsonl`` holds one line per (setting, split): each query's
NDCG@10, or the engine's refusal of the setting. ``meta.json`` holds the fingerprint of the
corpus, queries and analyzer: when it changes, the old measurements are set aside, never
mixed with new ones. Analysed query tokens and the shipped predictor's q are kept too.
"""

from __future__ import annotations

import gzip
import json
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any


class Store:
    def __init__(self, root: Path, key: str, fingerprint: str) -> None:
        self.dir = root / key
        meta_path = self.dir / "meta.json"
        if meta_path.is_file():
            meta = json.loads(meta_path.read_text())
            if meta.get("fingerprint") != fingerprint:
                stale = self.dir.with_name(f"{key}.stale-{int(time.time())}")
                shutil.move(str(self.dir), str(stale))
        self.dir.mkdir(parents=True, exist_ok=True)
        if not meta_path.is_file():
            meta_path.write_text(json.dumps({"fingerprint": fingerprint}) + "\n")
        self.meta_path = meta_path
        self.runs_path = self.dir / "runs.jsonl"
        self.runs: dict[tuple[str, str], dict[str, Any]] = {}
        if self.runs_path.is_file():
            for line in self.runs_path.read_text().splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a killed run: measured again
                self.runs[(row["setting"], row["split"])] = row

    def get(self, setting: str, split: str) -> dict[str, Any] | None:
        return self.runs.get((setting, split))

    def put(self, row: dict[str, Any]) -> None:
        self.runs[(row["setting"], row["split"])] = row
        with self.runs_path.open("a") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")

    def meta(self) -> dict[str, Any]:
        return dict(json.loads(self.meta_path.read_text()))

    def put_meta(self, name: str, value: Any) -> None:
        meta = self.meta()
        meta[name] = value
        self.meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")

    def terms(self) -> dict[str, Counter[str]] | None:
        path = self.dir / "terms.json.gz"
        if not path.is_file():
            return None
        data = json.loads(gzip.decompress(path.read_bytes()))
        return {qid: Counter(dict(pairs)) for qid, pairs in data.items()}

    def put_terms(self, terms: dict[str, Counter[str]]) -> None:
        # Keep each query's first-seen token order: term_query keeps the most repeated
        # tokens first-seen when a query has more than the clause limit.
        data = {qid: list(c.items()) for qid, c in terms.items()}
        (self.dir / "terms.json.gz").write_bytes(gzip.compress(json.dumps(data).encode()))
