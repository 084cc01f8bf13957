"""A seeded uniform sample of a field's raw values (``_source``), for the text shape.

One search: ``random_score`` seeded on ``_seq_no`` (the same sample on an unchanged index,
as ``read.uniform_docs``), ``_source`` filtered to the field's path, at most
``SOURCE_SAMPLE`` hits. It reads a thousand documents whatever the index holds, so its cost
does not grow with the index beyond the engine's scoring pass.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster, index_path

SOURCE_SAMPLE = 1000


def _values(node: Any, path: list[str]) -> list[str]:
    """Every string under ``path`` in a ``_source`` object (lists at any level)."""
    if isinstance(node, list):
        return [v for item in node for v in _values(item, path)]
    if not path:
        return [node] if isinstance(node, str) else []
    if isinstance(node, dict) and path[0] in node:
        return _values(node[path[0]], path[1:])
    if isinstance(node, dict):  # a dotted key written flat: {"a.b": ...}
        for k in range(len(path), 1, -1):
            flat = ".".join(path[:k])
            if flat in node:
                return _values(node[flat], path[k:])
    return []


def source_texts(cluster: Cluster, index: str, source_path: str, query: dict[str, Any],
                 size: int = SOURCE_SAMPLE, seed: int = 0) -> list[str]:
    """The field's text in a seeded uniform sample of up to ``size`` documents matching
    ``query`` (several values of one document joined by a newline)."""
    body = {"size": size, "_source": [source_path], "query": {"function_score": {
        "query": query, "boost_mode": "replace",
        "random_score": {"seed": seed, "field": "_seq_no"}}}}
    resp = cluster.request("POST", index_path(index, "_search"), body)
    path = source_path.split(".")
    return ["\n".join(_values(hit.get("_source") or {}, path))
            for hit in resp["hits"]["hits"]]
