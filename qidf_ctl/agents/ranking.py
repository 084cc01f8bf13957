"""How an index is ranked for an agent, decided once when the server or retriever starts.

An index whose fields have q-log installed (Painless or the plugin) is searched with a plain
query: its own similarity ranks it, with the q in its settings and the reason recorded in the
mapping's ``_meta.qidf``. An index that keeps built-in BM25 is ranked at query time
(``qidf_ctl.querytime``), with the q given (``--q 0.3``), or, with ``auto``, the q each field's
prediction gives (a query sample, ``--queries``, lets the predictor tell text searched with
code from text searched with text). Where every field's prediction is q = 1 the index ranks
with BM25, and the reason says so and what would change it. Several text fields are searched
together as ``multi_match`` does (``querytime.fields``), each at its own q.

Where the credentials may not read settings (a search-only role), built-in BM25 is assumed,
as ``qidf search`` does, and the ranking says so; ``ranking="installed"`` is the way to search
such an index that has q-log installed without adding query-time boosts on top of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, IndexDescription, describe_index
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.formula import validate_q
from qidf_ctl.install.record import disagreement
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.querytime import DFS, Target, inspect
from qidf_ctl.querytime.auto import predicted_qs
from qidf_ctl.querytime.fields import FieldsQueryTime
from qidf_ctl.querytime.target import field_similarity, target_of
from qidf_ctl.stats.query_sample import QuerySample

AUTO = "auto"
INSTALLED = "installed"
QUERY_TIME = "query-time"
RANKINGS = (AUTO, INSTALLED)
UNREADABLE = ("the index's own similarity (its settings are not readable with these "
              "credentials; ranking 'installed' was asked for)")


@dataclass(frozen=True)
class Ranking:
    """What ranks one index, and why: what ``describe_ranking`` tells a model."""

    index: str  # as the user named it
    field: str  # the first field searched
    method: str  # "installed" (the index's own similarity) or "query-time"
    similarity: str  # the index's default similarity, as ``qidf show`` describes it
    q: float | None  # the q-log q (every field's); None when unknown or fields differ
    q_source: str  # "index settings", "given", "auto", "recorded" or "unknown"
    reason: str
    shards: int
    checked: bool  # False when the settings could not be read (BM25 assumed)
    fields: tuple[str, ...] = ()  # every field searched, ``field`` first
    qs: dict[str, float | None] = dataclasses.field(default_factory=dict)  # q by field

    @property
    def search_type(self) -> str | None:
        """dfs_query_then_fetch on several shards: index-wide statistics, which q-log needs
        (``docs/how-to/query-time.md``), for installed rankings as for query time."""
        return DFS if self.shards > 1 else None

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "fields": list(self.fields or (self.field,)),
                "search_type": self.search_type}


def parse_q(value: str | float | None) -> float | None:
    """A q from the command line or a caller: a number in [0, 2], or None for ``auto``."""
    if value is None or (isinstance(value, str) and value.strip().lower() == AUTO):
        return None
    return validate_q(value)


def _describe(cluster: Cluster, index: str) -> IndexDescription | None:
    """Settings and mapping (two read actions, no monitor API), or None where refused."""
    try:
        return describe_index(cluster, index, read_status=False)
    except ClusterError as exc:
        if exc.status != 403:
            raise
        return None


def _installed_reason(state: SimilarityState) -> str:
    record = state.record or {}
    done = record.get("installed") if isinstance(record.get("installed"), dict) else None
    parts = [f"the index has {state.installed.describe()} installed"]
    if done:
        parts.append(f"recorded in _meta.qidf by {done.get('by', 'qidf')} at "
                     f"{done.get('at', 'an unknown time')}")
        prediction = done.get("prediction")
        if isinstance(prediction, dict) and prediction.get("reason"):
            parts.append(f"q chosen by {prediction.get('predictor', 'qidf')}: "
                         f"{prediction['reason']}")
    problem = disagreement(state.installed, state.record, state.similarity_flat)
    if problem:
        parts.append(f"warning: {problem} (run `qidf show {state.index}`)")
    return "; ".join(parts)


def _fields(description: IndexDescription, field: str | Sequence[str] | None) -> list[str]:
    if field is None:
        return description.measured_fields(None)
    names = [field] if isinstance(field, str) else list(dict.fromkeys(field))
    return [description.check_text_field(n) for n in names]


def decide(cluster: Cluster, index: str, *, q: float | None = None,
           field: str | Sequence[str] | None = None, ranking: str = AUTO,
           queries: QuerySample | None = None) -> tuple[Ranking, FieldsQueryTime]:
    """The ranking of ``index`` and the query builder that serves it (``q=None``: auto).
    ``field``: one field, several, or None for every text field.

    An installed q-log similarity wins over ``q``: the index ranks as installed, and a
    different ``q`` is reported in the reason, not used.
    """
    if ranking not in RANKINGS:
        raise UsageError(f"ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
    description = _describe(cluster, index)
    if description is None:
        names = [field] if isinstance(field, str) else list(field or [None])  # type: ignore[list-item]
        targets = [inspect(cluster, index, n) for n in names]  # field caps, BM25 assumed
        if ranking == INSTALLED:
            targets = [dataclasses.replace(t, similarity=UNREADABLE) for t in targets]
            return _installed(cluster, targets, None, "unknown",
                              "ranking 'installed' was asked for; the settings that would say "
                              "which similarity and q are not readable here", False)
        return _query_time(cluster, targets, q, queries)
    names = _fields(description, field)
    state = SimilarityState(description)
    kinds = {n: field_similarity(description, n)[0] for n in names}
    if all(k.kind == "builtin" for k in kinds.values()) and ranking == AUTO:
        return _query_time(cluster, [target_of(description, index, n) for n in names], q,
                           queries)
    targets = [target_of(description, index, n, over_installed=True)
               if kinds[n].kind in ("qlog", "builtin")
               else Target(index, n, description.shards, kinds[n].describe(), True)
               for n in names]
    installed_q = {n: (k.params.q if k.kind == "qlog" and k.params is not None else
                       1.0 if k.kind == "builtin" else None) for n, k in kinds.items()}
    if any(k.kind == "qlog" for k in kinds.values()):
        reason = _installed_reason(state)
        if q is not None and any(v != q for v in installed_q.values()):
            reason += f"; the q asked for ({q:g}) is not used: the installed similarity ranks"
        return _installed(cluster, targets, installed_q, "index settings", reason, True)
    return _installed(cluster, targets, installed_q, "unknown",
                      f"the index has {state.installed.describe()} installed; it ranks as it is "
                      "(q-log is not added on top of it)", True)


def _one_q(qs: dict[str, float | None]) -> float | None:
    values = set(qs.values())
    return values.pop() if len(values) == 1 else None


def _installed(cluster: Cluster, targets: list[Target], qs: dict[str, float | None] | None,
               source: str, reason: str, checked: bool) -> tuple[Ranking, FieldsQueryTime]:
    # Every field as it is: its boosts are all 1 (the plain query); only its tokens are used.
    builder = FieldsQueryTime.of_targets(cluster, targets, {})
    first = targets[0]
    by_field = qs if qs is not None else dict.fromkeys((t.field for t in targets), None)
    q = _one_q(by_field)
    return Ranking(first.index, first.field, INSTALLED, first.similarity,
                   q if source != "unknown" or q is not None else None, source, reason,
                   first.shards, checked, tuple(t.field for t in targets), by_field), builder


def _query_time(cluster: Cluster, targets: list[Target], q: float | None,
                queries: QuerySample | None) -> tuple[Ranking, FieldsQueryTime]:
    first = targets[0]
    names = [t.field for t in targets]
    if q is None:
        found = predicted_qs(cluster, first.index, names, queries)
        qs = {f: found[f][0] for f in names}
        whys = [found[f][1] if len(names) == 1 else f"{f}: {found[f][1]}" for f in names]
        source = AUTO
        if all(v == 1.0 for v in qs.values()):
            hint = ("pass --queries FILE, a sample of the queries this index serves, for the "
                    "predictor to read, or --q with a number, for q-log at query time")
            reason = (f"BM25 ranks it: the prediction is q = 1 (BM25) for "
                      f"{'every field' if len(names) > 1 else f'field {names[0]}'} "
                      f"({'; '.join(whys)}); {hint}")
        else:
            reason = f"q predicted from the index's statistics: {'; '.join(whys)}"
    else:
        qs, source = dict.fromkeys(names, q), "given"
        reason = f"q = {q:g} was given; the index keeps {first.similarity}"
    if not first.checked:
        reason += ("; the index settings are not readable with these credentials, so built-in "
                   "BM25 is assumed (if q-log is installed, use ranking 'installed')")
    builder = FieldsQueryTime.of_targets(cluster, targets, qs)
    if source == AUTO and all(v == 1.0 for v in qs.values()):
        method, lead = INSTALLED, ""
    else:
        method, lead = QUERY_TIME, "q-log added at query time (the index is unchanged); "
    by_field: dict[str, float | None] = dict(qs)
    return Ranking(first.index, first.field, method, first.similarity, _one_q(by_field), source,
                   lead + reason, first.shards, first.checked, tuple(names), by_field), builder
