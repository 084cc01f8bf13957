"""``check``: is the cluster as the file says? Read-only; exit 0 in sync, ``EXIT_DRIFT``
otherwise, with one reason per drifted index or template.

Beyond the plan's own comparison it asks the engine what a *new* index would get
(``_simulate_index`` for a name matching each managed template's patterns), which catches a
template that is right itself but loses to another one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.desired import templates
from qidf_ctl.desired.connections import Connections
from qidf_ctl.desired.items import Plan, PlanItem
from qidf_ctl.desired.model import DesiredState
from qidf_ctl.desired.plan import make_plan
from qidf_ctl.desired.templates import COMPONENT_TEMPLATE, INDEX_TEMPLATE
from qidf_ctl.errors import EXIT_DRIFT, EXIT_OK
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import Mode, flatten, parse, same_settings, similarity_value, unflatten


@dataclass
class CheckReport:
    """Drift found, and what was checked."""

    source: str
    sha256: str
    items: list[PlanItem]
    drift: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def in_sync(self) -> bool:
        return not self.drift

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.in_sync else EXIT_DRIFT

    def as_dict(self) -> dict[str, Any]:
        return {"in_sync": self.in_sync, "exit_code": self.exit_code, "source": self.source,
                "sha256": self.sha256, "checked": len(self.items), "drift": self.drift,
                "notes": self.notes,
                "items": [{"cluster": i.cluster, "kind": i.kind, "name": i.name,
                           "target": i.target, "in_sync": not i.changes, "has": i.before,
                           "wants": i.after} for i in self.items]}


def _drift(item: PlanItem, reason: str) -> dict[str, Any]:
    return {"cluster": item.cluster, "kind": item.kind, "name": item.name,
            "target": item.target, "reason": reason}


def _simulated(conns: Connections, item: PlanItem) -> list[dict[str, Any]]:
    """Drift of a template that is right itself but that new indices would not get."""
    cluster = conns.get(item.cluster)
    if item.kind == INDEX_TEMPLATE:
        body = templates.get_template(cluster, INDEX_TEMPLATE, item.name) or {}
        patterns = list(body.get("index_patterns", []))
    else:
        owners = templates.composing(cluster, item.name)
        patterns = sorted({p for b in owners.values() for p in b.get("index_patterns", [])})
    wanted = flatten(similarity_value(item.qlog_params(), Mode(item.mode),
                                      cluster.engine.default_is_legacy_bm25))
    found = []
    for pattern in patterns:
        name = templates.example_index(pattern)
        sim, overlapping = templates.simulate(cluster, name)
        if not same_settings(sim, wanted):
            got = parse(unflatten(sim) or None).describe()
            also = f"; templates that also match: {', '.join(overlapping)}" if overlapping else ""
            found.append(_drift(item, f"a new index named {name!r} would get {got}, not the "
                                      f"template's similarity{also}"))
    return found


def drift_of(plan: Plan, conns: Connections) -> list[dict[str, Any]]:
    drift = [_drift(item, item.reason or item.action) for item in plan.changes]
    for item in plan.items:
        if item.kind in (INDEX_TEMPLATE, COMPONENT_TEMPLATE) and not item.changes:
            drift.extend(_simulated(conns, item))
    return drift


def check(state: DesiredState, conns: Connections, *, progress: Progress = quiet
          ) -> CheckReport:
    """Compare the cluster with ``state``; changes nothing. Predicts q only for ``auto``
    targets on open indices qidf never changed (a decision of q = 1 leaves them as they are,
    so only the decision tells whether they are in sync); read privileges suffice."""
    plan = make_plan(state, conns, measure=False, progress=progress)
    notes = list(plan.notes) + [f"{i.kind} {i.name}: {n}" for i in plan.items if not i.changes
                                for n in i.notes]
    return CheckReport(state.source, state.sha256, plan.items, drift_of(plan, conns), notes)
