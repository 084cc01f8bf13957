"""What differs between what an index (or template) has and what the file asks for: a key
by key diff of the settings and of qidf's ``_meta`` record, and one line a reviewer reads."""

from __future__ import annotations

from typing import Any

from qidf_ctl.similarity import SETTING_PREFIX, Installed, Mode, QlogParams, flatten

# Record keys that change on every write and say nothing about the similarity.
_VOLATILE = ("installed.at", "installed.at_ms", "installed.by",
             "installed.prediction.measured_at")
_LONG = 72


def _same(a: Any, b: Any) -> bool:
    """Equal as the engine stores settings (every value a string; booleans lower-case)."""
    def norm(x: Any) -> str | None:
        if x is None:
            return None
        return str(x).lower() if isinstance(x, bool) else str(x)
    return norm(a) == norm(b)


def settings_diff(current: dict[str, Any], target: dict[str, Any],
                  prefix: str = SETTING_PREFIX) -> list[dict[str, Any]]:
    """Changed, added and removed ``index.similarity.default.*`` keys (or under another
    ``prefix``), sorted."""
    rows = []
    for key in sorted(set(current) | set(target)):
        before, after = current.get(key), target.get(key)
        if not _same(before, after):
            rows.append({"key": prefix + key, "before": before, "after": after})
    return rows


def _meta_flat(record: dict[str, Any] | None) -> dict[str, Any]:
    flat = flatten(record or {})
    return {k: v for k, v in flat.items()
            if k not in _VOLATILE and not k.startswith("installed.prediction.statistics.")}


def meta_diff(before: dict[str, Any] | None, after: dict[str, Any] | None
              ) -> list[dict[str, Any]]:
    """Changed keys of ``_meta.qidf`` (timestamps and raw statistics left out: the plan
    shows the statistics on their own)."""
    old, new = _meta_flat(before), _meta_flat(after)
    return [{"key": f"_meta.qidf.{k}", "before": old.get(k), "after": new.get(k)}
            for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


def short(value: Any) -> str:
    """A value as one readable line: a script by its first line (qidf's marker names its
    parameters) and its length."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return str(value).lower()
    text = str(value)
    first = text.splitlines()[0] if text else text
    if len(text) <= _LONG and first == text:
        return repr(value) if isinstance(value, str) else text
    return f"{first[:_LONG]!r}... ({len(text)} chars)"


def drift_reason(installed: Installed, params: QlogParams | None, mode: Mode,
                 what: str = "has") -> str:
    """Why ``installed`` is not the wanted similarity, in a few words (``params`` None: the
    wanted q is predicted later, so q itself is not compared)."""
    if installed.kind == "builtin":
        return f"{what} {installed.describe()}, not q-log"
    if installed.kind != "qlog" or installed.params is None:
        return f"{what} a custom similarity not installed by qidf"
    have = installed.params
    diffs = []
    if params is not None and have.q != params.q:
        diffs.append(f"q {have.q:g} (want {params.q:g})")
    if params is not None:
        for name in ("k1", "b"):
            if getattr(have, name) != getattr(params, name):
                diffs.append(f"{name} {getattr(have, name):g} (want {getattr(params, name):g})")
        if have.form != params.form:
            diffs.append(f"form {have.form.value} (want {params.form.value})")
    if installed.mode is not mode:
        got = installed.mode.value if installed.mode else "?"
        diffs.append(f"mode {got} (want {mode.value})")
    if not diffs:
        return f"{what} q-log settings that differ from qidf's rendering (edited by hand?)"
    return f"{what} " + ", ".join(diffs)
