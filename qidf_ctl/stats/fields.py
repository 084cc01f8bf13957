"""One text field's statistics, from an exact pass or from a sample."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import QidfError
from qidf_ctl.progress import BarFactory
from qidf_ctl.stats.densities import DocCounts, densities, per_doc, term_totals
from qidf_ctl.stats.design import Stratified
from qidf_ctl.stats.entries import Entries
from qidf_ctl.stats.facts import IndexFacts
from qidf_ctl.stats.hapax_terms import HapaxTerms, hapax_terms
from qidf_ctl.stats.histogram import DfBin, histogram
from qidf_ctl.stats.read import FieldTotals, engine_df, field_totals, live_df
from qidf_ctl.stats.text_shape import TextShape


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
    # Shape of the df = 1 terms, and of the raw text of a sample of documents (text_shape).
    hapax_terms: HapaxTerms | None = None
    source_shape: TextShape | None = None
    counts: DocCounts | Stratified | None = dataclasses.field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "counts"}
        out["df_histogram"] = [b.__dict__ for b in self.df_histogram]
        out["hapax_terms"] = self.hapax_terms.__dict__ if self.hapax_terms else None
        out["source_shape"] = self.source_shape.as_dict() if self.source_shape else None
        out["engine"] = self.engine.__dict__ if self.engine else None
        out["intervals"] = {k: list(v) for k, v in self.intervals.items()}
        return finite(out)


def finite(value: Any) -> Any:
    """NaN and inf become None, so --json output is strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


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


def exact_field(
    cluster: Cluster, facts: IndexFacts, f: str, entries: Entries, bar: BarFactory
) -> FieldStats:
    term_ids, tfs, lengths = entries.arrays()
    vocabulary = len(entries.vocab)
    df, ttf = term_totals(term_ids, tfs, vocabulary)
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
        warnings=warnings, counts=counts, hapax_terms=hapax_terms(entries.terms(), df),
    )


def sampled_field(
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
    term_weight = np.zeros(len(words))
    term_weight[term_ids] = entry_weight  # a df = 1 term sits in one sampled document
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
        hapax_terms=hapax_terms(words, df, term_weight, seed=seed),
    )
