"""A benchmark index as a sparse document x term matrix, read once from the engine.

Every document's term vector (``_mtermvectors``: the analyzer's own tokens and their
frequencies; the response's order is not the request's, so each is placed by its ``_id``)
goes into a CSR matrix with the document ids in index order (sorted, as
``indexing.bulk_index`` writes them) and the vocabulary. Cached under the research cache
(``knownitem/<index>.npz``) with the corpus fingerprint, so an index is read once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.evaluation import indexing
from qidf_research.paths import CACHE

FOLDER = CACHE / "knownitem"
BATCH = 500


@dataclass(frozen=True)
class TermMatrix:
    """tf[d, t] of one field, its documents and terms; df and lengths derived once."""

    ids: list[str]
    terms: list[str]
    tf: sp.csr_matrix  # documents x terms, int32

    @property
    def df(self) -> np.ndarray:
        return np.diff(self.tf.tocsc().indptr)

    @property
    def lengths(self) -> np.ndarray:
        return np.asarray(self.tf.sum(axis=1)).ravel()

    def column(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.terms)}


def _read(cluster: Cluster, index: str, ids: list[str]) -> TermMatrix:
    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    vals: list[int] = []
    row_of = {d: i for i, d in enumerate(ids)}
    for start in range(0, len(ids), BATCH):
        body = {"ids": ids[start:start + BATCH], "parameters": {
            "fields": [indexing.FIELD], "term_statistics": False, "field_statistics": False,
            "positions": False, "offsets": False, "payloads": False}}
        resp = cluster.request("POST", index_path(index, "_mtermvectors"), body)
        for doc in resp["docs"]:  # not in the order asked for
            i = row_of[doc["_id"]]
            terms = (doc.get("term_vectors") or {}).get(indexing.FIELD, {}).get("terms", {})
            for term, info in terms.items():
                rows.append(i)
                cols.append(vocab.setdefault(term, len(vocab)))
                vals.append(int(info["term_freq"]))
    tf = sp.csr_matrix((np.array(vals, dtype=np.int32), (rows, cols)),
                       shape=(len(ids), len(vocab)))
    tf.sort_indices()
    return TermMatrix(ids, list(vocab), tf)


def load(cluster: Cluster | None, index: str, corpus: Mapping[str, str],
         analyzer: str = "standard") -> TermMatrix:
    """The matrix of ``index`` holding ``corpus`` (indexed first if needed), from the cache
    when its fingerprint matches."""
    stamp = indexing.fingerprint(corpus, analyzer)
    path = FOLDER / f"{index}.npz"
    if path.is_file():
        z = np.load(path, allow_pickle=False)
        meta = json.loads(bytes(z["meta"]).decode())
        if meta["fingerprint"] == stamp:
            tf = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(meta["shape"]))
            return TermMatrix(meta["ids"], meta["terms"], tf)
    if cluster is None:
        raise FileNotFoundError(f"{path}: not cached, and no cluster to read it from")
    indexing.ensure_index(cluster, index, corpus, analyzer=analyzer)
    m = _read(cluster, index, sorted(corpus))
    FOLDER.mkdir(parents=True, exist_ok=True)
    meta = {"fingerprint": stamp, "ids": m.ids, "terms": m.terms, "shape": list(m.tf.shape)}
    np.savez_compressed(path, data=m.tf.data, indices=m.tf.indices, indptr=m.tf.indptr,
                        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    return m


def cached(index: str) -> Path:
    return FOLDER / f"{index}.npz"
