"""A code-search index with two text fields, ``code`` and ``doc``, from the shipped Go corpus:
the stand-in for "your own index" in the tutorial's test (docs/tutorial/your-index.md).

Each document is one Go function: its code, its docstring, its path and name (keywords).
The queries are what people type into code search: a function's signature (its first line),
whose gold document is that function; the judgements are TREC qrels.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.demo.corpus import shipped_corpus
from qidf_ctl.evaluation.pairs import load_pairs

MAPPING = {"properties": {"code": {"type": "text", "analyzer": "standard"},
                          "doc": {"type": "text", "analyzer": "standard"},
                          "path": {"type": "keyword"}, "name": {"type": "keyword"}}}


def _path(pair_id: str) -> str:
    """``go:src/archive/tar/common.go:FileInfoHeader`` -> ``src/archive/tar/common.go``."""
    return pair_id.split(":", 2)[1] if pair_id.count(":") >= 2 else pair_id


def documents(size: int, seed: int = 0) -> list[dict[str, Any]]:
    pairs = load_pairs(shipped_corpus("go"))
    chosen = random.Random(seed).sample(pairs, min(size, len(pairs)))
    return [{"_id": p.id, "code": p.code, "doc": p.doc, "path": _path(p.id), "name": p.name}
            for p in sorted(chosen, key=lambda p: p.id)]


def build(cluster: Cluster, index: str, size: int = 3000, seed: int = 0) -> list[dict[str, Any]]:
    """(Re)create ``index`` with ``size`` functions; returns the documents."""
    cluster.request("DELETE", index_path(index), None, {"ignore_unavailable": "true"})
    cluster.request("PUT", index_path(index), {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": MAPPING})
    docs = documents(size, seed)
    for start in range(0, len(docs), 500):
        lines = []
        for d in docs[start:start + 500]:
            lines.append(json.dumps({"index": {"_index": index, "_id": d["_id"]}}))
            lines.append(json.dumps({k: v for k, v in d.items() if k != "_id"}))
        resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
        assert not resp.get("errors"), resp["items"][:1]
    cluster.request("POST", index_path(index, "_refresh"))
    return docs


def write_task(docs: list[dict[str, Any]], folder: Path, queries: int = 200, seed: int = 0,
               queries_name: str = "q.jsonl", qrels_name: str = "qrels.tsv") -> None:
    """Signature queries (BEIR JSONL) and their judgements (TREC qrels) in ``folder``."""
    picked = random.Random(seed).sample(docs, min(queries, len(docs)))
    with (folder / queries_name).open("w") as q, (folder / qrels_name).open("w") as r:
        for n, d in enumerate(picked):
            signature = d["code"].splitlines()[0].rstrip("{ ").strip()
            q.write(json.dumps({"_id": f"q{n}", "text": signature}) + "\n")
            r.write(f"q{n} 0 {d['_id']} 1\n")
