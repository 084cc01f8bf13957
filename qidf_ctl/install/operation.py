"""The protected region every change runs in: lease, recovery of what an earlier run left,
journal, steps, and settling whatever happens.

``session`` takes the index's lease (released in a ``finally``), defers SIGINT/SIGTERM, and
before anything else finishes or rolls back an interrupted operation and removes scratch
indices of runs that are gone. ``run_steps`` writes the journal before the first change,
renews the lease and records each step; on a signal or an error it settles the operation
(finished or rolled back: ``recover.settle``) before raising, so the index is open and
consistent when the command exits.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from qidf_ctl import interrupts
from qidf_ctl.cluster import Cluster
from qidf_ctl.cluster.names import SCRATCH_PREFIX, scratch_run_id
from qidf_ctl.errors import ClusterError, Interrupted, QidfError
from qidf_ctl.install import faults, index_ops
from qidf_ctl.install import journal as jr
from qidf_ctl.install import lease as leases
from qidf_ctl.install.index_ops import Wait
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.settle import FINISHED, Outcome, settle
from qidf_ctl.install.signals import SignalGuard
from qidf_ctl.install.store import StateStore
from qidf_ctl.progress import Progress, quiet

Step = tuple[str, Callable[[], None], bool]  # name, action, journaled right after it


@dataclass
class Session:
    """One command's hold on one index."""

    cluster: Cluster
    store: StateStore
    lease: leases.Lease
    guard: SignalGuard
    progress: Progress
    recovered: list[Outcome] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.lease.owner.run_id

    def renew(self, lazy: bool = False) -> None:
        """Extend the lease; ``lazy``: only once a third of its time is used up."""
        if lazy and not self.lease.due_for_renewal():
            return
        self.lease = leases.renew(self.store, self.lease)

    def wait(self) -> Wait:
        return Wait(heartbeat=self.renew)

    def check_signal(self) -> None:
        """Before the first change: a signal means stop, with nothing changed."""
        if self.guard.received:
            raise Interrupted(f"interrupted ({self.guard.name}) before anything changed")

    def recover_pending(self, key: str) -> Outcome | None:
        """Finish or roll back an interrupted operation on ``key``, if there is one."""
        pending = jr.load(self.store, key)
        if pending is None:
            return None
        self.progress(f"found an interrupted operation: {pending.describe()}")
        faults.at("recover")
        outcome = settle(self.cluster, self.store, pending, self.wait(), self.progress)
        self.recovered.append(outcome)
        self.warnings.append(outcome.describe())
        return outcome


def remove_stale_scratch(cluster: Cluster, store: StateStore) -> list[str]:
    """Delete validation indices whose run no longer holds a live lease."""
    try:
        mappings = cluster.request("GET", f"/{SCRATCH_PREFIX}*/_mapping",
                                   params={"expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status in (403, 404):
            return []
        raise
    removed = []
    for index, body in sorted(mappings.items()):
        run_id = scratch_run_id(index)
        meta = (body.get("mappings") or {}).get("_meta") or {}
        key = meta.get("qidf_lease")
        held = leases.current(store, str(key)) if key else None
        if held and held.owner.run_id == run_id and held.stale_reason() is None:
            continue
        index_ops.delete_index(cluster, index)
        removed.append(index)
    return removed


@contextlib.contextmanager
def session(cluster: Cluster, key: str, *, force: bool = False,
            progress: Progress = quiet) -> Iterator[Session]:
    """Hold the lease of ``key`` for the duration, with signals deferred."""
    store = StateStore(cluster)
    store.ensure()
    with SignalGuard() as guard:
        warnings: list[str] = []

        def warn(message: str) -> None:
            warnings.append(message)
            progress(message)

        lease = leases.acquire(store, key, leases.Owner.current(), force=force, warn=warn)
        sess = Session(cluster, store, lease, guard, progress, warnings=warnings)
        try:
            faults.at("leased")
            yield sess
        finally:
            with contextlib.suppress(ClusterError):
                leases.release(store, sess.lease)
        # The work is done (a change, or nothing to change): a signal that came meanwhile
        # lets the command print its result and exit 130; a library caller is told here.
        if not interrupts.hold() and guard.received:
            raise Interrupted(f"interrupted ({guard.name}) once the work on {key} was done")


def _note(exc: Exception, note: str) -> Exception:
    exc.args = (f"{exc}; {note}",)
    return exc


def run_steps(sess: Session, journal: Journal, steps: list[Step],
              timings: dict[str, float] | None = None) -> None:
    """Journal first, then each step; settle on a signal or an error (then raise)."""
    sess.check_signal()
    jr.start(sess.store, journal)
    faults.at(jr.JOURNALED)
    completed = 0
    try:
        for name, action, logged in steps:
            if sess.guard.received:
                break
            sess.renew(lazy=True)
            started = time.monotonic()
            action()
            if timings is not None:
                timings[name] = round(time.monotonic() - started, 4)
            completed += 1
            faults.at(name)
            if logged:
                jr.advance(sess.store, journal, name)
                faults.at(f"{name}.logged")
    except KeyboardInterrupt:
        if sess.guard.received:  # the second signal: stop waiting, leave it to recover
            raise Interrupted(f"interrupted twice: {journal.describe()}; run `qidf recover "
                              f"{journal.key}` to finish or roll it back") from None
        outcome = _settle_interrupted(sess, journal)  # Ctrl-C where no guard was installed
        raise Interrupted(f"interrupted: {outcome.describe()}") from None
    except leases.LeaseLost:
        raise
    except Exception as exc:  # settle whatever failed, a bug included, then re-raise it
        _settle_after(sess, journal, exc)
        raise
    if sess.guard.received:
        if completed < len(steps):
            outcome = _settle_interrupted(sess, journal)
            if outcome.kind != FINISHED or not interrupts.hold():
                raise Interrupted(f"interrupted ({sess.guard.name}): {outcome.describe()}")
            return  # settled forward: the change is made; its result is printed, exit 130
        jr.finish(sess.store, journal)
        if not interrupts.hold():
            raise Interrupted(f"interrupted ({sess.guard.name}) after the last step: the "
                              "change is complete")
        return
    jr.finish(sess.store, journal)
    interrupts.hold()  # the change is made: a signal from now on lets its result print


def _settle_interrupted(sess: Session, journal: Journal) -> Outcome:
    try:
        return settle(sess.cluster, sess.store, journal, sess.wait(), sess.progress)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted twice: {journal.describe()}; run `qidf recover "
                          f"{journal.key}` to finish or roll it back") from None
    except QidfError as exc:
        raise Interrupted(f"interrupted ({sess.guard.name or 'SIGINT'}), and settling failed "
                          f"({exc}): run "
                          f"`qidf recover {journal.key}` once the cluster answers") from None


def _settle_after(sess: Session, journal: Journal, error: Exception) -> None:
    """After a failed step: leave the index open and consistent, and say how in ``error``."""
    try:
        outcome = settle(sess.cluster, sess.store, journal, sess.wait(), sess.progress)
    except KeyboardInterrupt:
        raise _note(error, f"interrupted while settling: run `qidf recover {journal.key}`") \
            from None
    except QidfError as exc:
        raise _note(error, f"settling failed too ({exc}): the journal keeps the operation; "
                    f"run `qidf recover {journal.key}` once the cluster answers") from None
    if isinstance(error, ClusterError) and error.status is not None and \
            400 <= error.status < 500 and error.status not in (401, 403, 404):
        error.args = (f"the engine refused the change ({error})",)
    _note(error, outcome.after_failure())
