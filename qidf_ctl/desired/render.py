"""The similarity in every shape a configuration tool takes it: index settings, a
composable index template, a component template, flat settings, and the JSON string of the
Terraform providers' ``index_similarity_default``. Pure: nothing here talks to a cluster,
and ``plan`` writes templates with these same functions.

A field may have its own q (``fields``): the engine allows a similarity per field, but only
when the field is created, so this is for new indices (an index body, a template). Each
such field gets a named similarity, ``index.similarity.qidf_FIELD``, and its mapping names
it (q = 1 names the built-in ``BM25``); the default similarity keeps every other field.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.errors import UsageError
from qidf_ctl.similarity import Mode, QlogParams, flatten, render, similarity_value

META_KEY = "qidf"
FIELD_SIMILARITY_PREFIX = "qidf_"
BUILTIN_BM25 = "BM25"


class RenderFormat(str, Enum):
    """What ``qidf render --format`` prints."""

    SETTINGS = "settings"
    TEMPLATE = "template"
    COMPONENT_TEMPLATE = "component-template"
    FLAT = "flat"
    TERRAFORM = "terraform"


def field_similarity_name(field: str, q: float) -> str:
    """The similarity a field with its own q names: ``qidf_FIELD``, or ``BM25`` at q = 1."""
    if q == 1.0:
        return BUILTIN_BM25
    return FIELD_SIMILARITY_PREFIX + re.sub(r"[^A-Za-z0-9_]", "_", field)


def _nested(path: str, leaf: dict[str, Any]) -> dict[str, Any]:
    """``a.b`` -> ``{"a": {"properties": {"b": leaf}}}`` (an object field's sub-field)."""
    head, _, rest = path.partition(".")
    return {head: _nested_props(rest, leaf)} if rest else {path: leaf}


def _nested_props(path: str, leaf: dict[str, Any]) -> dict[str, Any]:
    return {"properties": _nested(path, leaf)}


def _merge(into: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def field_similarities(fields: Mapping[str, float], params: QlogParams, mode: Mode,
                       legacy: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """(named similarities by name, the mapping's ``properties``) that give each field of
    ``fields`` its own q, k1, b and form as ``params``. A field's mapping holds ``type: text``
    and ``similarity``: merge your own definition (its analyzer) into it."""
    named: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    for field, q in fields.items():
        name = field_similarity_name(field, q)
        if name != BUILTIN_BM25:
            named[name] = similarity_value(QlogParams(q, params.k1, params.b, params.form),
                                           mode, legacy)
        _merge(properties, _nested(field, {"type": "text", "similarity": name}))
    return named, properties


def index_body(params: QlogParams, mode: Mode, legacy: bool,
               fields: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The similarity settings, and with ``fields`` the mapping that names each field's: the
    body of ``PUT INDEX`` (without ``fields``: the settings alone, as before)."""
    settings = render(params, mode, legacy)
    if not fields:
        return settings
    named, properties = field_similarities(fields, params, mode, legacy)
    settings["index"]["similarity"].update(named)
    return {"settings": settings, "mappings": {"properties": properties}}


def template_record(params: QlogParams, mode: Mode, legacy: bool, *,
                    stamped: bool = False, fields: Mapping[str, float] | None = None
                    ) -> dict[str, Any]:
    """``_meta.qidf`` of a template qidf wrote: what it installed; ``stamped`` adds when
    (``at_ms`` tells indices created before it from those created after)."""
    installed: dict[str, Any] = {**params.as_dict(), "mode": mode.value, "legacy_factor": legacy,
                                 "by": f"qidf {__version__}"}
    if fields:
        installed["fields"] = dict(fields)
    if stamped:
        now = time.time()
        installed["at"] = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="seconds")
        installed["at_ms"] = int(now * 1000)
    return {"installed": installed}


def _template(params: QlogParams, mode: Mode, legacy: bool,
              fields: Mapping[str, float] | None) -> dict[str, Any]:
    body = index_body(params, mode, legacy, fields)
    return body if fields else {"settings": body}


def index_template(params: QlogParams, mode: Mode, legacy: bool, patterns: list[str], *,
                   priority: int = 100, data_stream: bool = False,
                   stamped: bool = False, fields: Mapping[str, float] | None = None
                   ) -> dict[str, Any]:
    """The body of ``PUT _index_template/NAME`` that gives new indices the similarity (and
    each field of ``fields`` its own)."""
    body: dict[str, Any] = {
        "index_patterns": list(patterns),
        "priority": priority,
        "template": _template(params, mode, legacy, fields),
        "_meta": {META_KEY: template_record(params, mode, legacy, stamped=stamped,
                                            fields=fields)},
    }
    if data_stream:
        body["data_stream"] = {}
    return body


def component_template(params: QlogParams, mode: Mode, legacy: bool, *,
                       stamped: bool = False, fields: Mapping[str, float] | None = None
                       ) -> dict[str, Any]:
    """The body of ``PUT _component_template/NAME``; index templates list NAME in
    ``composed_of``."""
    return {"template": _template(params, mode, legacy, fields),
            "_meta": {META_KEY: template_record(params, mode, legacy, stamped=stamped,
                                                fields=fields)}}


def terraform_value(params: QlogParams, mode: Mode, legacy: bool) -> str:
    """The JSON string the ``index_similarity_default`` argument takes."""
    return json.dumps(similarity_value(params, mode, legacy), sort_keys=True,
                      separators=(",", ":"))


def render_format(fmt: RenderFormat, params: QlogParams, mode: Mode, legacy: bool, *,
                  patterns: list[str] | None = None, priority: int = 100,
                  data_stream: bool = False, fields: Mapping[str, float] | None = None) -> Any:
    """The similarity in the shape ``fmt`` names (a dict, or a string for terraform);
    ``fields``: a q per field (settings and templates only: the mapping holds it)."""
    if fields and fmt in (RenderFormat.FLAT, RenderFormat.TERRAFORM):
        raise UsageError(f"--format {fmt.value} holds settings only; a field's own similarity "
                         "is named in the mapping: use --format settings, template or "
                         "component-template")
    if fmt is RenderFormat.SETTINGS:
        return index_body(params, mode, legacy, fields)
    if fmt is RenderFormat.FLAT:
        return flatten(render(params, mode, legacy))
    if fmt is RenderFormat.TERRAFORM:
        return terraform_value(params, mode, legacy)
    if fmt is RenderFormat.COMPONENT_TEMPLATE:
        return component_template(params, mode, legacy, fields=fields)
    return index_template(params, mode, legacy, patterns or [], priority=priority,
                          data_stream=data_stream, fields=fields)
