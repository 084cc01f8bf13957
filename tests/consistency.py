"""What "open and consistent" means, checked on a real engine: the name serves exactly one open
index whose primaries are active, no write block left, the similarity settings exactly the old
or exactly the new ones, ``_meta.qidf`` agreeing with them, the default search pipeline at the
same end (and existing whenever the index names one), the statistics snapshot the similarity
names stored and held by every data node, the same documents (count and a checksum of every id
and source), and no journal, scratch index, stray clone, unused qidf pipeline or statistics
snapshot that no index names (nor a half-taken one) left."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.cluster.names import stats_pipeline_id
from qidf_ctl.install.index_ops import resolves_to, searchable
from qidf_ctl.install.pipeline import SETTING, get_pipeline, names_pipeline
from qidf_ctl.install.state import similarity_of
from qidf_ctl.similarity import parse, unflatten
from qidf_ctl.stats import snapshot as snapshots


@dataclass
class Snapshot:
    index: str
    status: str
    similarity: dict[str, Any]
    meta: dict[str, Any] | None
    count: int
    checksum: str
    write_block: bool
    pipeline: str | None = None  # index.search.default_pipeline


KEEP = "(unchanged)"  # assert_consistent's ``new_pipeline`` when the command leaves it alone


def checksum(cluster: Cluster, index: str) -> tuple[int, str]:
    """Document count and a hash of every (id, source), in id order (read with a scroll)."""
    cluster.request("POST", index_path(index, "_refresh"))
    pairs: list[tuple[str, str]] = []
    resp = cluster.request("POST", index_path(index, "_search"),
                           {"size": 5000, "sort": ["_doc"], "query": {"match_all": {}}},
                           {"scroll": "1m"})
    scroll_id = resp.get("_scroll_id")
    try:
        while resp["hits"]["hits"]:
            pairs += [(h["_id"], json.dumps(h["_source"], sort_keys=True))
                      for h in resp["hits"]["hits"]]
            resp = cluster.request("POST", "/_search/scroll",
                                   {"scroll": "1m", "scroll_id": scroll_id})
            scroll_id = resp.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            cluster.request("DELETE", "/_search/scroll", {"scroll_id": [scroll_id]})
    digest = hashlib.sha256()
    for doc_id, source in sorted(pairs):
        digest.update(doc_id.encode() + b"\0" + source.encode() + b"\0")
    return len(pairs), digest.hexdigest()


def snapshot(cluster: Cluster, name: str) -> Snapshot:
    (index,) = resolves_to(cluster, name)
    settings = cluster.request("GET", index_path(index, "_settings"),
                               params={"flat_settings": "true"})[index]["settings"]
    status = cluster.request("GET", f"/_cat/indices/{index_path(index)[1:]}",
                             params={"format": "json", "h": "status"})[0]["status"]
    meta = None
    count, digest = 0, ""
    if status == "open":
        mapping = cluster.request("GET", index_path(index, "_mapping"))[index]["mappings"]
        meta = mapping.get("_meta")
        count, digest = checksum(cluster, index)
    return Snapshot(index, status, similarity_of(settings), meta, count, digest,
                    str(settings.get("index.blocks.write", "false")) == "true",
                    settings.get(SETTING))


def leftovers(cluster: Cluster, public: str) -> list[str]:
    """qidf journals, scratch indices and clones of ``public`` not serving it."""
    serving = set(resolves_to(cluster, public))
    rows = cluster.request("GET", "/_cat/indices", params={"format": "json", "h": "index",
                                                            "expand_wildcards": "all"})
    names = [r["index"] for r in rows]
    found = [n for n in names if n.startswith("qidf-validate-")]
    found += [n for n in names if n.startswith(f"{public}-qidf-") and n not in serving]
    if "qidf-state" in names:
        cluster.request("POST", "/qidf-state/_refresh")
        hits = cluster.request("POST", "/qidf-state/_search", {
            "query": {"term": {"kind": "journal"}}, "size": 100})["hits"]["hits"]
        found += [h["_id"] for h in hits if h["_source"].get("key") == public]
    if snapshots.STORE_INDEX in names:
        found += snapshot_leftovers(cluster)
    pid = stats_pipeline_id(public)
    if cluster.engine.distribution == "opensearch":  # Elasticsearch has no search pipelines
        named = {snapshot_setting(cluster, i) for i in serving}
        if pid not in named and get_pipeline(cluster, pid) is not None:
            found.append(f"search pipeline {pid}")
    return found


def snapshot_leftovers(cluster: Cluster) -> list[str]:
    """Statistics snapshots no index names, half-taken ones (a mark, no generation), and chunks
    of no published generation: read from the plugin's store index itself."""
    cluster.request("POST", f"/{snapshots.STORE_INDEX}/_refresh")
    hits = cluster.request("POST", f"/{snapshots.STORE_INDEX}/_search", {
        "size": 10000, "_source": ["kind", "key", "token", "body.generation", "body.token",
                                    "body.taking"]})["hits"]["hits"]
    metas = {h["_source"]["key"]: h["_source"].get("body") or {} for h in hits
             if h["_source"].get("kind") == "meta"}
    found = []
    for key, body in sorted(metas.items()):
        if not snapshots.named_by(cluster, key):
            found.append(f"statistics snapshot {key} (no index names it)")
        if body.get("taking") or not body.get("generation"):
            found.append(f"statistics snapshot {key}: an unfinished take {body.get('taking')}")
    for h in hits:
        src = h["_source"]
        if src.get("kind") == "chunk" and (metas.get(src.get("key")) or {}).get("token") != \
                src.get("token"):
            found.append(f"snapshot chunk {h['_id']} of no published generation")
    return found


def assert_snapshot_held(cluster: Cluster, key: str | None) -> None:
    """The snapshot the similarity names is stored, and every data node holds its generation."""
    if key is None:
        return
    found = snapshots.info(cluster, key)
    assert snapshots.generation(found) > 0, f"the similarity names the snapshot {key}: missing"
    assert found is not None
    held, total, behind = snapshots.nodes_holding(found)
    assert held == total, f"data nodes {behind} do not hold snapshot {key}"


def snapshot_setting(cluster: Cluster, index: str) -> str | None:
    settings = cluster.request("GET", index_path(index, "_settings"),
                               params={"flat_settings": "true"})[index]["settings"]
    value = settings.get(SETTING)
    return None if value is None else str(value)


def assert_consistent(cluster: Cluster, name: str, before: Snapshot,
                      old: dict[str, Any], new: dict[str, Any],
                      new_pipeline: str | None = KEEP) -> str:
    """Raise AssertionError unless ``name`` is open and consistent; 'old' or 'new'.
    ``new_pipeline``: the default search pipeline the command was setting (``KEEP``: it
    leaves the setting as it was)."""
    now = snapshot(cluster, name)
    assert now.status == "open", f"{now.index} is {now.status}"
    assert searchable(cluster, now.index), f"{now.index} has inactive primaries"
    assert not now.write_block, f"{now.index} is left write-blocked"
    blocks = cluster.request("GET", "/_cluster/state/blocks")["blocks"].get("indices", {})
    assert now.index not in blocks, f"{now.index} has cluster blocks {blocks[now.index]}"
    str_old = {k: str(v) for k, v in old.items()}
    str_new = {k: str(v) for k, v in new.items()}
    got = {k: str(v) for k, v in now.similarity.items()}
    assert got in (str_old, str_new), f"similarity is neither old nor new: {got}"
    end = "new" if got == str_new else "old"
    if str_old == str_new and new_pipeline != KEEP:  # a change of the pipeline alone
        assert now.pipeline in (before.pipeline, new_pipeline), now.pipeline
        end = "new" if now.pipeline == new_pipeline else "old"
    if end == "old":
        assert now.meta == before.meta, f"_meta changed from {before.meta} to {now.meta}"
    installed = parse(unflatten(now.similarity) or None)
    record = (now.meta or {}).get("qidf")
    if installed.kind == "qlog":
        assert record and record["installed"]["q"] == installed.params.q, \
            f"_meta.qidf {record} disagrees with {installed.describe()}"
    else:
        assert not (record or {}).get("installed"), f"_meta.qidf {record} but built-in"
    want = before.pipeline if end == "old" or new_pipeline == KEEP else new_pipeline
    assert now.pipeline == want, f"{end} similarity, but default pipeline {now.pipeline}"
    ours = now.pipeline == stats_pipeline_id(name)
    named = now.similarity.get(snapshots.SETTING)
    assert bool((record or {}).get("stats")) == (ours or named is not None), \
        f"_meta.qidf {record}, {now.pipeline}, snapshot {named}"
    assert_snapshot_held(cluster, None if named is None else str(named))
    if names_pipeline(now.pipeline):
        assert get_pipeline(cluster, str(now.pipeline)) is not None, \
            f"the default search pipeline {now.pipeline} does not exist: searches fail"
    assert (now.count, now.checksum) == (before.count, before.checksum), \
        f"documents changed: {before.count} -> {now.count}"
    extra = leftovers(cluster, name)
    assert not extra, f"left behind: {extra}"
    return end
