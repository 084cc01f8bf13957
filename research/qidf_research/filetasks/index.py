"""The task's index: one document per file, the path in a keyword field (what the judgments
match), the content in a text field with the ``standard`` analyzer (what is searched), and
the path again as text (``path_text``: for agents that search paths; measured separately).
One shard, no replica, as the held-out judges build it. Reused while its fingerprint
(corpus and mapping) matches."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation.indexing import doc_count

PREFIX = "qidf-filetasks-"
PATH_FIELD = "path"
CONTENT_FIELD = "content"
PATH_TEXT_FIELD = "path_text"
MAPPING: dict[str, Any] = {"properties": {
    PATH_FIELD: {"type": "keyword"},
    CONTENT_FIELD: {"type": "text", "analyzer": "standard"},
    PATH_TEXT_FIELD: {"type": "text", "analyzer": "standard"},
}}
BATCH_BYTES = 8 * 1024 * 1024


def name(key: str) -> str:
    return PREFIX + key


def fingerprint(docs: Mapping[str, str]) -> str:
    h = hashlib.sha256(json.dumps(MAPPING, sort_keys=True).encode())
    for path in sorted(docs):
        h.update(path.encode() + b"\0" + docs[path].encode() + b"\0")
    return h.hexdigest()[:16]


def _current(cluster: Cluster, index: str) -> str | None:
    try:
        mapping = cluster.request("GET", index_path(index, "_mapping"))[index]["mappings"]
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    meta = mapping.get("_meta") or {}
    return str(meta["qidf_filetasks"]) if "qidf_filetasks" in meta else None


def ensure(cluster: Cluster, index: str, docs: Mapping[str, str],
           log: Callable[[str], None] = print) -> bool:
    """Index ``docs`` (path -> text) into ``index`` unless it already holds exactly them;
    True when it (re)indexed."""
    fp = fingerprint(docs)
    if _current(cluster, index) == fp and doc_count(cluster, index) == len(docs):
        return False
    log(f"indexing {len(docs):,} files into {index}")
    cluster.request("DELETE", index_path(index), None, {"ignore_unavailable": "true"})
    cluster.request("PUT", index_path(index), {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0,
                               "refresh_interval": "-1"}},
        "mappings": MAPPING})
    lines: list[str] = []
    size = 0
    for path in sorted(docs):
        lines.append(json.dumps({"index": {"_index": index, "_id": path}}))
        lines.append(json.dumps({PATH_FIELD: path, CONTENT_FIELD: docs[path],
                                 PATH_TEXT_FIELD: path}, ensure_ascii=False))
        size += len(lines[-1])
        if size >= BATCH_BYTES:
            _bulk(cluster, lines)
            lines, size = [], 0
    if lines:
        _bulk(cluster, lines)
    cluster.request("PUT", index_path(index, "_settings"), {"index": {"refresh_interval": "1s"}})
    cluster.request("POST", index_path(index, "_refresh"))
    cluster.request("PUT", index_path(index, "_mapping"), {"_meta": {"qidf_filetasks": fp}})
    got = doc_count(cluster, index)
    if got != len(docs):
        raise ClusterError(f"{index} holds {got} documents, expected {len(docs)}")
    return True


def _bulk(cluster: Cluster, lines: list[str]) -> None:
    resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
    if resp.get("errors"):
        first = next(i for i in resp["items"] if "error" in i["index"])
        raise ClusterError(f"bulk indexing failed: {first['index']['error']}")
