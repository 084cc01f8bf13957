"""One line for any command that touches an index: an interrupted qidf operation on it, a
change in progress, or a ``_meta.qidf`` record that disagrees with the settings. Read-only:
it never creates qidf's state index or writes anything."""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.install import index_ops
from qidf_ctl.install import journal as jr
from qidf_ctl.install import lease as leases
from qidf_ctl.install.record import disagreement
from qidf_ctl.install.state import read_state
from qidf_ctl.install.store import StateStore
from qidf_ctl.install.target import resolve_target


def inspect(cluster: Cluster, name: str) -> dict[str, Any]:
    """``interrupted`` (journal of a run that is gone), ``in_progress`` (a live run's),
    ``lease`` (its holder) and ``disagreement``: each a line or None."""
    found: dict[str, Any] = {"interrupted": None, "in_progress": None, "lease": None,
                             "disagreement": None}
    target = resolve_target(cluster, name, allow_hidden=True)
    store = StateStore(cluster)
    try:
        journal = jr.load(store, target.key)
        held = leases.current(store, target.key)
    except ClusterError as exc:  # a read-only user need not read qidf's state index
        if exc.status not in (401, 403):
            raise
        journal, held = None, None
    live = held is not None and held.stale_reason() is None
    if held is not None:
        found["lease"] = held.owner.describe() + ("" if live else " (stale)")
    if journal is not None:
        closed = index_ops.index_status(cluster, journal.index) == "close"
        where = f"; {journal.index} is closed" if closed else ""
        if live and held is not None and held.owner.run_id == journal.run_id:
            found["in_progress"] = (f"{target.key}: {held.owner.describe()} is changing it "
                                    f"(step '{journal.step}'{where})")
        else:
            found["interrupted"] = (
                f"{target.key}: {journal.describe()}{where}: `qidf recover {target.key}` "
                "finishes or rolls it back (apply and revert do it themselves)")
        return found
    state = read_state(cluster, target.index)
    if state.status == "open":
        why = disagreement(state.installed, state.record, state.similarity_flat)
        if why:
            found["disagreement"] = (f"{target.key}: {why}: `qidf recover {target.key}` "
                                     "rewrites the record from the settings")
    return found


def pending_notice(cluster: Cluster, name: str) -> str | None:
    """The one line to print before working on ``name``, or None when all is well (or the
    name cannot be resolved: the command itself will say why)."""
    try:
        found = inspect(cluster, name)
    except Exception:  # a notice never stops the command it decorates
        return None
    return found["interrupted"] or found["in_progress"] or found["disagreement"]
