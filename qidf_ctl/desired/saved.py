"""A plan saved by ``qidf plan --out``, read back strictly.

``qidf apply -f plan.json`` applies a saved plan as it is, so the file is checked against
what ``plan`` writes before any cluster is asked: every key known (a key ``plan`` never
writes is a mistake or a newer qidf's format, not something to ignore), every value of its
type, each item's kind, action, strategy and mode one qidf knows, its parameters valid, its
index name a legal name, its cluster one of the plan's profiles. A mistake is one usage error
naming the file, the item and the key.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.cluster import check_name
from qidf_ctl.cluster.profiles import KEYS
from qidf_ctl.desired.items import Plan, PlanItem
from qidf_ctl.desired.kinds import ACTIONS, DATA_STREAM, INDEX, KINDS, NONE, PLAN_FORMAT, REVERT
from qidf_ctl.desired.model import Profile
from qidf_ctl.errors import UsageError
from qidf_ctl.formula import InvalidParameter
from qidf_ctl.similarity import Mode, QlogParams
from qidf_ctl.textfile import kind_of, shown

Check = Callable[[Any], str | None]  # None when the value fits, else what was expected

INDEX_STRATEGIES = ("close", "clone", "reopen")
STRATEGIES = (*INDEX_STRATEGIES, "none")
SCOPES = ("", "index", "shard", "snapshot")
MODES = tuple(m.value for m in Mode)
HINT = "write a new one with qidf plan -f qidf.toml --out plan.json"


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else "a string"


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _object(value: Any) -> str | None:
    return None if isinstance(value, dict) else "an object"


def _list_of(check: Check, what: str) -> Check:
    def inner(value: Any) -> str | None:
        if not isinstance(value, list) or any(check(v) for v in value):
            return f"an array of {what}"
        return None
    return inner


def _choice(values: tuple[str, ...]) -> Check:
    return lambda value: None if value in values else f"one of {', '.join(values)}"


def _number(value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if ok and math.isfinite(value) else "a finite number"


def _integer(value: Any) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"


_BY_KIND: dict[str, Check] = {"string": _optional(_string), "boolean": _boolean,
                              "number": _optional(_number), "integer": _optional(_integer)}


PLAN_KEYS: dict[str, Check] = {
    "format": _string, "source": _string, "sha256": _string, "created_at": _string,
    "qidf_version": _string, "measured": _boolean, "profiles": _object, "clusters": _object,
    "notes": _list_of(_string, "strings"), "summary": _object,
    "items": lambda v: None if isinstance(v, list) else "an array",
}
ITEM_KEYS: dict[str, Check] = {
    "cluster": _optional(_string), "kind": _choice(KINDS), "name": _string,
    "target": _string, "action": _choice(ACTIONS), "strategy": _choice(STRATEGIES),
    "mode": _choice(MODES), "before": _string, "after": _string, "reason": _string,
    "params": _optional(_object), "field": _optional(_string),
    "settings_diff": _list_of(_object, "objects"), "meta_diff": _list_of(_object, "objects"),
    "prediction": _optional(_object), "body": _optional(_object), "fingerprint": _string,
    "notes": _list_of(_string, "strings"), "stats": _choice(SCOPES),
    "stats_before": _string, "stats_only": _boolean,
}
ITEM_REQUIRED = ("cluster", "kind", "name", "target", "action", "strategy", "mode", "before",
                 "after")
# What Profile.as_dict writes: the keys of the one profile model (cluster.profiles.KEYS).
PROFILE_KEYS: dict[str, Check] = {"name": _string, **{k.name: _BY_KIND[k.kind] for k in KEYS}}


def _fail(source: str, where: str, message: str) -> UsageError:
    return UsageError(f"{source}: {where}: {message}")


def _checked(source: str, where: str, data: Any, keys: dict[str, Check],
             required: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _fail(source, where, f"expected an object, got {kind_of(data)}")
    for key, value in data.items():
        if key not in keys:
            close = difflib.get_close_matches(key, list(keys), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _fail(source, where, f"unknown key {shown(key)}{hint}: a saved plan holds "
                        f"only what qidf plan writes; {HINT}")
        expected = keys[key](value)
        if expected:
            raise _fail(source, where, f"{key} must be {expected}, got {kind_of(value)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise _fail(source, where, f"missing {', '.join(missing)}; {HINT}")
    return data


def _profiles(source: str, raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    for name, profile in raw.items():
        values = _checked(source, f"profiles.{name}", profile, PROFILE_KEYS)
        if values.get("name", name) != name:
            raise _fail(source, f"profiles.{name}", f"name {shown(values['name'])} differs "
                        "from the profile's key")
    return raw


def _item(source: str, number: int, raw: Any, profiles: dict[str, Any]) -> PlanItem:
    where = f"item {number}"
    values = _checked(source, where, raw, ITEM_KEYS, ITEM_REQUIRED)
    where = f"item {number} ({values['kind']} {shown(values['name'], 40)})"
    if values["cluster"] is not None and values["cluster"] not in profiles:
        raise _fail(source, where, f"cluster {shown(values['cluster'])} is not one of the "
                    "plan's profiles")
    try:
        if values["kind"] in (INDEX, DATA_STREAM):
            check_name(values["name"], values["kind"].replace("_", " "))
        elif not values["name"].strip():
            raise UsageError("the name is empty")
        params = values.get("params")
        if params is not None:
            unknown = sorted(set(params) - {"q", "k1", "b", "form"})
            if unknown or "q" not in params:
                raise UsageError("params takes q, k1, b and form"
                                 + (f", not {shown(unknown[0])}" if unknown else ""))
            QlogParams(**params)
    except (UsageError, InvalidParameter) as exc:
        raise _fail(source, where, str(exc)) from None
    if values["kind"] == INDEX and values["action"] not in (NONE, REVERT) and \
            values["strategy"] not in INDEX_STRATEGIES and not values.get("stats_only"):
        raise _fail(source, where, "an index change needs strategy "
                    f"{', '.join(INDEX_STRATEGIES)}")
    return PlanItem(**values)


def plan_from_dict(data: Any, source: str = "the saved plan") -> Plan:
    """A :class:`Plan` from the JSON ``qidf plan --out`` wrote; a usage error otherwise."""
    if not isinstance(data, dict) or data.get("format") != PLAN_FORMAT:
        raise UsageError(f"{source}: not a qidf plan (expected \"format\": \"{PLAN_FORMAT}\"): "
                         f"{HINT}")
    _checked(source, "top level", data, PLAN_KEYS, ("format", "items"))
    if not data.get("measured", True):
        raise UsageError(f"{source}: this plan was made without predicting q (by check): "
                         "make one with qidf plan")
    profiles = _profiles(source, data.get("profiles", {}))
    for name, profile in profiles.items():
        Profile(**{"name": name, **profile})  # the types were checked: this cannot fail
    items = [_item(source, n, raw, profiles) for n, raw in enumerate(data["items"], 1)]
    return Plan(data.get("source", ""), data.get("sha256", ""), items, profiles,
                data.get("clusters", {}), data.get("notes", []), data.get("created_at", ""),
                data.get("qidf_version", ""), True)


def read_plan(path: str) -> Plan | None:
    """The plan saved at ``path`` (JSON: its text starts with ``{``); None when the file is a
    desired-state file instead. Read like every input (``qidf_ctl.textfile``)."""
    file = textfile.read(path, "plan or desired-state file", "-f")
    if not file.text.lstrip().startswith("{"):
        return None
    try:
        data = textfile.loads_json(file.text)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON: {exc}") from None
    return plan_from_dict(data, path)
