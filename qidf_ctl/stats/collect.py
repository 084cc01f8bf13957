"""``index_stats``: statistics of an index's text fields, exact or sampled.

Both modes read each document's terms with term vectors (the field's own analyzer, nothing
re-implemented here) and judge df index-wide:

- exact (default up to EXACT_LIMIT documents): every live document once; df is counted
  across all of them, so it is index-wide whatever the number of shards.
- sampled: the longest documents in full plus a seeded uniform sample of the rest (why:
  ``design``); the df of every term the sample contains is looked up in the whole index (a
  term rare in the sample may be common there), and a bootstrap over the sampled documents
  gives a 95% interval on each density.

df and N count live documents: what BM25 sees with one shard or dfs_query_then_fetch once
deleted documents are merged away. Until then Lucene's statistics also count deleted
documents; when the index holds some, the densities under the engine's current df are
reported beside (``engine_densities``). Plain query_then_fetch on several shards scores with
each shard's own df, which no single corpus statistic describes.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError, QidfError, UsageError
from qidf_ctl.progress import BarFactory, no_bar
from qidf_ctl.stats.analyzer_probe import split_styles
from qidf_ctl.stats.densities import DENSITIES
from qidf_ctl.stats.design import take_all_size
from qidf_ctl.stats.entries import Entries, add_rows, iter_vectors, read_entries
from qidf_ctl.stats.facts import IndexFacts, read_facts
from qidf_ctl.stats.fields import FieldStats, exact_field, sampled_field
from qidf_ctl.stats.read import (
    TermVector,
    count,
    has_field_query,
    longest_docs,
    scroll_docs,
    uniform_docs,
)
from qidf_ctl.stats.source_sample import source_texts
from qidf_ctl.stats.text_shape import text_shape

# Exact mode reads every document; above this many it is only run when asked for (--exact).
EXACT_LIMIT = 100_000
DEFAULT_SAMPLE = 5000
# Documents of the seeded uniform order read beyond the sample's need, in case some of the
# longest documents come early in it (on average k / N of them do).
READ_AHEAD = 50
DF_NOTE = ("df and N count live documents, index-wide (as BM25 with one shard or "
           "dfs_query_then_fetch sees them once deleted documents are merged away)")


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


def _read_sample(
    cluster: Cluster, facts: IndexFacts, fields: Sequence[str], query: dict[str, Any],
    with_fields: int, size: int, seed: int, bar: BarFactory,
) -> tuple[dict[str, Entries], int, int, int, list[str]]:
    """Read the take-all stratum (the longest documents), then a uniform sample of the rest.

    Ranking every document by length is one pass over all of them inside the engine (it
    reads each ``_source``): the longest part of a sampled run on a large index. The uniform
    part does not need its result to start: the seeded random order of all documents is
    drawn and read meanwhile, and the sample is its first ``size - k`` documents that are not
    among the ``k`` longest, the same documents as drawing from the rest directly.

    Returns the entries, rows in the take-all stratum, size of the rest, vanished documents,
    warnings.
    """
    warnings: list[str] = []
    k = take_all_size(size)
    paths = [facts.source_path(f) for f in fields]
    read: dict[str, dict[str, TermVector] | None] = {}  # id -> term vectors (None: gone)
    with bar(f"reading {facts.index} (sample of {size})", size) as advance, \
            ThreadPoolExecutor(max_workers=1) as background:
        ranking = background.submit(longest_docs, cluster, facts.index, query, paths, k)
        ahead = [d for page in uniform_docs(cluster, facts.index, query, size - k + READ_AHEAD,
                                            seed) for d in page]
        for batch, docs in iter_vectors(cluster, facts.index, fields, [ahead]):
            read.update((d.id, v) for d, v in zip(batch, docs, strict=True))
        try:
            longest = ranking.result()
        except ClusterError as exc:
            longest = []
            warnings.append(f"could not rank documents by length ({exc}): the sample is plain "
                            "uniform, and its interval may be too narrow if a few very long "
                            "documents hold much of the df = 1 material")
        acc, gone = read_entries(cluster, facts.index, fields, [longest], advance)
        take_all_rows = len(acc[fields[0]].lengths)
        want = size - len(longest)
        skip = {d.id for d in longest}
        chosen = [d for d in ahead if d.id not in skip][:want]
        if len(chosen) < want and len(ahead) == size - k + READ_AHEAD:
            # Not enough read ahead (more of the longest drawn than the margin, or no
            # ranking): the order goes on past what was read.
            chosen = [d for page in uniform_docs(cluster, facts.index, query, want, seed,
                                                 exclude=longest) for d in page]
        missing = [d for d in chosen if d.id not in read]
        for batch, docs in iter_vectors(cluster, facts.index, fields, [missing]):
            read.update((d.id, v) for d, v in zip(batch, docs, strict=True))
        gone += add_rows(acc, fields, [read[d.id] for d in chosen])
        advance(len(chosen))
    return acc, take_all_rows, with_fields - len(longest), gone, warnings


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
    fields = facts.description.measured_fields(field)
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
        results = [exact_field(cluster, facts, f, acc[f], bar) for f in fields]
        mode, sample_size, used_seed = "exact", None, None
    else:
        sample_size = min(sample or DEFAULT_SAMPLE, with_fields)
        acc, take_all_rows, rest, gone, notes = _read_sample(
            cluster, facts, fields, query, with_fields, sample_size, seed, bar)
        results = [sampled_field(cluster, facts, f, acc[f], take_all_rows, rest, seed, bar)
                   for f in fields]
        for r in results:
            r.warnings.extend(notes)
        mode, used_seed = "sampled", seed
    if gone:
        for r in results:
            r.warnings.append(f"{gone} documents were deleted while qidf read the index")
    for r in results:
        r.source_shape = text_shape(source_texts(cluster, facts.index,
                                                 facts.source_path(r.field), query, seed=seed))
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
