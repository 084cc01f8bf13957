"""``apply -f``: carry out a plan's changes in its order, stopping at the first failure,
and say which items changed, which failed, and which were not attempted.

A saved plan is checked first: every item it would change must still be as the plan saw
it (same fingerprint), or nothing is done. Each index change goes through
``install.apply`` (a revert, where auto decided q = 1, through ``install.revert``), so it
keeps that command's guarantees (validated on a scratch index before the index is touched,
reopened whatever happens, previous settings recorded or restored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qidf_ctl import install, interrupts
from qidf_ctl.cluster import segment
from qidf_ctl.desired import render, templates
from qidf_ctl.desired.connections import Connections
from qidf_ctl.desired.items import (
    DATA_STREAM,
    INDEX,
    REVERT,
    ROLLOVER,
    Plan,
    PlanItem,
    fingerprint,
    index_fingerprint,
)
from qidf_ctl.errors import EXIT_USAGE, ConflictError, QidfError
from qidf_ctl.formula import InvalidParameter
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import Mode, similarity_value


@dataclass
class ApplyReport:
    """What ``apply -f`` did, item by item."""

    changed: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: dict[str, Any] | None = None
    not_attempted: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed is None

    @property
    def exit_code(self) -> int:
        return 0 if self.failed is None else int(self.failed["exit_code"])

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "changed": self.changed, "unchanged": self.unchanged,
                "failed": self.failed, "not_attempted": self.not_attempted}


def describe(item: PlanItem) -> str:
    return f"{item.kind} {item.name}"


def current_fingerprint(conns: Connections, item: PlanItem) -> str:
    """The item's state now, fingerprinted the way the plan did."""
    cluster = conns.get(item.cluster)
    if item.kind == INDEX:
        return index_fingerprint(install.read_state(cluster, item.name))
    if item.kind == DATA_STREAM:
        found = cluster.request("GET", f"/_data_stream/{segment(item.name)}")["data_streams"]
        return fingerprint(found[0]["indices"][-1]["index_name"] if found else None)
    return fingerprint(templates.get_template(cluster, item.kind, item.name))


def verify(plan: Plan, conns: Connections) -> None:
    """Refuse a saved plan whose items moved since it was made; nothing has changed yet."""
    for item in plan.changes:
        if current_fingerprint(conns, item) != item.fingerprint:
            raise ConflictError(
                f"{describe(item)} changed since the plan was made ({plan.created_at}): "
                "nothing was applied; run qidf plan again and review it")


def _apply_item(conns: Connections, item: PlanItem, progress: Progress) -> dict[str, Any]:
    cluster = conns.get(item.cluster)
    if item.action == REVERT:  # auto decided q = 1 on an index qidf changed
        result = install.revert(cluster, item.name, progress=progress,
                                strategy=install.Strategy(item.strategy))
        return {**result.as_dict(), "kind": item.kind, "name": item.name,
                "decision": item.prediction}
    params = item.qlog_params()
    mode = Mode(item.mode)
    legacy = cluster.engine.default_is_legacy_bm25
    if item.kind == INDEX:
        extra = {"prediction": item.prediction} if item.prediction else {}
        result = install.apply(cluster, item.name, params, mode=mode, field_name=item.field,
                               extra_record=extra, progress=progress,
                               strategy=install.Strategy(item.strategy),
                               stats=item.stats or None)
        return {**result.as_dict(), "kind": item.kind, "name": item.name}
    if item.action == ROLLOVER:
        progress(f"rolling over data stream {item.name}")
        found = cluster.request("POST", f"/{segment(item.name)}/_rollover")
        return {"kind": item.kind, "name": item.name, "changed": True,
                "message": f"{item.name}: rolled over to {found.get('new_index')}, which has "
                           f"{item.after}", "new_index": found.get("new_index")}
    progress(f"validating the similarity on a scratch index for {describe(item)}")
    install.validate_on_scratch_index(cluster, similarity_value(params, mode, legacy))
    body = dict(item.body or {})
    body["_meta"] = {**(body.get("_meta") or {}),
                     render.META_KEY: render.template_record(params, mode, legacy,
                                                             stamped=True)}
    progress(f"writing {describe(item)}")
    templates.put_template(cluster, item.kind, item.name, body)
    return {"kind": item.kind, "name": item.name, "changed": True,
            "message": f"{describe(item)}: {'created' if item.action == 'create' else 'set'} "
                       f"{item.after} (no index closed)"}


def apply_plan(plan: Plan, conns: Connections, *, saved: bool = False,
               progress: Progress = quiet) -> ApplyReport:
    """Apply ``plan`` in order; stop at the first failure. ``saved`` checks first that the
    cluster is still as the plan saw it."""
    if saved:
        verify(plan, conns)
    report = ApplyReport()
    for item in plan.items:
        if not item.changes:
            report.unchanged.append(describe(item))
            continue
        if report.failed is not None or interrupts.held_signal():
            report.not_attempted.append(describe(item))  # a signal: no further change
            continue
        progress(f"{describe(item)}: {item.action}")
        try:
            result = _apply_item(conns, item, progress)
        except (QidfError, InvalidParameter) as exc:
            code = exc.exit_code if isinstance(exc, QidfError) else EXIT_USAGE
            report.failed = {"kind": item.kind, "name": item.name, "error": str(exc),
                             "exit_code": code, "type": type(exc).__name__}
            continue
        # install.apply changes nothing when the index already has it (set since the plan).
        if result.get("changed"):
            report.changed.append(result)
        else:
            report.unchanged.append(describe(item))
    return report
