"""Several text fields in one query, each with its own q: what ``multi_match`` does with match
queries, done with q-log queries.

Each field gets the query ``QueryTime`` builds for it alone (its analyzer, its df and N, its
q, rescaled from whatever the field already scores with), and the fields' queries are
combined as ``multi_match`` combines its per-field match queries: ``best_fields`` (a
``dis_max``: the best field's score, plus ``tie_breaker`` times the others') or
``most_fields`` (a ``bool`` of them: the sum). A field left without a q of its own ranks as
it is (its installed q-log, or BM25): its boosts are all 1, so its part is the plain query
``multi_match`` would send. One field gives that field's query alone, unwrapped.

    from qidf_ctl.querytime.fields import FieldsQueryTime
    ft = FieldsQueryTime.connect(cluster, "code-search", ["code", "doc"], {"code": 0.3})
    built = ft.build("func (h *Header) FileInfo() fs.FileInfo")
    hits = ft.search(built, size=10)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index, index_path
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.formula import IdfForm, validate_q
from qidf_ctl.querytime.builder import QlogQuery, QueryTime
from qidf_ctl.querytime.cache import DfCache
from qidf_ctl.querytime.target import Target, inspect, target_of

BEST, MOST = "best_fields", "most_fields"
COMBINE = (BEST, MOST)


@dataclass(frozen=True)
class FieldsQuery:
    """One query over several fields: the body to send, and each field's part."""

    index: str
    parts: list[QlogQuery]
    query: dict[str, Any]
    combine: str

    @property
    def fields(self) -> list[str]:
        return [p.field for p in self.parts]

    @property
    def search_type(self) -> str | None:
        return next((p.search_type for p in self.parts if p.search_type), None)

    def params(self) -> dict[str, str]:
        return {"search_type": self.search_type} if self.search_type else {}

    def body(self, size: int = 10, **extra: Any) -> dict[str, Any]:
        return {"query": self.query, "size": size, **extra}

    def as_dict(self) -> dict[str, Any]:
        """What an application needs to send the same request, and each field's numbers."""
        return {"index": self.index, "fields": self.fields, "combine": self.combine,
                "q": {p.field: p.q for p in self.parts},
                "parts": [{k: v for k, v in p.as_dict().items() if k != "query"}
                          for p in self.parts],
                "search_params": self.params(), "query": self.query}


def combine(parts: Sequence[dict[str, Any]], how: str = BEST,
            tie_breaker: float = 0.0) -> dict[str, Any]:
    """The fields' queries as ``multi_match`` would join them (one part: itself)."""
    if how not in COMBINE:
        raise UsageError(f"the fields combine as {' or '.join(COMBINE)}, got {how!r}")
    if len(parts) == 1:
        return dict(parts[0])
    if how == MOST:
        return {"bool": {"should": list(parts)}}
    return {"dis_max": {"queries": list(parts), "tie_breaker": tie_breaker}}


def text_fields(cluster: Cluster, index: str) -> list[str]:
    """Every text field of ``index`` (the mapping, or ``_field_caps`` with read privileges
    only), in mapping order."""
    try:
        return describe_index(cluster, index, read_status=False).text_fields
    except ClusterError as exc:
        if exc.status != 403:
            raise
    caps = cluster.request("GET", index_path(index, "_field_caps"), params={"fields": "*"})
    return sorted(name for name, kinds in caps.get("fields", {}).items()
                  if any(k in ("text", "match_only_text") for k in kinds))


def parse_field_qs(text: str, fields: Sequence[str]) -> dict[str, float]:
    """``code=0.3,doc=1`` -> {"code": 0.3, "doc": 1.0}; every field one of ``fields``."""
    found: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--q takes a number, auto, or FIELD=Q pairs (code=0.3,doc=1), "
                             f"got {text!r}")
        if name not in fields:
            raise UsageError(f"--q names field {name!r}, which is not searched here (fields: "
                             f"{', '.join(fields)})")
        found[name] = validate_q(value.strip())
    return found


class FieldsQueryTime:
    """One ``QueryTime`` per field, each at its own q, sharing one df cache."""

    def __init__(self, builders: Mapping[str, QueryTime], how: str = BEST,
                 tie_breaker: float = 0.0) -> None:
        if not builders:
            raise UsageError("search at least one field")
        combine([{}], how)  # checks how
        self.builders = dict(builders)
        self.how = how
        self.tie_breaker = tie_breaker

    @classmethod
    def connect(cls, cluster: Cluster, index: str, fields: Sequence[str] | None = None,
                qs: Mapping[str, float] | None = None, *, form: IdfForm | str = IdfForm.LUCENE,
                how: str = BEST, tie_breaker: float = 0.0, over_installed: bool = True,
                cache: DfCache | None = None, **options: Any) -> FieldsQueryTime:
        """Read the index once per field. ``fields``: default every text field. ``qs``: q by
        field; a field without one ranks as it is (``ranks_as_is``). ``options``: ``stats``
        and ``shard``, as ``QueryTime`` takes them."""
        names = list(dict.fromkeys(fields or text_fields(cluster, index)))
        targets = _targets(cluster, index, names, over_installed)
        cache = cache if cache is not None else DfCache()
        return cls.of_targets(cluster, targets, qs or {}, form=form, how=how,
                              tie_breaker=tie_breaker, cache=cache, **options)

    @classmethod
    def of_targets(cls, cluster: Cluster, targets: Sequence[Target],
                   qs: Mapping[str, float], *, form: IdfForm | str = IdfForm.LUCENE,
                   how: str = BEST, tie_breaker: float = 0.0, cache: DfCache | None = None,
                   **options: Any) -> FieldsQueryTime:
        """Builders for targets already read (``qs`` by field; others rank as they are)."""
        unknown = sorted(set(qs) - {t.field for t in targets})
        if unknown:
            raise UsageError(f"q given for {', '.join(unknown)}, which is not searched here")
        cache = cache if cache is not None else DfCache()
        builders = {}
        for t in targets:
            if t.field in qs:
                builders[t.field] = QueryTime(cluster, t, qs[t.field], form=form, cache=cache,
                                              **options)
            else:  # as it is: its own q and form, every ratio exactly 1
                base = t.base
                builders[t.field] = QueryTime(
                    cluster, t, base.q if base else 1.0,
                    form=base.form if base else IdfForm.LUCENE, cache=cache, **options)
        return cls(builders, how, tie_breaker)

    def with_qs(self, qs: Mapping[str, float], form: IdfForm | str = IdfForm.LUCENE
                ) -> FieldsQueryTime:
        """The same fields and cache at other q (fields missing from ``qs``: as they are)."""
        first = next(iter(self.builders.values()))
        return FieldsQueryTime.of_targets(
            first.cluster, [b.target for b in self.builders.values()], qs, form=form,
            how=self.how, tie_breaker=self.tie_breaker, cache=first.cache,
            stats=first.scope, shard=first.shard)

    @property
    def fields(self) -> list[str]:
        return list(self.builders)

    @property
    def targets(self) -> list[Target]:
        return [b.target for b in self.builders.values()]

    @property
    def index(self) -> str:
        return next(iter(self.builders.values())).target.index

    def ranks_as_is(self, field: str) -> bool:
        """Whether ``field`` is searched with the similarity it has (no rescaling)."""
        b = self.builders[field]
        return (b.q, b.form) == b.base

    def tokens(self, text: str) -> dict[str, Counter[str]]:
        """The text's tokens under each field's analyzer."""
        return {f: b.tokens(text) for f, b in self.builders.items()}

    def build(self, text: str, *, minimum_should_match: int | str | None = None,
              filters: Sequence[Mapping[str, Any]] = ()) -> FieldsQuery:
        return self.from_tokens(self.tokens(text), minimum_should_match=minimum_should_match,
                                filters=filters)

    def from_tokens(self, tokens: Mapping[str, Counter[str]], *,
                    minimum_should_match: int | str | None = None,
                    filters: Sequence[Mapping[str, Any]] = ()) -> FieldsQuery:
        """The query for tokens already analysed per field. Filters restrict the whole query
        (inside the one field's bool when there is one field, as ``QueryTime`` puts them)."""
        one = len(self.builders) == 1
        parts = [b.from_tokens(tokens[f], minimum_should_match=minimum_should_match,
                               filters=filters if one else ())
                 for f, b in self.builders.items()]
        query = combine([p.query for p in parts], self.how, self.tie_breaker)
        if filters and not one:
            query = {"bool": {"must": [query], "filter": [dict(f) for f in filters]}}
        return FieldsQuery(self.index, parts, query, self.how)

    def search(self, built: FieldsQuery, size: int = 10,
               source: bool | Sequence[str] = False, start: int = 0) -> list[dict[str, Any]]:
        """Send ``built`` and return the hits as the engine gives them."""
        first = next(iter(self.builders.values()))
        body = built.body(size, _source=source if isinstance(source, bool) else list(source))
        if start:
            body["from"] = start
        resp = first.cluster.request("POST", index_path(built.index, "_search"), body,
                                     built.params() or None)
        return list(resp["hits"]["hits"])


def _targets(cluster: Cluster, index: str, names: Sequence[str],
             over_installed: bool) -> list[Target]:
    """Each field's target from one description (two read actions), or from field caps
    where the settings are not readable."""
    try:
        description = describe_index(cluster, index, read_status=False)
    except ClusterError as exc:
        if exc.status != 403:
            raise
        return [inspect(cluster, index, n) for n in names]
    return [target_of(description, index, n, over_installed=over_installed) for n in names]
