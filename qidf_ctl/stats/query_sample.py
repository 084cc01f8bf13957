"""Statistics of an unlabeled sample of real queries (``predict --queries FILE``).

A corpus of docstrings looks like prose; whether it is searched with code (where q-log
gains) or with prose (where BM25 is right) shows only in the queries. A query log, with no
relevance labels, is enough: the same file formats ``qidf eval`` reads (BEIR JSONL or
``qid<TAB>text``), a seeded sample of at most ``QUERY_SAMPLE`` of them.

Raw-text shape (``text_shape``) needs nothing from the cluster. The analysed side (each
query through the field's analyzer, each distinct term's df in the index) is measured on at
most ``ANALYSED_QUERIES`` of them: how long queries are in tokens, and how many of their
tokens are df = 1 terms of the field.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.files import read_queries
from qidf_ctl.stats.read import engine_df
from qidf_ctl.stats.text_shape import TextShape, text_shape

QUERY_SAMPLE = 1000
ANALYSED_QUERIES = 200

DEFINITIONS: dict[str, tuple[str, str]] = {
    "query_tokens": ("mean query length", "analysed tokens per query"),
    "query_hapax_share": ("query hapax token share",
                          "share of analysed query tokens whose term has df = 1 in the field"),
    "query_unseen_share": ("query unseen token share",
                           "share of analysed query tokens the field does not hold (df = 0)"),
}


@dataclass(frozen=True)
class QuerySample:
    """What a sample of queries looks like, raw and (optionally) analysed."""

    source: str
    queries_in_file: int
    shape: TextShape
    texts: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    analysed: int = 0
    query_tokens: float = math.nan
    query_hapax_share: float = math.nan
    query_unseen_share: float = math.nan
    measured: dict[str, Any] | None = None  # a predictor's measurement on the index

    def as_dict(self) -> dict[str, object]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("shape", "texts")}
        return {**out, "shape": self.shape.as_dict()}


def sample_ids(queries: Mapping[str, str], size: int = QUERY_SAMPLE, seed: int = 0
               ) -> list[str]:
    """The ids of a seeded sample of the queries (all of them when fewer), in file order."""
    ids = list(queries)
    if len(ids) > size:
        keep = set(random.Random(seed).sample(ids, size))
        ids = [i for i in ids if i in keep]
    return ids


def sample_texts(queries: Mapping[str, str], size: int, seed: int) -> list[str]:
    return [queries[i] for i in sample_ids(queries, size, seed)]


def query_sample(path: str | Path, size: int = QUERY_SAMPLE, seed: int = 0) -> QuerySample:
    """The raw-text shape of a seeded sample of the queries in ``path``."""
    return from_texts(read_queries(path), str(path), size, seed)


def from_texts(queries: Mapping[str, str], source: str, size: int = QUERY_SAMPLE,
               seed: int = 0) -> QuerySample:
    """The raw-text shape of a seeded sample of ``queries`` (id -> text)."""
    texts = sample_texts(queries, size, seed)
    return QuerySample(source, len(queries), text_shape(texts), tuple(texts))


def analysed_shares(counts: list[Counter[str]], df: Mapping[str, int]
                    ) -> dict[str, float]:
    """Mean query length in tokens, and the shares of query tokens with df = 1 and df = 0
    (``counts``: each query's analysed token counts; ``df``: every term's df)."""
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    tokens = sum(total.values())
    hapax = sum(n for t, n in total.items() if df.get(t, 0) == 1)
    unseen = sum(n for t, n in total.items() if df.get(t, 0) == 0)
    return {"query_tokens": tokens / len(counts) if counts else math.nan,
            "query_hapax_share": hapax / tokens if tokens else math.nan,
            "query_unseen_share": unseen / tokens if tokens else math.nan}


def with_analysis(sample: QuerySample, cluster: Cluster, index: str, field: str,
                  shards: int) -> QuerySample:
    """Add the analysed statistics: the first ANALYSED_QUERIES sampled texts through the
    field's analyzer, each distinct term's df looked up in the index."""
    from qidf_ctl.evaluation.queries import analyze

    counts = [analyze(cluster, index, field, t) for t in sample.texts[:ANALYSED_QUERIES]]
    terms = sorted({t for c in counts for t in c})
    df = dict(zip(terms, (int(x) for x in engine_df(cluster, index, field, terms, shards)),
                  strict=True)) if terms else {}
    shares = analysed_shares(counts, df)
    return dataclasses.replace(sample, analysed=len(counts),
                               query_tokens=shares["query_tokens"],
                               query_hapax_share=shares["query_hapax_share"],
                               query_unseen_share=shares["query_unseen_share"])
