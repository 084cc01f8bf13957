"""The speed benchmark's indices: one base index, cloned (hard links) per similarity, so every
system searches the same segments."""

from __future__ import annotations

import hashlib
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.engine import config as local_engine
from qidf_ctl.evaluation import indexing
from qidf_research.speed.settings import BM25, FALLBACK_Q, FIELD, INSTALLED, log


def corpus_fingerprint(docs: dict[str, str]) -> str:
    h = hashlib.sha256()
    for doc_id in sorted(docs):
        h.update(doc_id.encode())
        h.update(b"\0")
        h.update(docs[doc_id].encode())
        h.update(b"\1")
    return h.hexdigest()[:16]


def segments(cluster: Cluster, index: str) -> list[dict[str, Any]]:
    return list(cluster.request("GET", f"/_cat/segments/{index}", params={"format": "json"}))


def build_base_index(cluster: Cluster, name: str, docs: dict[str, str], reuse: bool) -> bool:
    """Index once, force-merge to one segment (every run then scores the same segment).
    Returns False when an identical index from an earlier run was reused."""
    fp = corpus_fingerprint(docs)
    if reuse and indexing.doc_count(cluster, name) == len(docs):
        meta = cluster.request("GET", f"/{name}/_mapping")[name]["mappings"].get("_meta") or {}
        if meta.get("bench_speed") == fp and len(segments(cluster, name)) == 1:
            return False
    for stale in [name] + [f"{name}-{s}" for s in INSTALLED if s != BM25]:
        cluster.request("DELETE", f"/{stale}", None, {"ignore_unavailable": "true"})
    indexing.create_index(cluster, name, analyzer="standard", shards=1, replicas=0)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if done % 20_000 < n:
            log(f"  indexed {done}/{len(docs)}")

    count = indexing.bulk_index(cluster, name, docs, advance=advance)
    if count != len(docs):
        raise RuntimeError(f"{name} holds {count} documents, expected {len(docs)}")
    log("force-merging to one segment")
    cluster.request("POST", f"/{name}/_forcemerge?max_num_segments=1&flush=true")
    cluster.request("PUT", f"/{name}/_mapping", {"_meta": {"bench_speed": fp}})
    return True


def clone(cluster: Cluster, source: str, target: str) -> None:
    """_clone hard-links the segment files: the clones score exactly the same segment."""
    cluster.request("DELETE", f"/{target}", None, {"ignore_unavailable": "true"})
    cluster.request("PUT", f"/{source}/_settings", {"index.blocks.write": True})
    cluster.request("POST", f"/{source}/_clone/{target}",
                    {"settings": {"index.blocks.write": None, "index.number_of_replicas": 0}})
    cluster.request("GET", f"/_cluster/health/{target}?wait_for_status=green&timeout=120s")


def segment_inodes(cfg: local_engine.EngineConfig, uuid: str) -> list[int]:
    """Inodes of the shard's segment files: equal inodes are one file on disk, the proof that
    the clones read the very bytes the BM25 index reads."""
    shard = cfg.node_dir / "data" / "nodes" / "0" / "indices" / uuid / "0" / "index"
    return sorted(f.stat().st_ino for f in shard.glob("_*") if f.is_file())


def index_facts(cluster: Cluster, cfg: local_engine.EngineConfig, index: str
                ) -> dict[str, Any]:
    segs = segments(cluster, index)
    sim = cluster.request("GET", f"/{index}/_settings/index.similarity*").get(index, {})
    uuid = cluster.request("GET", f"/{index}/_settings/index.uuid")[index]["settings"]["index"][
        "uuid"]
    return {
        "index": index,
        "segments": len(segs),
        "segment_file_inodes": segment_inodes(cfg, uuid),
        "docs": int(cluster.request("GET", f"/{index}/_count")["count"]),
        "size": segs[0].get("size") if segs else None,
        "similarity": sim.get("settings", {}).get("index", {}).get("similarity",
                                                                      "built-in default"),
    }


def predicted_q(cluster: Cluster, index: str, sample: int,
                seed: int) -> tuple[float, dict[str, Any]]:
    """q from qidf's own predictor on this very index; a fixed q if the predictor is absent.

    Speed hardly depends on q (the IDF is computed once per query term, not per document),
    so the fallback changes what q is reported, not the conclusion."""
    try:
        from qidf_ctl.predictors import predict_for_index
    except ImportError as exc:
        return FALLBACK_Q, {"source": f"fallback q={FALLBACK_Q}: qidf_ctl.predictors missing "
                                      f"({exc})"}
    pred = predict_for_index(cluster, index, field=FIELD, sample=sample, seed=seed)
    info = {k: v for k, v in pred.as_dict().items() if k != "statistics"}
    info["source"] = (f"qidf_ctl.predictors.predict_for_index (predictor {pred.predictor!r}, "
                      f"sample of {sample} documents, seed {seed})")
    return pred.q, info
