"""Corpus statistics of a text field, read from a running cluster: exact or sampled.

The predictor needs the corpus's hapax density, so this module answers one question: which
share of the field's material has df = 1? Both modes read each document's terms with term
vectors (the field's own analyzer, nothing re-implemented here) and judge df index-wide:

- exact (default up to EXACT_LIMIT documents): every live document once; df is counted
  across all of them, so it is index-wide whatever the number of shards.
- sampled: the longest documents in full plus a seeded uniform sample of the rest (why:
  ``stats_sample``); the df of every term the sample contains is looked up in the whole
  index (a term rare in the sample may be common there), and a bootstrap over the sampled
  documents gives a 95% interval on each density.

df and N count live documents: what BM25 sees with one shard or dfs_query_then_fetch once
deleted documents are merged away. Until then Lucene's statistics also count deleted
documents; when the index holds some, the densities under the engine's current df are
reported beside (``engine_densities``). Plain query_then_fetch on several shards scores with
each shard's own df, which no single corpus statistic describes.
"""

from __future__ import annotations

import dataclasses
import math
import time
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .analyzer_probe import split_styles
from .cluster import Cluster
from .errors import ClusterError, QidfError, UsageError
from .progress import Advance, BarFactory, no_bar
from .stats_read import (
    DocRef,
    FieldTotals,
    IndexFacts,
    TermVector,
    choose_fields,
    chunked,
    count,
    engine_df,
    field_totals,
    has_field_query,
    live_df,
    longest_docs,
    read_facts,
    scroll_docs,
    term_vectors,
    uniform_docs,
)
from .stats_sample import DENSITIES, DocCounts, Stratified, densities, per_doc, take_all_size

# Exact mode reads every document; above this many it is only run when asked for (--exact).
EXACT_LIMIT = 100_000
DEFAULT_SAMPLE = 5000
TV_BATCH = 250  # documents per _mtermvectors request
WORKERS = 2  # requests in flight while the previous answer is being counted
DF_NOTE = ("df and N count live documents, index-wide (as BM25 with one shard or "
           "dfs_query_then_fetch sees them once deleted documents are merged away)")



@dataclass
class DfBin:
    """Terms whose df falls in [low, high] and the token occurrences they account for."""

    label: str
    low: int
    high: int
    terms: float
    tokens: float


@dataclass
class FieldStats:
    """One text field's statistics; sampled values are estimates for the whole index."""

    field: str
    mode: str
    documents: float  # N: live documents with at least one token in the field
    vocabulary: float
    total_tokens: float
    avg_field_length: float
    df_histogram: list[DfBin]
    densities: dict[str, float]
    documents_without_tokens: float
    intervals: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)
    engine: FieldTotals | None = None
    engine_densities: dict[str, float] | None = None
    deleted_in_statistics: float | None = None  # deleted documents Lucene's docCount holds
    sampled_documents: int | None = None
    take_all: int | None = None  # sampled documents that were the longest, read in full
    warnings: list[str] = dataclasses.field(default_factory=list)
    # Naming styles (camelCase, snake_case) the field's analyzer breaks into words
    # (analyzer_probe); None when not asked.
    splits_identifiers: list[str] | None = None
    counts: DocCounts | Stratified | None = dataclasses.field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "counts"}
        out["df_histogram"] = [b.__dict__ for b in self.df_histogram]
        out["engine"] = self.engine.__dict__ if self.engine else None
        out["intervals"] = {k: list(v) for k, v in self.intervals.items()}
        return _finite(out)


@dataclass
class IndexStats:
    """Statistics of the chosen text fields of one index."""

    name: str
    index: str
    engine: str
    mode: str
    shards: int
    live_documents: int
    deleted_documents: int  # Lucene's count: one per deleted or updated version, one tombstone
    seconds: float          # per delete, until merged away (retention can keep them hours)
    fields: list[FieldStats]
    sample: int | None = None
    seed: int | None = None
    df_counts: str = DF_NOTE
    definitions: dict[str, str] = dataclasses.field(default_factory=lambda: dict(DENSITIES))

    def field(self, name: str) -> FieldStats:
        return next(f for f in self.fields if f.field == name)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "fields"}
        out["fields"] = [f.as_dict() for f in self.fields]
        return out


def _finite(value: Any) -> Any:
    """NaN and inf become None, so --json output is strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# --- Pure pieces (unit-tested without a cluster) -----------------------------------------


def df_bins(max_df: int) -> list[tuple[int, int]]:
    """1, 2, 3-10, 11-100, ... up to the first bin that holds ``max_df``."""
    bins = [(1, 1), (2, 2), (3, 10)]
    while bins[-1][1] < max_df:
        high = bins[-1][1]
        bins.append((high + 1, high * 10))
    return bins


def histogram(df: np.ndarray, terms: np.ndarray, tokens: np.ndarray) -> list[DfBin]:
    """Sum ``terms`` and ``tokens`` weights of items (terms, or sampled entries) by df bin."""
    bins = df_bins(int(df.max()) if len(df) else 1)
    which = np.searchsorted([high for _, high in bins], df)
    term_sums = np.bincount(which, weights=terms, minlength=len(bins))
    token_sums = np.bincount(which, weights=tokens, minlength=len(bins))
    return [DfBin(str(lo) if lo == hi else f"{lo}-{hi}", lo, hi, _num(t), _num(k))
            for (lo, hi), t, k in zip(bins, term_sums, token_sums, strict=True)]


def _num(x: float) -> float:
    """Whole numbers as int (exact counts), others as float (estimates)."""
    return round(x) if abs(x - round(x)) < 1e-6 else float(x)


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


def _check_readable(f: str, n: int, totals: FieldTotals) -> None:
    if n == 0 and totals.doc_count > 0:
        raise QidfError(
            f"term vectors return no terms for field {f!r}, yet the engine indexed it in "
            f"{totals.doc_count} documents: it is probably filled by copy_to or _source is "
            "disabled; map it with term_vector: yes to measure it"
        )


def _engine_densities(counts: DocCounts | Stratified) -> dict[str, float]:
    """Densities when df = 1 is judged by Lucene's docFreq (deleted documents included).

    The vocabulary share is left out: terms that only deleted documents hold are in Lucene's
    term dictionary but in no term vector qidf can read.
    """
    view = counts.densities() if isinstance(counts, Stratified) else densities(counts)
    view["vocab"] = float("nan")
    return view


def _exact_field(
    cluster: Cluster, facts: IndexFacts, f: str, entries: Entries, bar: BarFactory
) -> FieldStats:
    term_ids, tfs, lengths = entries.arrays()
    vocabulary = len(entries.vocab)
    df = np.bincount(term_ids, minlength=vocabulary)
    ttf = np.bincount(term_ids, weights=tfs, minlength=vocabulary)
    counts = per_doc(term_ids, tfs, lengths, df)
    n = int(np.count_nonzero(counts.tokens))
    tokens = int(counts.tokens.sum())
    totals = field_totals(cluster, facts.index, f, facts.shards)
    _check_readable(f, n, totals)
    warnings: list[str] = []
    engine_view = None
    if facts.deleted_in_any_copy:
        hapax_ids = np.flatnonzero(df == 1)
        words = entries.terms()
        with bar(f"{f}: engine df of df = 1 terms", len(hapax_ids)) as advance:
            edf = engine_df(cluster, facts.index, f, [words[i] for i in hapax_ids],
                            facts.shards, advance=advance)
        mask = np.zeros(vocabulary, dtype=bool)
        mask[hapax_ids[edf <= 1]] = True
        engine_view = _engine_densities(per_doc(term_ids, tfs, lengths, df, hapax=mask))
    elif (n, tokens, len(term_ids)) != (totals.doc_count, totals.sum_ttf, totals.sum_doc_freq):
        warnings.append(
            f"the engine's field statistics (docCount {totals.doc_count}, sumTotalTermFreq "
            f"{totals.sum_ttf}) differ from the documents read ({n}, {tokens}): the index "
            "changed during the pass, or a replica is behind its primary"
        )
    return FieldStats(
        field=f, mode="exact", documents=n, vocabulary=vocabulary, total_tokens=tokens,
        avg_field_length=tokens / n if n else float("nan"),
        df_histogram=histogram(df, np.ones(vocabulary), ttf),
        densities=densities(counts, vocabulary=vocabulary),
        documents_without_tokens=facts.live_documents - n,
        engine=totals, engine_densities=engine_view, deleted_in_statistics=totals.doc_count - n,
        warnings=warnings, counts=counts,
    )


def _sampled_field(
    cluster: Cluster, facts: IndexFacts, f: str, entries: Entries, take_all_rows: int,
    rest_size: int, seed: int, bar: BarFactory,
) -> FieldStats:
    term_ids, tfs, lengths = entries.arrays()
    words = entries.terms()
    sample_df = np.bincount(term_ids, minlength=len(words))
    totals = field_totals(cluster, facts.index, f, facts.shards)
    _check_readable(f, int(np.count_nonzero(lengths)), totals)
    warnings: list[str] = []
    with bar(f"{f}: index-wide df of {len(words)} sampled terms", len(words)) as advance:
        if facts.deleted_in_any_copy:  # Lucene's docFreq counts deleted ones: count live ones
            edf = engine_df(cluster, facts.index, f, words, facts.shards)
            df = live_df(cluster, facts.index, f, words, advance=advance)
        else:
            df = edf = engine_df(cluster, facts.index, f, words, facts.shards, advance=advance)
    behind = int(np.count_nonzero(df < sample_df))
    if behind:
        warnings.append(f"{behind} sampled terms have a smaller index-wide df than in the "
                        "sample (index changed during the run?): their sample df was used")
        df = np.maximum(df, sample_df)

    def design(counts: DocCounts) -> Stratified:
        return Stratified(counts.take(slice(0, take_all_rows)),
                          counts.take(slice(take_all_rows, None)), rest_size)

    sampled = design(per_doc(term_ids, tfs, lengths, df))
    estimated = sampled.totals()
    engine_view = None
    if facts.deleted_in_any_copy:
        documents, total_tokens = float(estimated[5]), float(estimated[0])
        engine_view = _engine_densities(design(per_doc(term_ids, tfs, lengths, df,
                                                       hapax=(df == 1) & (edf <= 1))))
    else:
        documents, total_tokens = totals.doc_count, totals.sum_ttf
    doc_weight = np.where(np.arange(len(lengths)) < take_all_rows, 1.0, sampled.weight)
    entry_weight = np.repeat(doc_weight, lengths)
    entry_df = df[term_ids]
    return FieldStats(
        field=f, mode="sampled", documents=documents, vocabulary=float(estimated[3]),
        total_tokens=total_tokens,
        avg_field_length=total_tokens / documents if documents else float("nan"),
        df_histogram=histogram(entry_df, entry_weight / entry_df, entry_weight * tfs),
        densities=sampled.densities(), intervals=sampled.intervals(seed=seed),
        documents_without_tokens=facts.live_documents - documents,
        engine=totals, engine_densities=engine_view, sampled_documents=len(lengths),
        deleted_in_statistics=totals.doc_count - documents,
        warnings=warnings, counts=sampled, take_all=take_all_rows,
    )


def _read_sample(
    cluster: Cluster, facts: IndexFacts, fields: Sequence[str], query: dict[str, Any],
    with_fields: int, size: int, seed: int, bar: BarFactory,
) -> tuple[dict[str, Entries], int, int, int, list[str]]:
    """Read the take-all stratum (the longest documents), then a uniform sample of the rest.

    Returns the entries, rows in the take-all stratum, size of the rest, vanished documents,
    warnings.
    """
    warnings: list[str] = []
    k = take_all_size(size)
    try:
        longest = longest_docs(cluster, facts.index, query,
                               [facts.source_paths[f] for f in fields], k)
    except ClusterError as exc:
        longest = []
        warnings.append(f"could not rank documents by length ({exc}): the sample is plain "
                        "uniform, and its interval may be too narrow if a few very long "
                        "documents hold much of the df = 1 material")
    with bar(f"reading {facts.index} (sample of {size})", size) as advance:
        acc, gone = read_entries(cluster, facts.index, fields, [longest], advance)
        take_all_rows = len(acc[fields[0]].lengths)
        rest = with_fields - len(longest)
        pages = uniform_docs(cluster, facts.index, query, size - len(longest), seed,
                             exclude=longest) if size > len(longest) else []
        acc, gone_rest = read_entries(cluster, facts.index, fields, pages, advance, acc)
    return acc, take_all_rows, rest, gone + gone_rest, warnings


def index_stats(
    cluster: Cluster,
    name: str,
    *,
    field: str | None = None,
    sample: int | None = None,
    seed: int = 0,
    exact: bool = False,
    bar: BarFactory = no_bar,
) -> IndexStats:
    """Statistics of ``field`` (default: every text field) of an index or alias to one index.

    Exact unless ``sample`` is given or the index holds more than ``EXACT_LIMIT`` documents
    (then a sample of ``DEFAULT_SAMPLE``); ``exact=True`` forces a full pass.
    """
    if sample is not None and exact:
        raise UsageError("--sample and --exact exclude each other: pick one")
    if sample is not None and sample < 1:
        raise UsageError(f"--sample must be at least 1, got {sample}")
    started = time.monotonic()
    facts = read_facts(cluster, name)
    fields = choose_fields(facts, field)
    if facts.live_documents == 0:
        raise QidfError(f"index {facts.index!r} has no documents: nothing to measure")
    query = has_field_query(fields)
    with_fields = count(cluster, facts.index, query)
    if with_fields == 0:
        raise QidfError(f"no document of {facts.index!r} has a value in "
                        f"{' or '.join(fields)}: nothing to measure")
    if sample is None and (exact or facts.live_documents <= EXACT_LIMIT):
        with bar(f"reading {facts.index} (exact)", with_fields) as advance:
            acc, gone = read_entries(cluster, facts.index, fields,
                                     scroll_docs(cluster, facts.index, query), advance)
        results = [_exact_field(cluster, facts, f, acc[f], bar) for f in fields]
        mode, sample_size, used_seed = "exact", None, None
    else:
        sample_size = min(sample or DEFAULT_SAMPLE, with_fields)
        acc, take_all_rows, rest, gone, notes = _read_sample(
            cluster, facts, fields, query, with_fields, sample_size, seed, bar)
        results = [_sampled_field(cluster, facts, f, acc[f], take_all_rows, rest, seed, bar)
                   for f in fields]
        for r in results:
            r.warnings.extend(notes)
        mode, used_seed = "sampled", seed
    if gone:
        for r in results:
            r.warnings.append(f"{gone} documents were deleted while qidf read the index")
    for r in results:
        try:
            r.splits_identifiers = split_styles(cluster, facts.index, r.field)
        except ClusterError as exc:
            if exc.status not in (401, 403):
                raise
            r.warnings.append("not allowed to call _analyze, so whether the analyzer splits "
                              "identifiers is unknown; predictors assume it does not")
    return IndexStats(
        name=name, index=facts.index, engine=str(cluster.engine), mode=mode,
        shards=facts.shards, live_documents=facts.live_documents,
        deleted_documents=facts.deleted_documents, seconds=time.monotonic() - started,
        fields=results, sample=sample_size, seed=used_seed,
    )
