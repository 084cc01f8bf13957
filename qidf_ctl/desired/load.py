"""Reading ``qidf.toml``: TOML, then every key checked against ``spec``; a mistake is one
line naming the file, the target and what to write instead, before any cluster is asked."""

from __future__ import annotations

import difflib
import hashlib
import math
import sys
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.cluster import check_name
from qidf_ctl.cluster.profile_file import parse_profiles
from qidf_ctl.desired import spec
from qidf_ctl.desired.model import DesiredState, Profile, Similarity, Target
from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.formula import InvalidParameter, validate_q
from qidf_ctl.textfile import shown

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_FILE = "qidf.toml"


class DesiredStateError(UsageError):
    """The desired-state file is not valid; nothing was asked of any cluster."""


def check_pattern(pattern: str) -> str:
    """A wildcard index pattern: ``*`` allowed, everything else as for an exact name."""
    if not isinstance(pattern, str) or not pattern.strip("*"):
        raise UsageError(f"pattern {shown(pattern)} must name something besides '*' (qidf does "
                         "not manage every index of a cluster at once)")
    check_name(pattern.replace("*", "x"), "pattern")
    return pattern


def _suggest(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Reader:
    """Validates tables of one file; every error names where it is."""

    def __init__(self, source: str, base: Path | None = None) -> None:
        self.source = source
        self.base = base or Path.cwd()  # relative paths (judgments) start here

    def fail(self, where: str, message: str) -> DesiredStateError:
        return DesiredStateError(f"{self.source}: {where}: {message}")

    def value(self, where: str, key: spec.Key, raw: Any) -> Any:
        kind = key.kind
        ok = {
            "string": isinstance(raw, str) and raw != "",
            "strings": isinstance(raw, list) and all(isinstance(x, str) and x for x in raw),
            "number": isinstance(raw, int | float) and not isinstance(raw, bool),
            "integer": isinstance(raw, int) and not isinstance(raw, bool),
            "boolean": isinstance(raw, bool),
            "q": (isinstance(raw, int | float) and not isinstance(raw, bool))
            or (isinstance(raw, str) and raw.strip().lower() == "auto"),
            "fields": isinstance(raw, dict) and bool(raw) and all(
                isinstance(k, str) and k and isinstance(v, int | float)
                and not isinstance(v, bool) for k, v in raw.items()),
        }.get(kind, False)
        if not ok:
            kind_text = key.type_name.replace("`", "").replace(" \\| ", " or ")  # markdown
            raise self.fail(where, f"{key.name} must be a {kind_text}, got {shown(raw)}")
        if kind == "number" and not math.isfinite(raw):
            raise self.fail(where, f"{key.name} must be finite, got {shown(raw)}")
        if kind == "fields":
            for name, q in raw.items():
                try:
                    validate_q(q)
                except InvalidParameter as exc:
                    raise self.fail(where, f"fields.{name}: {exc}") from None
        if key.choices and raw not in key.choices:
            raise self.fail(where, f"{key.name} must be one of {', '.join(key.choices)}, "
                            f"got {shown(raw)}")
        return raw

    def table(self, where: str, raw: Any, keys: dict[str, spec.Key]) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.fail(where, "must be a table")
        out: dict[str, Any] = {}
        for name, value in raw.items():
            if name in spec.SECRET_KEYS:
                raise self.fail(where, f"{name} is refused: this file is meant to be checked "
                                f"in, so secrets never go in it; use "
                                f"{spec.SECRET_KEYS[name]}")
            if name not in keys:
                raise self.fail(where, f"unknown key {shown(name)}{_suggest(name, list(keys))}")
            out[name] = self.value(where, keys[name], value)
        return out


def _profiles(raw: Any, source: str, base: Path) -> dict[str, Profile]:
    """The ``[clusters.NAME]`` tables, read by the loader the user's config file shares."""
    try:
        return parse_profiles(raw, source, base)
    except UsageError as exc:
        raise DesiredStateError(str(exc)) from None


def _text_only(reader: _Reader, value: Any, where: str = "top level") -> None:
    """Strings hold characters: a NUL (TOML's ``"\\u0000"``) is no part of any name, path or
    URL (``Path.resolve`` raises on one), and a lone surrogate (in text a Python caller
    passes to ``parse``) can be encoded into no request or message."""
    if isinstance(value, str):
        if "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value):
            raise reader.fail(where, f"the string {shown(value)} holds a NUL or a lone "
                              "surrogate (\\ud800-\\udfff) escape: no name, path or URL "
                              "holds one")
    elif isinstance(value, dict):
        for key, item in value.items():
            _text_only(reader, key, where)
            _text_only(reader, item, where)
    elif isinstance(value, list):
        for item in value:
            _text_only(reader, item, where)


def _selector(reader: _Reader, where: str, raw: dict[str, Any]) -> tuple[str, str]:
    chosen = [k for k in spec.SELECTORS if k in raw]
    if len(chosen) != 1:
        names = " / ".join(spec.SELECTORS)
        got = f"got {', '.join(chosen)}" if chosen else "got none"
        raise reader.fail(where, f"give exactly one of {names} ({got})")
    kind = chosen[0]
    name = raw[kind]
    if not isinstance(name, str):
        raise reader.fail(where, f"{kind} must be a string, got {shown(name)}")
    try:
        if kind == "pattern":
            check_pattern(name)
        else:
            check_name(name, kind.replace("_", " "))
    except UsageError as exc:
        raise reader.fail(where, str(exc)) from None
    return kind, name


def _similarity(reader: _Reader, where: str, kind: str, values: dict[str, Any]) -> Similarity:
    if "q" not in values:
        raise reader.fail(where, 'give q (a number in [0, 2], or "auto" with a predictor)')
    q = values["q"]
    auto = isinstance(q, str)
    if auto and kind in spec.TEMPLATE_KINDS:
        raise reader.fail(where, 'q = "auto" needs an index\'s statistics, which a template '
                          "does not have: give a number (e.g. the q `qidf predict` gives on "
                          "an index the template will create)")
    predictor = values.get("predictor")
    if auto:
        if predictor is None:
            raise reader.fail(where, 'q = "auto" needs a pinned predictor, e.g. predictor = '
                              '"qidf-gate", so that a newer qidf cannot change q silently')
        from qidf_ctl.predictors import get

        try:
            get(predictor)
        except UsageError as exc:
            raise reader.fail(where, str(exc)) from None
    if values.get("queries_are") is not None:
        if not auto:
            raise reader.fail(where, 'queries_are is read only with q = "auto": drop it, or '
                              'write q = "auto"')
        from qidf_ctl.predictors import check_query_kind

        try:
            check_query_kind(predictor or "", values["queries_are"])
        except UsageError as exc:
            raise reader.fail(where, str(exc)) from None
    judgments = values.get("judgments")
    if judgments is not None:
        if not auto:
            raise reader.fail(where, 'judgments is read only with q = "auto" (they decide q): '
                              'drop it, or write q = "auto"')
        if not judgments.startswith("ubi:"):
            judgments = str((reader.base / Path(judgments).expanduser()).resolve())
    if values.get("sample") is not None and values["sample"] < 1:
        raise reader.fail(where, f"sample must be >= 1, got {values['sample']}")
    similarity = Similarity(
        q=None if auto else float(q), predictor=predictor if auto else None,
        k1=float(values.get("k1", 1.2)), b=float(values.get("b", 0.75)),
        form=values.get("form", "lucene"), mode=values.get("mode", "auto"),
        strategy=values.get("strategy", "close"), field=values.get("field"),
        sample=values.get("sample"), queries_are=values.get("queries_are"),
        stats=values.get("stats", "auto"), judgments=judgments,
        fields=tuple((k, float(v)) for k, v in (values.get("fields") or {}).items()))
    try:
        similarity.params(1.0 if auto else None)
    except InvalidParameter as exc:
        raise reader.fail(where, str(exc)) from None
    return similarity


def _target(reader: _Reader, number: int, raw: Any, defaults: dict[str, Any],
            profiles: dict[str, Profile]) -> Target:
    where = f"target {number}"
    if not isinstance(raw, dict):
        raise reader.fail(where, "must be a table ([[target]])")
    kind, name = _selector(reader, where, raw)
    where = f"target {number} ({kind} {name})"
    rest = {k: v for k, v in raw.items() if k != kind}
    own = reader.table(where, rest, spec.SIMILARITY_BY_NAME)
    for key in own:
        only = spec.SIMILARITY_BY_NAME[key].only_for
        if only and kind not in only:
            raise reader.fail(where, f"{key} applies only to {', '.join(only)} targets")
    applicable = {k: v for k, v in defaults.items()
                  if not spec.SIMILARITY_BY_NAME[k].only_for
                  or kind in spec.SIMILARITY_BY_NAME[k].only_for}
    values = {**applicable, **own}
    if "queries_are" not in own and not isinstance(values.get("q"), str):
        values.pop("queries_are", None)  # a default statement serves the auto targets only
    if "judgments" not in own and not isinstance(values.get("q"), str):
        values.pop("judgments", None)  # likewise a default source of judgments
    cluster = values.get("cluster")
    if cluster is not None and cluster not in profiles:
        known = ", ".join(sorted(profiles)) or "none defined"
        raise reader.fail(where, f"cluster {shown(cluster)} is not a [clusters.NAME] profile "
                          f"(profiles: {known})")
    patterns = tuple(values.get("patterns", ()))
    try:
        for pattern in patterns:
            check_pattern(pattern)
    except UsageError as exc:
        raise reader.fail(where, str(exc)) from None
    if values.get("priority", 0) < 0:
        raise reader.fail(where, f"priority must be >= 0, got {values['priority']}")
    return Target(
        number=number, kind=kind, name=name, cluster=cluster,
        similarity=_similarity(reader, where, kind, values),
        existing=values.get("existing", True), rollover=values.get("rollover", False),
        patterns=patterns, priority=values.get("priority", 100),
        data_stream=values.get("data_stream", False))


def parse(text: str, source: str = "qidf.toml", base: Path | None = None) -> DesiredState:
    """Validate the text of a desired-state file; ``base`` resolves relative paths."""
    reader = _Reader(source, base)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DesiredStateError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise DesiredStateError(f"{source}: not valid TOML: arrays or tables nested deeper "
                                "than qidf reads") from None
    _text_only(reader, data)
    top = {k.name: k for k in spec.TOP_KEYS}
    for key in data:
        if key not in top:
            raise reader.fail("top level", f"unknown key {shown(key)}{_suggest(key, list(top))}")
    version = data.get("version", spec.FORMAT_VERSION)
    if version != spec.FORMAT_VERSION:
        raise reader.fail("top level", f"version must be {spec.FORMAT_VERSION}, got "
                          f"{shown(version)} (a newer qidf wrote it?)")
    profiles = _profiles(data.get("clusters"), source, base or Path.cwd())
    defaults = reader.table("[defaults]", data.get("defaults", {}), spec.SIMILARITY_BY_NAME)
    raw_targets = data.get("target", [])
    if isinstance(raw_targets, dict):
        raise reader.fail("target", "write [[target]] (an array of tables), not [target]")
    if not isinstance(raw_targets, list) or not raw_targets:
        raise reader.fail("top level", "no [[target]]: name at least one index, alias, "
                          "pattern or template")
    targets = tuple(_target(reader, n, raw, defaults, profiles)
                    for n, raw in enumerate(raw_targets, start=1))
    seen: dict[tuple[str | None, str, str], Target] = {}
    for target in targets:
        ident = (target.cluster, target.kind, target.name)
        if ident in seen:
            raise reader.fail(target.label, f"names the same {target.kind} as "
                              f"{seen[ident].label}: keep one")
        seen[ident] = target
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return DesiredState(source, digest, targets, profiles)


def load(path: str | Path) -> DesiredState:
    """Read and validate a desired-state file."""
    try:
        file = textfile.read(path, "desired-state file", "-f")
    except NotFoundError:
        raise NotFoundError(f"desired-state file {str(path)!r} not found: write one (see "
                            "docs/how-to/gitops.md) or give its path with -f") from None
    return parse(file.text, file.path, Path(file.path).expanduser().resolve().parent)


def one_index(index: str, values: dict[str, Any]) -> DesiredState:
    """The desired state of ``qidf check INDEX --q ...``: one index target from options,
    validated exactly like a file's."""
    raw = {"index": index, **{k: v for k, v in values.items() if v is not None}}
    target = _target(_Reader("command line"), 1, raw, {}, {})
    return DesiredState("", "", (target,), {})
