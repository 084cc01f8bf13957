"""How an index is ranked for an agent, decided once when the server or retriever starts.

An index that already has q-log installed (Painless or the plugin) is searched with a plain
query: its own similarity ranks it, with the q in its settings and the reason recorded in the
mapping's ``_meta.qidf``. An index that keeps built-in BM25 is ranked at query time
(``qidf_ctl.querytime``), with the q given (``--q 0.3``) or predicted (``auto``). Where the
credentials may not read settings (a search-only role), built-in BM25 is assumed, as
``qidf search`` does, and the ranking says so; ``ranking="installed"`` is the way to search
such an index that has q-log installed without adding query-time boosts on top of it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, IndexDescription, describe_index
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.formula import validate_q
from qidf_ctl.install.record import disagreement
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.querytime import DFS, QueryTime, Target, inspect
from qidf_ctl.querytime.auto import predicted_q
from qidf_ctl.querytime.target import target_of
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
    field: str
    method: str  # "installed" (the index's own similarity) or "query-time"
    similarity: str  # the index's default similarity, as ``qidf show`` describes it
    q: float | None  # the q-log q; None when the installed similarity is not q-log
    q_source: str  # "index settings", "given", "auto" or "unknown"
    reason: str
    shards: int
    checked: bool  # False when the settings could not be read (BM25 assumed)

    @property
    def search_type(self) -> str | None:
        """dfs_query_then_fetch on several shards: index-wide statistics, which q-log needs
        (``docs/how-to/query-time.md``), for installed rankings as for query time."""
        return DFS if self.shards > 1 else None

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "search_type": self.search_type}


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


def decide(cluster: Cluster, index: str, *, q: float | None = None, field: str | None = None,
           ranking: str = AUTO, queries: QuerySample | None = None) -> tuple[Ranking, QueryTime]:
    """The ranking of ``index`` and the query builder that serves it (``q=None``: auto).

    An installed q-log similarity wins over ``q``: the index cannot be ranked otherwise
    without double-counting q-log, so a different ``q`` is reported in the reason, not used.
    """
    if ranking not in RANKINGS:
        raise UsageError(f"ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
    description = _describe(cluster, index)
    if description is None:
        target = inspect(cluster, index, field)  # field caps and shards, BM25 assumed
        if ranking == INSTALLED:
            target = dataclasses.replace(target, similarity=UNREADABLE)
            return _installed(cluster, target, None, "unknown",
                              "ranking 'installed' was asked for; the settings that would say "
                              "which similarity and q are not readable here", False)
        return _query_time(cluster, target, q, queries)
    state = SimilarityState(description)
    installed = state.installed
    if installed.kind == "builtin" and ranking == AUTO:
        return _query_time(cluster, target_of(description, index, field), q, queries)
    fname = description.text_field(field)
    target = Target(index, fname, description.shards, installed.describe(), True)
    if installed.kind == "qlog" and installed.params is not None:
        reason = _installed_reason(state)
        if q is not None and q != installed.params.q:
            reason += f"; the q asked for ({q:g}) is not used: the installed similarity ranks"
        return _installed(cluster, target, installed.params.q, "index settings", reason, True)
    return _installed(cluster, target, None, "unknown",
                      f"the index has {installed.describe()} installed; it ranks as it is "
                      "(q-log is not added on top of it)", True)


def _installed(cluster: Cluster, target: Target, q: float | None, source: str, reason: str,
               checked: bool) -> tuple[Ranking, QueryTime]:
    # QueryTime at q = 1 is the plain term query (bit for bit); only its tokens are used.
    builder = QueryTime(cluster, target, 1.0)
    return Ranking(target.index, target.field, INSTALLED, target.similarity, q, source, reason,
                   target.shards, checked), builder


def _query_time(cluster: Cluster, target: Target, q: float | None,
                queries: QuerySample | None) -> tuple[Ranking, QueryTime]:
    if q is None:
        q, why = predicted_q(cluster, target.index, target.field, queries)
        source, reason = AUTO, f"q predicted from the index's statistics: {why}"
    else:
        source, reason = "given", f"q = {q:g} was given; the index keeps {target.similarity}"
    if not target.checked:
        reason += ("; the index settings are not readable with these credentials, so built-in "
                   "BM25 is assumed (if q-log is installed, use ranking 'installed')")
    builder = QueryTime(cluster, target, q)
    return Ranking(target.index, target.field, QUERY_TIME, target.similarity, q, source,
                   f"q-log added at query time (the index is unchanged); {reason}",
                   target.shards, target.checked), builder
