"""What the engine's own analyzer produced, read back from a cluster: documents, term vectors,
document frequencies.

Term vectors are the only API that returns a document's terms exactly as the field's analyzer
indexed them (stored, or re-analysed from ``_source`` on the fly), so every count qidf reports
starts there. Two ways to learn a term's index-wide df, because they count different things:

- ``engine_df``: Lucene's docFreq, one term-vector request per shard on an artificial document
  whose values are the terms themselves (keyword analyzer). Cheap (a term-dictionary lookup),
  summed over shards, and like BM25's own statistics it counts deleted documents until their
  segments merge.
- ``live_df``: a ``filters`` aggregation, one bucket per term. Slower, counts live documents
  only; used when the index holds deleted documents.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.cluster.index import artificial_termvectors
from qidf_ctl.errors import ClusterError

SCROLL_KEEP = "2m"
# Term vectors only: no positions, offsets, payloads or per-term statistics to serialise.
_TV_PARAMS = {"term_statistics": False, "field_statistics": False, "positions": False,
              "offsets": False, "payloads": False}
_LOOKUP_BATCH = 10_000
LOOKUP_WORKERS = 4
DEFAULT_MAX_BUCKETS = 65_535

TermVector = dict[str, dict[str, Any]]  # term -> {"term_freq": n, ...}


@dataclass(frozen=True)
class DocRef:
    """A document to read: its id and custom routing, if it was indexed with one."""

    id: str
    routing: str | None = None


@dataclass(frozen=True)
class FieldTotals:
    """Lucene's field statistics summed over shards: what BM25 scores with (deleted included)."""

    doc_count: int
    sum_doc_freq: int
    sum_ttf: int


def has_field_query(fields: Sequence[str]) -> dict[str, Any]:
    """Documents that have any of ``fields`` (empty strings included, as ``exists`` does)."""
    if len(fields) == 1:
        return {"exists": {"field": fields[0]}}
    return {"bool": {"should": [{"exists": {"field": f}} for f in fields],
                     "minimum_should_match": 1}}


def count(cluster: Cluster, index: str, query: dict[str, Any]) -> int:
    return int(cluster.request("POST", index_path(index, "_count"), {"query": query})["count"])


def scroll_docs(
    cluster: Cluster,
    index: str,
    query: dict[str, Any],
    *,
    page: int = 5000,
    limit: int | None = None,
    by_score: bool = False,
) -> Iterator[list[DocRef]]:
    """Pages of document references, in ``_doc`` order (or by score), scroll cleared at the
    end whatever happens."""
    size = min(page, limit) if limit else page
    body: dict[str, Any] = {"size": size, "_source": False, "query": query,
                            "sort": ["_score"] if by_score else ["_doc"]}
    resp = cluster.request("POST", index_path(index, "_search"), body, {"scroll": SCROLL_KEEP})
    scroll_id = resp.get("_scroll_id")
    seen = 0
    try:
        while True:
            hits = resp["hits"]["hits"]
            if not hits:
                return
            if limit is not None:
                hits = hits[:limit - seen]
            seen += len(hits)
            yield [DocRef(h["_id"], h.get("_routing")) for h in hits]
            if limit is not None and seen >= limit:
                return
            resp = cluster.request("POST", "/_search/scroll",
                                   {"scroll": SCROLL_KEEP, "scroll_id": scroll_id})
            scroll_id = resp.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            with contextlib.suppress(ClusterError):
                cluster.request("DELETE", "/_search/scroll", {"scroll_id": [scroll_id]})


# Characters of the fields' _source values: a cheap, exact-enough proxy of their length in
# tokens, read inside the engine (one script_score pass; needs lang-painless).
LENGTH_SCRIPT = """
double total = 0;
for (def path : params.paths) {
  def v = params._source;
  for (def key : path) {
    if (v instanceof Map) { v = v.get(key); } else { v = null; break; }
  }
  if (v instanceof String) { total += v.length(); }
  else if (v instanceof List) {
    for (def x : v) { if (x instanceof String) { total += x.length(); } }
  }
}
return total;
"""


def longest_docs(
    cluster: Cluster, index: str, query: dict[str, Any], source_paths: Sequence[str], k: int
) -> list[DocRef]:
    """The ``k`` documents whose fields hold the most characters."""
    if k <= 0:
        return []
    paths = [p.split(".") for p in dict.fromkeys(source_paths)]
    ranked = {"function_score": {"query": query, "boost_mode": "replace", "script_score": {
        "script": {"lang": "painless", "source": LENGTH_SCRIPT, "params": {"paths": paths}}}}}
    return [d for page in scroll_docs(cluster, index, ranked, page=10_000, limit=k,
                                      by_score=True) for d in page]


def uniform_docs(
    cluster: Cluster, index: str, query: dict[str, Any], k: int, seed: int,
    exclude: Sequence[DocRef] = (),
) -> Iterator[list[DocRef]]:
    """A seeded uniform sample of ``k`` documents matching ``query``, ``exclude`` left out.

    Ranks by ``random_score`` hashed from (seed, index, shard, _seq_no): the same seed on an
    unchanged index gives the same sample, and copies of a shard agree.
    """
    if exclude:
        query = {"bool": {"filter": [query], "must_not": [{"ids": {
            "values": [d.id for d in exclude]}}]}}
    ranked = {"function_score": {"query": query, "boost_mode": "replace",
                                 "random_score": {"seed": seed, "field": "_seq_no"}}}
    return scroll_docs(cluster, index, ranked, page=10_000, limit=k, by_score=True)


def term_vectors(
    cluster: Cluster, index: str, docs: Sequence[DocRef], fields: Sequence[str]
) -> list[dict[str, TermVector] | None]:
    """Each document's terms and term frequencies per field; None for a document gone since it
    was listed.

    ``realtime=false`` reads what search sees (the refreshed index), not newer versions still
    in the translog, so the terms agree with the engine's statistics. The parameters go on
    every document: with ``docs``, a top-level ``parameters`` object is silently ignored.
    """
    body = {"docs": [
        {"_id": d.id, "fields": list(fields), **_TV_PARAMS,
         **({"routing": d.routing} if d.routing is not None else {})}
        for d in docs
    ]}
    resp = cluster.request("POST", index_path(index, "_mtermvectors"), body, {"realtime": "false"})
    out: list[dict[str, TermVector] | None] = []
    for doc in resp["docs"]:
        if "error" in doc:
            raise ClusterError(f"term vectors of document {doc.get('_id')!r} in {index!r} "
                               f"failed: {doc['error']}")
        if not doc.get("found", False):
            out.append(None)
            continue
        tvs = doc.get("term_vectors") or {}
        out.append({f: tvs[f]["terms"] for f in fields if f in tvs and tvs[f].get("terms")})
    return out


def _shard_lookup(
    cluster: Cluster, index: str, field: str, terms: Sequence[str], shard: int
) -> tuple[dict[str, Any], FieldTotals]:
    body = {"doc": {field: list(terms)}, "fields": [field],
            "per_field_analyzer": {field: "keyword"},
            "term_statistics": True, "field_statistics": True,
            "positions": False, "offsets": False, "payloads": False}
    resp = artificial_termvectors(cluster, index, body,
                                  {"preference": f"_shards:{shard}", "realtime": "false"})
    tv = (resp.get("term_vectors") or {}).get(field) or {}
    fs = tv.get("field_statistics") or {}
    totals = FieldTotals(int(fs.get("doc_count", 0)), int(fs.get("sum_doc_freq", 0)),
                         int(fs.get("sum_ttf", 0)))
    return tv.get("terms") or {}, totals


def field_totals(cluster: Cluster, index: str, field: str, shards: int) -> FieldTotals:
    """Lucene's docCount, sumDocFreq and sumTotalTermFreq of ``field``, summed over shards
    (one copy of each)."""
    parts = [_shard_lookup(cluster, index, field, ["qidf"], k)[1] for k in range(shards)]
    return FieldTotals(sum(p.doc_count for p in parts), sum(p.sum_doc_freq for p in parts),
                       sum(p.sum_ttf for p in parts))


def engine_df(
    cluster: Cluster, index: str, field: str, terms: Sequence[str], shards: int,
    advance: Callable[[int], None] = lambda n: None,
) -> np.ndarray:
    """Lucene's docFreq of each term summed over shards (deleted documents included).

    The lookups (one per batch of terms and shard) run LOOKUP_WORKERS at a time: each is a
    term-dictionary lookup for the engine, and decoding the answer is most of the cost."""
    df = np.zeros(len(terms), dtype=np.int64)
    starts = range(0, len(terms), _LOOKUP_BATCH)

    def lookup(start: int) -> tuple[int, list[int]]:
        batch = terms[start:start + _LOOKUP_BATCH]
        counts = [0] * len(batch)
        for shard in range(shards):
            found, _ = _shard_lookup(cluster, index, field, batch, shard)
            for i, t in enumerate(batch):
                counts[i] += int(found.get(t, {}).get("doc_freq", 0))
        return start, counts

    with ThreadPoolExecutor(max_workers=LOOKUP_WORKERS) as pool:
        for start, counts in pool.map(lookup, starts):
            df[start:start + len(counts)] = counts
            advance(len(counts))
    return df


def max_buckets(cluster: Cluster) -> int:
    """The cluster's ``search.max_buckets``: a ``filters`` aggregation may not exceed it."""
    try:
        resp = cluster.request("GET", "/_cluster/settings",
                               params={"include_defaults": "true", "flat_settings": "true"})
    except ClusterError:
        return DEFAULT_MAX_BUCKETS
    for part in ("transient", "persistent", "defaults"):
        value = (resp.get(part) or {}).get("search.max_buckets")
        if value is not None:
            return int(value)
    return DEFAULT_MAX_BUCKETS


def live_df(
    cluster: Cluster, index: str, field: str, terms: Sequence[str], *, batch: int = 5000,
    advance: Callable[[int], None] = lambda n: None,
) -> np.ndarray:
    """Live documents containing each term: one ``filters`` bucket per term."""
    batch = max(1, min(batch, max_buckets(cluster) - 1))
    df = np.zeros(len(terms), dtype=np.int64)
    for start in range(0, len(terms), batch):
        chunk = terms[start:start + batch]
        body = {"size": 0, "track_total_hits": False, "aggs": {"df": {"filters": {
            "filters": [{"term": {field: t}} for t in chunk]}}}}
        buckets = cluster.request("POST", index_path(index, "_search"), body)["aggregations"]["df"][
            "buckets"]
        df[start:start + len(chunk)] = [int(b["doc_count"]) for b in buckets]
        advance(len(chunk))
    return df


def chunked(items: Sequence[DocRef], size: int) -> Iterable[Sequence[DocRef]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
