"""Creating an index and bulk-loading documents: for the demo, benchmarks and tests.

Operators never need this against their own clusters; it exists so that every number qidf
reports comes from a real engine that indexed real text with a real analyzer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.progress import Advance, BarFactory, Progress, no_bar, quiet

FIELD = "text"


def create_index(
    cluster: Cluster,
    name: str,
    *,
    analyzer: str = "standard",
    shards: int = 1,
    replicas: int = 0,
    analysis: dict[str, Any] | None = None,
    similarity: dict[str, Any] | None = None,
) -> None:
    """(Re)create ``name`` with one text field analysed by ``analyzer``."""
    cluster.request("DELETE", index_path(name), None, {"ignore_unavailable": "true"})
    index_settings: dict[str, Any] = {"number_of_shards": shards, "number_of_replicas": replicas,
                                      "refresh_interval": "-1"}
    if analysis:
        index_settings["analysis"] = analysis
    if similarity:
        index_settings["similarity"] = similarity
    cluster.request("PUT", index_path(name), {
        "settings": {"index": index_settings},
        "mappings": {"properties": {FIELD: {"type": "text", "analyzer": analyzer}}},
    })


def bulk_index(
    cluster: Cluster,
    name: str,
    docs: Mapping[str, str],
    *,
    batch_size: int = 2000,
    advance: Advance = lambda n: None,
) -> int:
    """Index ``docs`` (id -> text), refresh, and return the engine's document count."""
    items = sorted(docs.items())
    for start in range(0, len(items), batch_size):
        lines = []
        for doc_id, text in items[start:start + batch_size]:
            lines.append(json.dumps({"index": {"_index": name, "_id": doc_id}}))
            lines.append(json.dumps({FIELD: text}))
        resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
        if resp.get("errors"):
            first = next(i for i in resp["items"] if "error" in i["index"])
            raise ClusterError(f"bulk indexing into {name!r} failed: {first['index']['error']}")
        advance(len(lines) // 2)
    cluster.request("PUT", index_path(name, "_settings"), {"index": {"refresh_interval": "1s"}})
    cluster.request("POST", index_path(name, "_refresh"))
    return int(cluster.request("GET", index_path(name, "_count"))["count"])


def doc_count(cluster: Cluster, name: str) -> int | None:
    """Documents in ``name``, or None when it does not exist."""
    try:
        return int(cluster.request("GET", index_path(name, "_count"))["count"])
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise


def fingerprint(corpus: Mapping[str, str], analyzer: str) -> str:
    """Content hash of a corpus and its analyzer: an index is reused only when it matches."""
    h = hashlib.sha256(analyzer.encode())
    for doc_id in sorted(corpus):
        h.update(doc_id.encode() + b"\0" + corpus[doc_id].encode() + b"\0")
    return h.hexdigest()[:16]


def ensure_index(
    cluster: Cluster,
    name: str,
    corpus: Mapping[str, str],
    *,
    analyzer: str = "standard",
    analysis: dict[str, Any] | None = None,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
) -> bool:
    """Index ``corpus`` into ``name`` unless it already holds exactly this corpus.

    Returns True when it (re)indexed. The fingerprint lives in the mapping's ``_meta``, so a
    rerun of the demo or a benchmark skips indexing but never reuses a stale index.
    """
    fp = fingerprint(corpus, analyzer)
    try:
        mapping = cluster.request("GET", index_path(name, "_mapping"))[name]["mappings"]
        meta = mapping.get("_meta") or {}
        if meta.get("qidf_bench") == fp and doc_count(cluster, name) == len(corpus):
            return False
    except ClusterError as exc:
        if exc.status != 404:
            raise
    progress(f"indexing {len(corpus)} documents into {name} ({analyzer})")
    create_index(cluster, name, analyzer=analyzer, analysis=analysis)
    with bar(f"indexing {name}", len(corpus)) as advance:
        bulk_index(cluster, name, corpus, advance=advance)
    cluster.request("PUT", index_path(name, "_mapping"), {"_meta": {"qidf_bench": fp}})
    return True
