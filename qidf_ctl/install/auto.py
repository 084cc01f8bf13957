"""``apply --q auto``: a decided q below 1 is installed; a decision of q = 1 (BM25 stays)
changes nothing.

q-log at q = 1 ranks exactly as BM25, but installing it closes (or clones) the index, and
with Painless every later search runs a script: a decision that BM25 is right must not do
that. So at q = 1 an index qidf never changed is left exactly as it is (no lease, no
journal, no state index, not one write), and one qidf changed goes back to the similarity it
had before qidf's first apply, through the journaled ``revert`` (crash-safe like every
change). An explicit ``--q 1`` is not a decision: ``apply`` installs what it is given.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.install import journal as jr
from qidf_ctl.install.apply import apply, revert
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.state import SimilarityState, read_state
from qidf_ctl.install.store import StateStore
from qidf_ctl.install.strategy import Strategy, parse_strategy
from qidf_ctl.install.target import resolve_target
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import Mode, QlogParams

BM25_STAYS = 1.0


def untouched(state: SimilarityState) -> bool:
    """Whether qidf never changed this index: no ``_meta.qidf`` record and no q-log
    similarity. Its similarity, built-in or the user's own, is what a q = 1 decision keeps."""
    return state.record is None and state.installed.kind != "qlog"


def _interrupted(cluster: Cluster, key: str) -> bool:
    """Whether an interrupted qidf operation on ``key`` waits in qidf's state index; a read
    that creates nothing (a user who may not read that index has none to settle)."""
    try:
        return jr.load(StateStore(cluster), key) is not None
    except ClusterError as exc:
        if exc.status in (401, 403):
            return False
        raise


def decision_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The decision as ``--json`` shows it: the prediction record without its statistics."""
    prediction = dict(record.get("prediction") or {})
    prediction.pop("statistics", None)
    return prediction


def apply_auto(
    cluster: Cluster,
    name: str,
    params: QlogParams,
    *,
    decision: dict[str, Any],
    mode: Mode = Mode.SCRIPT,
    strategy: Strategy | str = Strategy.CLOSE,
    field_name: str | None = None,
    dry_run: bool = False,
    progress: Progress = quiet,
    allow_hidden: bool = False,
    stats: str | None = None,
) -> ChangeResult:
    """Carry out a decided q: ``params.q`` below 1 installs it (``decision``, the
    prediction's ``record()``, goes into ``_meta.qidf``); q = 1 leaves an index qidf never
    changed as it is and reverts one it changed (its statistics scope with it: ``stats``
    is read only when q-log is installed)."""
    summary = decision_summary(decision)
    if params.q != BM25_STAYS:
        result = apply(cluster, name, params, mode=mode, strategy=strategy,
                       field_name=field_name, dry_run=dry_run, extra_record=decision,
                       progress=progress, allow_hidden=allow_hidden, stats=stats)
        result.decision = summary
        return result
    strategy = parse_strategy(strategy)
    why = f"q auto: {summary.get('reason') or 'q = 1, BM25 stays'}"
    target = resolve_target(cluster, name, allow_hidden=allow_hidden, strategy=strategy)
    state = read_state(cluster, target.index)
    if untouched(state) and not _interrupted(cluster, target.key):
        kept = state.installed.describe()
        return ChangeResult(
            state.index, "none", False,
            f"{target.key}: nothing to do: {why}; the index keeps its {kept}, which qidf "
            "never changed", kept, kept, dry_run=dry_run, strategy=strategy.value,
            decision=summary)
    result = revert(cluster, name, strategy=strategy, dry_run=dry_run, progress=progress,
                    allow_hidden=allow_hidden)
    result.decision = summary
    if dry_run:
        result.message = (f"{target.key}: {why}; would restore {result.after}, the similarity "
                          f"it had before qidf's first apply, with --strategy "
                          f"{strategy.value}, as `qidf revert` does (dry run: nothing changed)")
    elif result.before != result.after or result.new_index:  # revert's own no-op keeps both
        where = f" (now served by {result.new_index})" if result.new_index else ""
        result.message = (f"{target.key}: {why}; restored {result.after}, the similarity it "
                          f"had before qidf's first apply, as `qidf revert` does{where}")
    else:
        result.message = f"{result.message} ({why})"
    return result
