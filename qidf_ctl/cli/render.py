"""``qidf render``: the similarity as settings, a template, flat settings or a Terraform
argument, for review, GitOps and configuration tools. Talks to no cluster."""

from __future__ import annotations

import re
import sys
from typing import Annotated

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import K1, B, Form, Json, QOpt, params_from_options
from qidf_ctl.cli.output import emit_json
from qidf_ctl.cluster import EngineInfo
from qidf_ctl.desired import RenderFormat, render_format
from qidf_ctl.desired.load import check_pattern
from qidf_ctl.engine.config import DEFAULT_VERSION
from qidf_ctl.errors import UsageError
from qidf_ctl.formula import IdfForm, validate_q
from qidf_ctl.similarity import Mode


@app.command("render")
@one_line_errors
def render_cmd(
    q: QOpt,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    engine: Annotated[str, typer.Option(
        metavar="ENGINE",
        help="Target engine and version; decides the (k1 + 1) factor of the built-in "
        "default (e.g. opensearch-2.19.6, opensearch-3.3.0, elasticsearch-8.19.21).",
    )] = f"opensearch-{DEFAULT_VERSION}",
    mode: Annotated[Mode, typer.Option(help="script (Painless) or plugin (native).")] = Mode.SCRIPT,
    fmt: Annotated[RenderFormat, typer.Option(
        "--format", help="settings: the index settings body; template: a composable index "
        "template (needs --pattern); component-template: a component template; flat: "
        "flat setting keys; terraform: the JSON string for index_similarity_default.")]
    = RenderFormat.SETTINGS,
    pattern: Annotated[list[str] | None, typer.Option(
        "--pattern", help="Index pattern of the template (--format template); repeat for "
        "several.")] = None,
    priority: Annotated[int, typer.Option(min=0, help="Priority of the index template.")]
    = 100,
    data_stream: Annotated[bool, typer.Option(
        "--data-stream", help="Make the index template a data stream template.")] = False,
    field_q: Annotated[str | None, typer.Option(
        "--field-q", metavar="F=Q,...",
        help="Give these fields their own q (code=0.3,doc=1): a named similarity each "
        "(qidf_FIELD; q 1 names the built-in BM25) and the mapping that names it, for a new "
        "index or a template (a field's similarity is fixed when the index is created). "
        "Merge your field definitions (analyzer) into the printed mapping.")] = None,
    json_out: Json = False,
) -> None:
    """Print the q-log similarity as settings, a template, flat keys or a Terraform value;
    with --field-q, a q of their own for some fields of a new index.

    Example: qidf render --q 0.3 > similarity.json

    Example: qidf render --q 0.6 --field-q doc=1 > new-index.json

    The index settings: the body of PUT INDEX, or of _settings on a closed index. The other
    formats (copy-paste; URL is the cluster):

      JSON='content-type: application/json'

      # a composable index template: new indices matching get it at creation
      qidf render --q 0.3 --format template --pattern 'code-logs-*' > tpl.json
      curl -XPUT "$URL/_index_template/code-logs" -H "$JSON" -d @tpl.json

      # a component template, for index templates to list in composed_of
      qidf render --q 0.3 --format component-template > comp.json
      curl -XPUT "$URL/_component_template/qidf-sim" -H "$JSON" -d @comp.json

      # flat keys: {"index.similarity.default.type": ...}
      qidf render --q 0.3 --format flat

      # Terraform: index_similarity_default = file("qidf-similarity.json")
      qidf render --q 0.3 --format terraform > qidf-similarity.json
    """
    if q.strip().lower() == "auto":
        raise UsageError("render has no index to predict q from: give a number (`qidf "
                         "predict INDEX` prints the q auto would pick)")
    params = params_from_options(q, k1, b, form)
    info = EngineInfo.parse(engine)
    patterns = [check_pattern(p) for p in pattern or []]
    if fmt is RenderFormat.TEMPLATE and not patterns:
        raise UsageError("--format template needs --pattern PATTERN: the index names the "
                         "template applies to (e.g. --pattern 'code-logs-*')")
    if patterns and fmt is not RenderFormat.TEMPLATE:
        raise UsageError("--pattern applies only to --format template")
    fields = _field_qs(field_q)
    value = render_format(fmt, params, mode, info.default_is_legacy_bm25, patterns=patterns,
                          priority=priority, data_stream=data_stream, fields=fields)
    if json_out:
        emit_json({"format": fmt.value, "engine": info.spelling, "mode": mode.value,
                   "params": params.as_dict(), "fields": fields or None, "value": value})
    elif isinstance(value, str):
        sys.stdout.write(value + "\n")
    else:
        emit_json(value)


def _field_qs(text: str | None) -> dict[str, float] | None:
    """``code=0.3,doc=1`` as {field: q}; each field a plain dotted name, each q in [0, 2]."""
    if text is None:
        return None
    found: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = (s.strip() for s in part.partition("="))
        if not sep or not name or not re.fullmatch(r"[A-Za-z0-9_@-]+(\.[A-Za-z0-9_@-]+)*", name):
            raise UsageError(f"--field-q takes FIELD=Q pairs such as code=0.3,doc=1, got "
                             f"{part.strip()!r}")
        if name in found:
            raise UsageError(f"--field-q names field {name!r} twice")
        found[name] = validate_q(value)
    return found

