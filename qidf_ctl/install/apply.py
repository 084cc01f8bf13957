"""apply and revert: changing the similarity of a live index without losing it.

Everything that can be refused is refused before anything changes (the name, data streams,
hidden indices, blocks, a cluster that forbids closing, a strategy or a ``--stats`` the
engine lacks, the field, the similarity itself on a scratch index). Then, holding the index's
lease: an operation an earlier run left unfinished is finished or rolled back, the journal is
written, and the strategy's steps run (``close_swap``, ``clone_swap`` or ``reopen_swap``),
with the default search pipeline's step (``pipeline``) when the statistics part changes;
whatever interrupts them, the index is left open with exactly the old or exactly the new
settings and a ``_meta.qidf`` record that agrees.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from qidf_ctl.cluster import Cluster, capabilities
from qidf_ctl.cluster.names import clone_name, scratch_name
from qidf_ctl.errors import ConflictError, QidfError
from qidf_ctl.install import clone_swap, close_swap, reopen_swap, scope, snapshot
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.limits import query_warnings
from qidf_ctl.install.notice import pending_notice
from qidf_ctl.install.operation import Session, remove_stale_scratch, run_steps, session
from qidf_ctl.install.record import installed_record, read_meta, without_record
from qidf_ctl.install.result import ChangeResult, WindowTimer
from qidf_ctl.install.state import SimilarityState, read_state
from qidf_ctl.install.strategy import Strategy, check_supported, parse_strategy
from qidf_ctl.install.target import (
    Target,
    check_writable,
    check_write_index_of_stream,
    resolve_target,
)
from qidf_ctl.install.validate import validate_on_scratch_index
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import (
    Installed,
    Mode,
    QlogParams,
    flatten,
    parse,
    same_settings,
    similarity_value,
    unflatten,
    update_body,
)
from qidf_ctl.stats.snapshot import key_of


def _check_field(state: SimilarityState, field_name: str | None) -> None:
    if field_name is None:
        return
    if field_name in state.own_similarity_fields:
        raise QidfError(
            f"field {field_name!r} names its own similarity "
            f"({state.own_similarity_fields[field_name]!r}) in its mapping, which cannot change "
            "on an existing field: reindex into a mapping without it, or pick another field"
        )
    state.description.check_text_field(field_name)


def _prepare(sess: Session, target: Target, allow_hidden: bool, strategy: Strategy) -> Target:
    """Under the lease: settle what an earlier run left, drop dead runs' scratch indices,
    and resolve the name again (a finished clone swap moves it to another index)."""
    sess.recover_pending(target.key)
    remove_stale_scratch(sess.cluster, sess.store)
    fresh = resolve_target(sess.cluster, target.name, allow_hidden=allow_hidden,
                           strategy=strategy)
    if fresh.key != target.key:
        raise ConflictError(f"{target.name!r} moved to {fresh.index!r} while qidf took its "
                            "lease: run the command again")
    return fresh


def _preflight(cluster: Cluster, target: Target, state: SimilarityState, doing: str,
               strategy: Strategy) -> None:
    state.description.require_open(doing)
    check_writable(state.index, state.description.settings)
    if strategy is Strategy.CLOSE:  # reopen=true works where _close is disabled (ES 8.19)
        capabilities.check_closable(cluster)
    if strategy in (Strategy.CLOSE, Strategy.REOPEN):
        check_write_index_of_stream(cluster, target)


def _journal(sess: Session, target: Target, state: SimilarityState, operation: str,
             strategy: Strategy, new: dict[str, Any], new_meta: dict[str, Any],
             meta: dict[str, Any] | None, stats: scope.StatsPlan | None) -> Journal:
    settings = state.description.settings
    journal = Journal(
        key=target.key, run_id=sess.run_id, operation=operation, strategy=strategy.value,
        index=state.index, index_uuid=str(settings.get("index.uuid", "")),
        old=state.similarity_flat, new=new, had_meta=meta is not None, old_meta=meta or {},
        new_meta=new_meta, owner=asdict(sess.lease.owner))
    if stats is not None and stats.new is not None:
        journal.pipeline = stats.pipeline
        journal.stats_old, journal.stats_new = stats.old.as_dict(), stats.new.as_dict()
    if stats is not None and stats.snapshot is not None and stats.snapshot.changes:
        journal.snapshot = stats.snapshot.as_dict()
    if strategy is Strategy.CLONE and not same_settings(journal.old, journal.new):
        journal.target = clone_name(target.key, sess.run_id)
        journal.aliases = target.aliases
        journal.replace_name = target.key == target.index
        journal.replicas = clone_swap.replica_settings(settings)
    return journal


def _execute(sess: Session, journal: Journal, result: ChangeResult) -> None:
    wait = sess.wait()
    if journal.target is None:  # close or reopen, or only the record (and pipeline) change
        closed = WindowTimer()
        swap = reopen_swap if journal.strategy == Strategy.REOPEN.value else close_swap
        run_steps(sess, journal, swap.steps(sess.cluster, journal, wait, sess.progress,
                                            closed), result.step_seconds)
        result.closed_seconds = closed.seconds
        return
    blocked = WindowTimer()
    run_steps(sess, journal, clone_swap.steps(sess.cluster, journal, wait, sess.progress,
                                              blocked), result.step_seconds)
    result.write_blocked_seconds = blocked.seconds
    result.new_index = journal.target


def _finish(result: ChangeResult, sess: Session, started: float) -> ChangeResult:
    result.run_id = sess.run_id
    result.recovered = [o.describe() for o in sess.recovered]
    if result.recovered and not result.changed:  # settling the earlier run changed the index
        result.changed = True
        result.message += " (after settling the interrupted operation)"
    result.warnings = sess.warnings + result.warnings
    result.seconds = time.monotonic() - started
    return result


def _dry_run_note(cluster: Cluster, name: str, result: ChangeResult) -> ChangeResult:
    note = pending_notice(cluster, name)
    if note:
        result.warnings.append(note + " (without --dry-run, qidf settles it first)")
    return result


def _statistics_plan(cluster: Cluster, state: SimilarityState, key: str, stats: str | None,
                     mode: Mode, new: dict[str, Any]) -> tuple[scope.StatsPlan | None,
                                                            dict[str, Any]]:
    """The statistics part and the similarity settings with the snapshot it names: the one
    the plan takes, none when the plan drops it, the current one when the statistics are left
    as they are (a Painless similarity cannot name one: it is dropped then)."""
    current = key_of(state.description.settings)
    if stats is None and current is not None and mode is Mode.SCRIPT:
        stats = scope.SHARD
    plan = scope.plan_apply(cluster, state, key, stats, mode)
    if plan is None:
        return None, snapshot.with_key(new, current)
    return plan, snapshot.with_key(new, plan.snapshot.take if plan.snapshot else None)


def apply(
    cluster: Cluster,
    name: str,
    params: QlogParams,
    *,
    mode: Mode = Mode.SCRIPT,
    strategy: Strategy | str = Strategy.CLOSE,
    field_name: str | None = None,
    dry_run: bool = False,
    extra_record: dict[str, Any] | None = None,
    progress: Progress = quiet,
    allow_hidden: bool = False,
    stats: str | None = None,
) -> ChangeResult:
    """Install the q-log similarity as the index's default similarity; with ``stats``
    (``index``, ``shard`` or ``auto``; None leaves it as it is), also which statistics its
    scoring searches use (``scope``)."""
    strategy = parse_strategy(strategy)
    check_supported(cluster.engine, strategy)
    if stats is not None:
        scope.check_choice(stats)
    target = resolve_target(cluster, name, allow_hidden=allow_hidden, strategy=strategy)
    legacy = cluster.engine.default_is_legacy_bm25
    similarity = similarity_value(params, mode, legacy)
    new = flatten(similarity)
    after = Installed("qlog", mode, params, legacy).describe()
    if dry_run:
        state = read_state(cluster, target.index)
        plan, new = _statistics_plan(cluster, state, target.key, stats, mode, new)
        result = ChangeResult(state.index, "apply", False, "", state.installed.describe(),
                              after, settings_body=update_body(state.similarity_flat, new),
                              dry_run=True, strategy=strategy.value)
        scope.note(result, plan)
        same = same_settings(state.similarity_flat, new)
        result.message = (f"{state.index}: already {after}; nothing changed"
                          if same and (plan is None or not plan.changes) else
                          f"{state.index}: would install {after} with --strategy "
                          f"{strategy.value}{scope.message(plan)} (dry run: nothing changed)")
        return _dry_run_note(cluster, name, result)
    started = time.monotonic()
    with session(cluster, target.key, progress=progress) as sess:
        target = _prepare(sess, target, allow_hidden, strategy)
        state = read_state(cluster, target.index)
        _preflight(cluster, target, state, "change its similarity", strategy)
        _check_field(state, field_name)
        plan, new = _statistics_plan(cluster, state, target.key, stats, mode, new)
        result = ChangeResult(
            state.index, "apply", False, "", state.installed.describe(), after,
            [f"field {f!r} names its own similarity {s!r} and keeps it (mappings cannot "
             "change it)" for f, s in sorted(state.own_similarity_fields.items())],
            update_body(state.similarity_flat, new), strategy=strategy.value)
        scope.note(result, plan)
        changes = not same_settings(state.similarity_flat, new)
        if not changes and (plan is None or not plan.changes):
            result.message = f"{state.index}: already {after}; nothing changed"
            return _finish(result, sess, started)
        meta = read_meta(cluster, state.index)
        if changes:
            result.warnings += query_warnings(state, cluster.engine)
            progress("validating the similarity on a scratch index")
            validate_on_scratch_index(cluster, similarity, scratch_name(sess.run_id),
                                      {"qidf_lease": target.key})
            record = installed_record(state, params, mode, legacy, extra_record)
        else:
            record = dict(state.record or {})
        journal = _journal(sess, target, state, "apply", strategy, new,
                           scope.meta_with(meta, record, plan, state.record), meta, plan)
        _execute(sess, journal, result)
        result.changed = True
        where = f" (now served by {result.new_index})" if result.new_index else ""
        what = (f"installed {after} (was: {result.before})" if changes else
                f"kept {after}")
        result.message = f"{target.key}: {what}{where}{scope.message(plan)}"
        return _finish(result, sess, started)


def _previous(state: SimilarityState) -> dict[str, Any]:
    """The similarity settings revert restores: those recorded before qidf's first apply
    (a record of the statistics part alone leaves the similarity as it is)."""
    record = state.record or {}
    return dict(record["previous"]) if "previous" in record else state.similarity_flat


def revert(
    cluster: Cluster,
    name: str,
    *,
    strategy: Strategy | str = Strategy.CLOSE,
    dry_run: bool = False,
    progress: Progress = quiet,
    allow_hidden: bool = False,
) -> ChangeResult:
    """Restore the similarity settings recorded before qidf's first apply, and the index's
    default search pipeline as it was before qidf's."""
    strategy = parse_strategy(strategy)
    check_supported(cluster.engine, strategy)
    target = resolve_target(cluster, name, allow_hidden=allow_hidden, strategy=strategy)
    if dry_run:
        state = read_state(cluster, target.index)
        previous = _previous(state)
        plan = scope.plan(cluster, state, target.key, scope.SHARD)
        after = parse(unflatten(previous) or None).describe()
        result = ChangeResult(state.index, "revert", False,
                              f"{state.index}: would restore {after} with --strategy "
                              f"{strategy.value}{scope.message(plan)} (dry run: nothing "
                              "changed)", state.installed.describe(), after,
                              settings_body=update_body(state.similarity_flat, previous),
                              dry_run=True, strategy=strategy.value)
        return _dry_run_note(cluster, name, result)
    started = time.monotonic()
    with session(cluster, target.key, progress=progress) as sess:
        target = _prepare(sess, target, allow_hidden, strategy)
        state = read_state(cluster, target.index)
        current = state.installed
        plan = scope.plan(cluster, state, target.key, scope.SHARD)
        if state.record is None and current.kind != "qlog" and not plan.changes:
            state.description.require_open("revert its similarity")
            result = ChangeResult(state.index, "revert", False,
                                  f"{state.index}: no qidf similarity installed; nothing "
                                  "changed", current.describe(), current.describe(),
                                  strategy=strategy.value)
            return _finish(result, sess, started)
        _preflight(cluster, target, state, "revert its similarity", strategy)
        previous = _previous(state)
        after = parse(unflatten(previous) or None).describe()
        result = ChangeResult(state.index, "revert", False, "", current.describe(), after,
                              settings_body=update_body(state.similarity_flat, previous),
                              strategy=strategy.value)
        scope.note(result, plan)
        result.warnings = [w for w in result.warnings if w != plan.warning]
        meta = read_meta(cluster, state.index)
        journal = _journal(sess, target, state, "revert", strategy, previous,
                           without_record(meta or {}), meta, plan)
        _execute(sess, journal, result)
        result.changed = True
        where = f" (now served by {result.new_index})" if result.new_index else ""
        result.message = f"{target.key}: restored {after}{where}{scope.message(plan)}"
        return _finish(result, sess, started)
