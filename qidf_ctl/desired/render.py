"""The similarity in every shape a configuration tool takes it: index settings, a
composable index template, a component template, flat settings, and the JSON string of the
Terraform providers' ``index_similarity_default``. Pure: nothing here talks to a cluster,
and ``plan`` writes templates with these same functions."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.similarity import Mode, QlogParams, flatten, render, similarity_value

META_KEY = "qidf"


class RenderFormat(str, Enum):
    """What ``qidf render --format`` prints."""

    SETTINGS = "settings"
    TEMPLATE = "template"
    COMPONENT_TEMPLATE = "component-template"
    FLAT = "flat"
    TERRAFORM = "terraform"


def template_record(params: QlogParams, mode: Mode, legacy: bool, *,
                    stamped: bool = False) -> dict[str, Any]:
    """``_meta.qidf`` of a template qidf wrote: what it installed; ``stamped`` adds when
    (``at_ms`` tells indices created before it from those created after)."""
    installed: dict[str, Any] = {**params.as_dict(), "mode": mode.value, "legacy_factor": legacy,
                                 "by": f"qidf {__version__}"}
    if stamped:
        now = time.time()
        installed["at"] = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="seconds")
        installed["at_ms"] = int(now * 1000)
    return {"installed": installed}


def index_template(params: QlogParams, mode: Mode, legacy: bool, patterns: list[str], *,
                   priority: int = 100, data_stream: bool = False,
                   stamped: bool = False) -> dict[str, Any]:
    """The body of ``PUT _index_template/NAME`` that gives new indices the similarity."""
    body: dict[str, Any] = {
        "index_patterns": list(patterns),
        "priority": priority,
        "template": {"settings": render(params, mode, legacy)},
        "_meta": {META_KEY: template_record(params, mode, legacy, stamped=stamped)},
    }
    if data_stream:
        body["data_stream"] = {}
    return body


def component_template(params: QlogParams, mode: Mode, legacy: bool, *,
                       stamped: bool = False) -> dict[str, Any]:
    """The body of ``PUT _component_template/NAME``; index templates list NAME in
    ``composed_of``."""
    return {"template": {"settings": render(params, mode, legacy)},
            "_meta": {META_KEY: template_record(params, mode, legacy, stamped=stamped)}}


def terraform_value(params: QlogParams, mode: Mode, legacy: bool) -> str:
    """The JSON string the ``index_similarity_default`` argument takes."""
    return json.dumps(similarity_value(params, mode, legacy), sort_keys=True,
                      separators=(",", ":"))


def render_format(fmt: RenderFormat, params: QlogParams, mode: Mode, legacy: bool, *,
                  patterns: list[str] | None = None, priority: int = 100,
                  data_stream: bool = False) -> Any:
    """The similarity in the shape ``fmt`` names (a dict, or a string for terraform)."""
    if fmt is RenderFormat.SETTINGS:
        return render(params, mode, legacy)
    if fmt is RenderFormat.FLAT:
        return flatten(render(params, mode, legacy))
    if fmt is RenderFormat.TERRAFORM:
        return terraform_value(params, mode, legacy)
    if fmt is RenderFormat.COMPONENT_TEMPLATE:
        return component_template(params, mode, legacy)
    return index_template(params, mode, legacy, patterns or [], priority=priority,
                          data_stream=data_stream)
