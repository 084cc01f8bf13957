"""``QueryTime``: text in, q-log query out, for an index that keeps built-in BM25.

One query costs one ``_analyze`` (the field's own analyzer, as everywhere in qidf), one
statistics request for the tokens the cache does not hold, and the search itself. Where
``_analyze`` is not allowed (it is an admin action, outside the read privilege), the tokens
come from ``_termvectors`` on an artificial document holding the text: the same index
analyzer, through a read action.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.cluster.index import artificial_termvectors
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.evaluation.queries import MAX_CLAUSES, analyze
from qidf_ctl.formula import IdfForm, validate_q
from qidf_ctl.querytime import statistics
from qidf_ctl.querytime.boosts import BM25, Base, ratios
from qidf_ctl.querytime.boosts import boosts as term_boosts
from qidf_ctl.querytime.cache import DfCache
from qidf_ctl.querytime.query import boosted_query
from qidf_ctl.querytime.statistics import INDEX, SHARD, TermStats
from qidf_ctl.querytime.target import Target, inspect
from qidf_ctl.similarity.params import form_note

DFS = "dfs_query_then_fetch"
AS_IS = "as-is"  # the scope of a query that ranks as the field does: no statistics read
STATS_CHOICES = ("auto", SHARD, INDEX)


@dataclass(frozen=True)
class QlogQuery:
    """One query: the body to send, how to send it, and the numbers behind its boosts."""

    index: str
    field: str
    q: float
    form: str
    scope: str  # "shard:K" or "index"
    search_type: str | None  # dfs_query_then_fetch when the statistics are index-wide
    query: dict[str, Any]
    tokens: dict[str, int]
    statistics: TermStats
    boosts: dict[str, float] = dataclasses.field(repr=False)

    def body(self, size: int = 10, **extra: Any) -> dict[str, Any]:
        return {"query": self.query, "size": size, **extra}

    def params(self) -> dict[str, str]:
        return {"search_type": self.search_type} if self.search_type else {}

    def as_dict(self) -> dict[str, Any]:
        """Everything an application needs to send the same request itself."""
        return {"index": self.index, "field": self.field, "q": self.q, "form": self.form,
                "statistics": {"scope": self.scope, "doc_count": self.statistics.doc_count,
                               "df": self.statistics.df},
                "search_params": self.params(), "query": self.query}


class QueryTime:
    """Builds q-log queries for one index and field; holds the df cache between queries.

    ``stats``: ``shard`` reads one shard's statistics (exact on a one-shard index, where
    default search scores with them), ``index`` reads index-wide ones and asks for
    ``dfs_query_then_fetch`` (exact on several shards), ``auto`` picks ``shard`` for one shard
    and ``index`` otherwise. Use ``connect`` to read the index first.
    """

    def __init__(self, cluster: Cluster, target: Target, q: float, *,
                 form: IdfForm | str = IdfForm.LUCENE, stats: str = "auto", shard: int = 0,
                 cache: DfCache | None = None, max_clauses: int = MAX_CLAUSES) -> None:
        if stats not in STATS_CHOICES:
            raise UsageError(f"stats must be one of {', '.join(STATS_CHOICES)}, got {stats!r}")
        if not 0 <= shard < max(target.shards, 1):
            raise UsageError(f"shard must be in 0..{target.shards - 1}, got {shard}")
        self.cluster = cluster
        self.target = target
        self.q = validate_q(q)
        self.form = IdfForm(form)
        self.scope = stats if stats != "auto" else (SHARD if target.shards == 1 else INDEX)
        self.shard = shard
        self.cache = cache if cache is not None else DfCache()
        self.max_clauses = max_clauses
        self._analyze_allowed = True

    @classmethod
    def connect(cls, cluster: Cluster, index: str, q: float, field_name: str | None = None,
                **options: Any) -> QueryTime:
        return cls(cluster, inspect(cluster, index, field_name), q, **options)

    @property
    def search_type(self) -> str | None:
        return DFS if self.scope == INDEX and self.target.shards > 1 else None

    def _key(self) -> tuple[str, str, str]:
        scope = statistics.shard_scope(self.shard) if self.scope == SHARD else INDEX
        return (self.target.index, self.target.field, scope)

    def _fetch(self, terms: Sequence[str]) -> TermStats:
        t = self.target
        if self.scope == SHARD:
            try:
                return statistics.shard_statistics(self.cluster, t.index, t.field, terms,
                                                   self.shard)
            except ClusterError as exc:
                if not _refused(exc):
                    raise
                # No _termvectors here (a proxy or a service that does not offer it): the
                # index-wide statistics are the same on one shard once deletes are merged.
                self.scope = INDEX
        return statistics.index_statistics(self.cluster, t.index, t.field, terms)

    def statistics(self, terms: Sequence[str]) -> TermStats:
        """df of ``terms`` and N, from the cache where fresh."""
        return self.cache.lookup(self._key(), terms, self._fetch)

    def tokens(self, text: str) -> Counter[str]:
        """The text's tokens under the field's analyzer, with repeat counts."""
        t = self.target
        if self._analyze_allowed:
            try:
                return analyze(self.cluster, t.index, t.field, text)
            except ClusterError as exc:
                if exc.status != 403:
                    raise
                self._analyze_allowed = False
        return _termvector_tokens(self.cluster, t.index, t.field, text)

    def build(self, text: str, *, q: float | None = None,
              minimum_should_match: int | str | None = None,
              filters: Sequence[Mapping[str, Any]] = ()) -> QlogQuery:
        """The q-log query for ``text`` (``q`` overrides the builder's for this query)."""
        return self.from_tokens(self.tokens(text), q=q,
                                minimum_should_match=minimum_should_match, filters=filters)

    def from_tokens(self, counts: Counter[str], *, q: float | None = None,
                    minimum_should_match: int | str | None = None,
                    filters: Sequence[Mapping[str, Any]] = ()) -> QlogQuery:
        """The q-log query for tokens already analysed (evaluation analyses once)."""
        q_ = self.q if q is None else validate_q(q)
        if (q_, self.form) == self.base:  # as the field ranks: every ratio 1, nothing to read
            stats = TermStats(0, {}, AS_IS)
        else:
            stats = self.statistics(list(counts))
        return self._query(counts, stats, q_, None, minimum_should_match, filters)

    @property
    def base(self) -> Base:
        """The q and form the field scores with as it is (BM25: q 1, lucene)."""
        b = self.target.base
        return BM25 if b is None else (b.q, b.form)

    def _query(self, counts: Counter[str], stats: TermStats, q: float,
               ratio: Mapping[str, float] | None,
               minimum_should_match: int | str | None = None,
               filters: Sequence[Mapping[str, Any]] = ()) -> QlogQuery:
        boosts = term_boosts(counts, stats, q, self.form, ratio, self.base)
        query = boosted_query(self.target.field, counts, boosts, max_clauses=self.max_clauses,
                              minimum_should_match=minimum_should_match, filters=filters)
        return QlogQuery(self.target.index, self.target.field, q, self.form.value,
                         stats.scope, self.search_type, query, dict(counts), stats, boosts)

    def queries(self, terms: Mapping[str, Counter[str]], q: float | None = None
                ) -> dict[str, dict[str, Any]]:
        """Query bodies of many analysed queries at one q, by query id. The statistics of
        every distinct token are read first in as few requests as possible (they do not
        depend on q, so a sweep reads them once)."""
        q_ = self.q if q is None else validate_q(q)
        stats = self.statistics(list(dict.fromkeys(t for c in terms.values() for t in c)))
        ratio = ratios(stats, q_, self.form, self.base)
        return {qid: self._query(counts, stats, q_, ratio).query
                for qid, counts in terms.items()}

    def describe(self, q: float | None = None) -> str:
        where = ("index-wide statistics" if self.scope == INDEX
                 else f"statistics of shard {self.shard}")
        return (f"q-log BM25 q={self.q if q is None else q:g}{form_note(self.form)} at query "
                f"time ({where}) over {self.target.similarity}")

    def search(self, built: QlogQuery, size: int = 10,
               source: bool | Sequence[str] = False) -> list[dict[str, Any]]:
        """Send ``built`` and return the hits as the engine gives them."""
        body = built.body(size, _source=source if isinstance(source, bool) else list(source))
        resp = self.cluster.request("POST", index_path(built.index, "_search"), body,
                                    built.params() or None)
        return list(resp["hits"]["hits"])


def _refused(exc: ClusterError) -> bool:
    """The cluster does not offer or allow this API (rather than failing at it)."""
    text = str(exc).lower()
    return exc.status in (403, 405) or "no handler found" in text or (
        exc.status in (400, 404) and "unrecognized" in text)


def _termvector_tokens(cluster: Cluster, index: str, field_name: str, text: str) -> Counter[str]:
    """Token counts of ``text`` under the field's index analyzer, through ``_termvectors``
    on an artificial document (a read action, where ``_analyze`` is refused), in first-seen
    order like ``_analyze``'s, so that both give the same query body."""
    body = {"doc": {field_name: text}, "fields": [field_name], "term_statistics": False,
            "field_statistics": False, "positions": True, "offsets": False,
            "payloads": False}
    resp = artificial_termvectors(cluster, index, body)
    terms = ((resp.get("term_vectors") or {}).get(field_name) or {}).get("terms") or {}
    first = {t: min((tok.get("position", 0) for tok in v.get("tokens") or []), default=0)
             for t, v in terms.items()}
    return Counter({t: int(terms[t]["term_freq"]) for t in sorted(terms, key=first.__getitem__)})
