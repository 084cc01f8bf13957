"""Plans, check reports and apply reports as text a reviewer reads in a pull request (the
JSON forms are the objects' ``as_dict``)."""

from __future__ import annotations

from typing import Any

from qidf_ctl.desired.check import CheckReport
from qidf_ctl.desired.diff import short
from qidf_ctl.desired.execute import ApplyReport
from qidf_ctl.desired.items import CREATE, INDEX, REVERT, ROLLOVER, UPDATE, Plan, PlanItem

_SIGN = {UPDATE: "~", CREATE: "+", ROLLOVER: ">", REVERT: "-"}
_PREDICTION = "_meta.qidf.installed.prediction."


def _how(item: PlanItem) -> str:
    if item.kind == INDEX:
        if item.stats_only:
            return "will set its default search pipeline and record (no close)"
        if item.strategy == "clone":
            return "will CLONE it and move its name (no search downtime)"
        if item.strategy == "reopen":
            return ("will REOPEN it in one _settings?reopen=true call (searches on it fail "
                    "for about a second)")
        return "will CLOSE it (searches on it fail for about a second)"
    if item.action == ROLLOVER:
        return "will ROLL OVER (no close)"
    return ("will create it" if item.action == CREATE else "will update it") + " (no close)"


def _prediction(prediction: dict[str, Any]) -> str:
    stats = prediction.get("statistics") or {}
    size = stats.get("documents")
    sized = f", {size:,} documents" if isinstance(size, int) else ""
    return (f"q auto ({prediction.get('predictor')}, field {prediction.get('field')}{sized}): "
            f"{prediction.get('reason')}")


def item_lines(item: PlanItem) -> list[str]:
    if not item.changes:
        extra = "".join(f"; {n}" for n in item.notes)
        return [f"= {item.kind} {item.name}: in sync ({item.after}){extra}"]
    lines = [f"{_SIGN[item.action]} {item.kind} {item.name}  [{item.target}]  {_how(item)}",
             f"    why:  {item.reason}",
             f"    from: {item.before}",
             f"    to:   {item.after}"]
    if item.settings_diff:
        lines.append("    settings:")
        lines += [f"      {d['key']}: {short(d['before'])} -> {short(d['after'])}"
                  for d in item.settings_diff]
    if item.meta_diff:
        # The prediction's fields are summarised on one line below (JSON has them all).
        rows = [d for d in item.meta_diff if not d["key"].startswith(_PREDICTION)]
        lines.append("    _meta:")
        lines += [f"      {d['key']}: {short(d['before'])} -> {short(d['after'])}"
                  for d in rows]
        if len(rows) < len(item.meta_diff):
            lines.append(f"      {_PREDICTION[:-1]}: the prediction below, with its statistics")
    if item.prediction:
        lines.append(f"    {_prediction(item.prediction)}")
    lines += [f"    note: {n}" for n in item.notes]
    return lines


def format_plan(plan: Plan) -> str:
    digest = f" (sha256 {plan.sha256[:12]})" if plan.sha256 else ""
    lines = [f"qidf plan for {plan.source or 'the command line'}{digest}"]
    lines += [f"cluster {name}: {c['engine']} at {c['url']}" for name, c in plan.clusters.items()]
    lines.append("")
    for item in plan.items:
        lines += item_lines(item)
    lines += [f"note: {n}" for n in plan.notes]
    s = plan.summary()
    lines.append("")
    if not s["to_change"]:
        lines.append(f"Plan: nothing to change; {s['in_sync']} in sync.")
    else:
        extra = "".join(f"{s[k]} {word}, " for k, word in (("reopen", "reopened"), (
            "pipelines", "default search pipelines only")) if s[k])
        lines.append(f"Plan: {s['to_change']} to change ({s['close']} closed, {s['clone']} "
                     f"cloned, {extra}{s['templates']} templates, {s['rollovers']} "
                     f"rollovers); {s['in_sync']} in sync.")
    return "\n".join(lines)


def format_check(report: CheckReport) -> str:
    lines = [f"drift: {d['kind']} {d['name']} [{d['target']}]: {d['reason']}"
             for d in report.drift]
    lines += [f"note: {n}" for n in report.notes]
    checked = len(report.items)
    if report.in_sync:
        lines.append(f"in sync: {checked} items checked")
    else:
        lines.append(f"drift: {len(report.drift)} findings over {checked} items checked "
                     f"(exit {report.exit_code}); `qidf plan` shows the fix, `qidf apply -f` "
                     "makes it")
    return "\n".join(lines)


def format_apply(report: ApplyReport) -> str:
    lines = []
    for change in report.changed:
        closed = change.get("closed_seconds") or 0
        suffix = f" (index closed {closed:.2f}s)" if closed else ""
        lines.append(f"changed: {change.get('message')}{suffix}")
    if report.failed:
        lines.append(f"failed: {report.failed['kind']} {report.failed['name']}: "
                     f"{report.failed['error']}")
        if report.not_attempted:
            lines.append(f"not attempted: {', '.join(report.not_attempted)}")
    lines.append(f"Applied: {len(report.changed)} changed, {len(report.unchanged)} unchanged"
                 + (", stopped at the first failure" if report.failed else "") + ".")
    return "\n".join(lines)
