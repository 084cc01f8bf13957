"""Reading term vectors from the cluster into flat (term id, tf) arrays, one per field."""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from qidf_ctl.cluster import Cluster
from qidf_ctl.progress import Advance
from qidf_ctl.stats.read import DocRef, TermVector, chunked, term_vectors

TV_BATCH = 250  # documents per _mtermvectors request
# Requests in flight while the previous answer is being counted. The engine's analysis of
# each document (term vectors are rebuilt from _source) is what a full pass waits for: four
# in flight keep both of a 2-core node's `get` threads busy (measured 12-20% faster than two).
WORKERS = 4


class Entries:
    """The flat (term id, tf) pairs of the documents read so far, one vocabulary per field."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.term_ids = array("i")
        self.tfs = array("i")
        self.lengths = array("i")

    def add(self, terms: TermVector) -> None:
        vocab = self.vocab
        self.term_ids.extend([vocab.setdefault(t, len(vocab)) for t in terms])
        self.tfs.extend([int(v["term_freq"]) for v in terms.values()])
        self.lengths.append(len(terms))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.frombuffer(self.term_ids, dtype=np.int32),
                np.frombuffer(self.tfs, dtype=np.int32),
                np.frombuffer(self.lengths, dtype=np.int32))

    def terms(self) -> list[str]:
        return list(self.vocab)  # insertion order is id order


# --- Reading ---------------------------------------------------------------------------

Vectors = list[dict[str, TermVector] | None]


def iter_vectors(
    cluster: Cluster, index: str, fields: Sequence[str], pages: Iterable[Sequence[DocRef]]
) -> Iterator[tuple[Sequence[DocRef], Vectors]]:
    """Each batch of the listed documents with its term vectors, in order.

    Requests run on a small thread pool, WORKERS in flight, so the engine analyses the next
    batches while the caller counts the previous one. The pages' scroll (if any) is cleared
    at the end whatever happens.
    """
    try:
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            pending: deque[tuple[Sequence[DocRef], Future[Vectors]]] = deque()
            for page in pages:
                for batch in chunked(page, TV_BATCH):
                    pending.append((batch, pool.submit(term_vectors, cluster, index, batch,
                                                       fields)))
                    if len(pending) > WORKERS:
                        batch_done, future = pending.popleft()
                        yield batch_done, future.result()
            while pending:
                batch_done, future = pending.popleft()
                yield batch_done, future.result()
    finally:
        close = getattr(pages, "close", None)
        if close is not None:
            close()  # a scroll is cleared now, not when a traceback lets go of it


def add_rows(acc: dict[str, Entries], fields: Sequence[str], docs: Vectors) -> int:
    """One row per document and field (empty when it has no tokens there); returns how many
    documents had vanished since they were listed (None: not added)."""
    gone = 0
    empty: TermVector = {}
    for doc in docs:
        if doc is None:
            gone += 1
            continue
        for f in fields:
            acc[f].add(doc.get(f, empty))
    return gone


def read_entries(
    cluster: Cluster,
    index: str,
    fields: Sequence[str],
    pages: Iterable[Sequence[DocRef]],
    advance: Advance,
    acc: dict[str, Entries] | None = None,
) -> tuple[dict[str, Entries], int]:
    """Term vectors of every listed document, one row per document and field; also how many
    documents had vanished since listed."""
    acc = acc if acc is not None else {f: Entries() for f in fields}
    gone = 0
    for batch, docs in iter_vectors(cluster, index, fields, pages):
        gone += add_rows(acc, fields, docs)
        advance(len(batch))
    return acc, gone
