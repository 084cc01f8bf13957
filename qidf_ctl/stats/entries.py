"""Reading term vectors from the cluster into flat (term id, tf) arrays, one per field."""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from qidf_ctl.cluster import Cluster
from qidf_ctl.progress import Advance
from qidf_ctl.stats.read import DocRef, TermVector, chunked, term_vectors

TV_BATCH = 250  # documents per _mtermvectors request
WORKERS = 2  # requests in flight while the previous answer is being counted


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


def read_entries(
    cluster: Cluster,
    index: str,
    fields: Sequence[str],
    pages: Iterable[Sequence[DocRef]],
    advance: Advance,
    acc: dict[str, Entries] | None = None,
) -> tuple[dict[str, Entries], int]:
    """Term vectors of every listed document, one row per document and field (empty when the
    document has no tokens there); also how many documents had vanished since listed.

    Requests run on a small thread pool so the engine analyses the next batch while this
    thread counts the previous one.
    """
    acc = acc if acc is not None else {f: Entries() for f in fields}
    gone = 0
    empty: TermVector = {}

    def consume(future: Future[list[dict[str, TermVector] | None]]) -> None:
        nonlocal gone
        docs = future.result()
        for doc in docs:
            if doc is None:
                gone += 1
                continue
            for f in fields:
                acc[f].add(doc.get(f, empty))
        advance(len(docs))

    try:
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            pending: deque[Future[list[dict[str, TermVector] | None]]] = deque()
            for page in pages:
                for batch in chunked(page, TV_BATCH):
                    pending.append(pool.submit(term_vectors, cluster, index, batch, fields))
                    if len(pending) > WORKERS:
                        consume(pending.popleft())
            while pending:
                consume(pending.popleft())
    finally:
        close = getattr(pages, "close", None)
        if close is not None:
            close()  # a scroll is cleared now, not when a traceback lets go of it
    return acc, gone
