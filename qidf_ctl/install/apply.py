"""apply and revert: changing the similarity of a live index without losing it.

Everything that can be refused is refused before anything changes (the name, data streams,
hidden indices, blocks, a cluster that forbids closing, the field, the similarity itself on
a scratch index). Then, holding the index's lease: an operation an earlier run left
unfinished is finished or rolled back, the journal is written, and the strategy's steps run
(``close_swap`` or ``clone_swap``); whatever interrupts them, the index is left open with
exactly the old or exactly the new settings and a ``_meta.qidf`` record that agrees.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from qidf_ctl.cluster import Cluster, capabilities
from qidf_ctl.cluster.names import clone_name, scratch_name
from qidf_ctl.errors import ConflictError, QidfError
from qidf_ctl.install import clone_swap, close_swap
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.notice import pending_notice
from qidf_ctl.install.operation import Session, remove_stale_scratch, run_steps, session
from qidf_ctl.install.record import installed_record, read_meta, without_record
from qidf_ctl.install.result import ChangeResult, WindowTimer
from qidf_ctl.install.state import SimilarityState, read_state
from qidf_ctl.install.strategy import Strategy, parse_strategy
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
    if strategy is Strategy.CLOSE:
        capabilities.check_closable(cluster)
        check_write_index_of_stream(cluster, target)


def _journal(sess: Session, target: Target, state: SimilarityState, operation: str,
             strategy: Strategy, new: dict[str, Any], new_meta: dict[str, Any],
             meta: dict[str, Any] | None) -> Journal:
    settings = state.description.settings
    journal = Journal(
        key=target.key, run_id=sess.run_id, operation=operation, strategy=strategy.value,
        index=state.index, index_uuid=str(settings.get("index.uuid", "")),
        old=state.similarity_flat, new=new, had_meta=meta is not None, old_meta=meta or {},
        new_meta=new_meta, owner=asdict(sess.lease.owner))
    if strategy is Strategy.CLONE and not same_settings(journal.old, journal.new):
        journal.target = clone_name(target.key, sess.run_id)
        journal.aliases = target.aliases
        journal.replace_name = target.key == target.index
        journal.replicas = clone_swap.replica_settings(settings)
    return journal


def _execute(sess: Session, journal: Journal, result: ChangeResult) -> None:
    wait = sess.wait()
    if journal.target is None:  # close strategy, or only the record changes
        closed = WindowTimer()
        run_steps(sess, journal, close_swap.steps(sess.cluster, journal, wait, sess.progress,
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
) -> ChangeResult:
    """Install the q-log similarity as the index's default similarity."""
    strategy = parse_strategy(strategy)
    target = resolve_target(cluster, name, allow_hidden=allow_hidden, strategy=strategy)
    legacy = cluster.engine.default_is_legacy_bm25
    similarity = similarity_value(params, mode, legacy)
    new = flatten(similarity)
    after = Installed("qlog", mode, params, legacy).describe()
    if dry_run:
        state = read_state(cluster, target.index)
        result = ChangeResult(state.index, "apply", False, "", state.installed.describe(),
                              after, settings_body=update_body(state.similarity_flat, new),
                              dry_run=True, strategy=strategy.value)
        result.message = (f"{state.index}: already {after}; nothing changed"
                          if same_settings(state.similarity_flat, new) else
                          f"{state.index}: would install {after} with --strategy "
                          f"{strategy.value} (dry run: nothing changed)")
        return _dry_run_note(cluster, name, result)
    started = time.monotonic()
    with session(cluster, target.key, progress=progress) as sess:
        target = _prepare(sess, target, allow_hidden, strategy)
        state = read_state(cluster, target.index)
        _preflight(cluster, target, state, "change its similarity", strategy)
        _check_field(state, field_name)
        result = ChangeResult(
            state.index, "apply", False, "", state.installed.describe(), after,
            [f"field {f!r} names its own similarity {s!r} and keeps it (mappings cannot "
             "change it)" for f, s in sorted(state.own_similarity_fields.items())],
            update_body(state.similarity_flat, new), strategy=strategy.value)
        if same_settings(state.similarity_flat, new):
            result.message = f"{state.index}: already {after}; nothing changed"
            return _finish(result, sess, started)
        progress("validating the similarity on a scratch index")
        validate_on_scratch_index(cluster, similarity, scratch_name(sess.run_id),
                                  {"qidf_lease": target.key})
        meta = read_meta(cluster, state.index)
        record = installed_record(state, params, mode, legacy, extra_record)
        journal = _journal(sess, target, state, "apply", strategy, new,
                           {**(meta or {}), "qidf": record}, meta)
        _execute(sess, journal, result)
        result.changed = True
        where = f" (now served by {result.new_index})" if result.new_index else ""
        result.message = f"{target.key}: installed {after} (was: {result.before}){where}"
        return _finish(result, sess, started)


def revert(
    cluster: Cluster,
    name: str,
    *,
    strategy: Strategy | str = Strategy.CLOSE,
    dry_run: bool = False,
    progress: Progress = quiet,
    allow_hidden: bool = False,
) -> ChangeResult:
    """Restore the similarity settings recorded before qidf's first apply."""
    strategy = parse_strategy(strategy)
    target = resolve_target(cluster, name, allow_hidden=allow_hidden, strategy=strategy)
    if dry_run:
        state = read_state(cluster, target.index)
        previous = dict((state.record or {}).get("previous", {}))
        after = parse(unflatten(previous) or None).describe()
        result = ChangeResult(state.index, "revert", False,
                              f"{state.index}: would restore {after} with --strategy "
                              f"{strategy.value} (dry run: nothing changed)",
                              state.installed.describe(), after,
                              settings_body=update_body(state.similarity_flat, previous),
                              dry_run=True, strategy=strategy.value)
        return _dry_run_note(cluster, name, result)
    started = time.monotonic()
    with session(cluster, target.key, progress=progress) as sess:
        target = _prepare(sess, target, allow_hidden, strategy)
        state = read_state(cluster, target.index)
        current = state.installed
        if state.record is None and current.kind != "qlog":
            state.description.require_open("revert its similarity")
            result = ChangeResult(state.index, "revert", False,
                                  f"{state.index}: no qidf similarity installed; nothing "
                                  "changed", current.describe(), current.describe(),
                                  strategy=strategy.value)
            return _finish(result, sess, started)
        _preflight(cluster, target, state, "revert its similarity", strategy)
        previous = dict((state.record or {}).get("previous", {}))
        after = parse(unflatten(previous) or None).describe()
        result = ChangeResult(state.index, "revert", False, "", current.describe(), after,
                              settings_body=update_body(state.similarity_flat, previous),
                              strategy=strategy.value)
        meta = read_meta(cluster, state.index)
        journal = _journal(sess, target, state, "revert", strategy, previous,
                           without_record(meta or {}), meta)
        _execute(sess, journal, result)
        result.changed = True
        where = f" (now served by {result.new_index})" if result.new_index else ""
        result.message = f"{target.key}: restored {after}{where}"
        return _finish(result, sess, started)
