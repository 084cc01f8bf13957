"""``qidf render | apply | revert | show``: the similarity as settings, on an index."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from qidf_ctl import install
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import (
    K1,
    B,
    ClusterOptions,
    Form,
    IndexArg,
    Json,
    ModeOpt,
    QOpt,
    params_from_options,
    with_cluster,
)
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.cluster import EngineInfo
from qidf_ctl.engine.config import DEFAULT_VERSION
from qidf_ctl.formula import IdfForm
from qidf_ctl.install.mode import check_mode
from qidf_ctl.similarity import Mode, render

DryRun = Annotated[bool, typer.Option(help="Show what would change; change nothing.")]


@app.command("render")
@one_line_errors
def render_cmd(
    q: QOpt,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    engine: Annotated[str, typer.Option(
        help="Target engine and version; decides the (k1 + 1) factor of the built-in "
        "default (e.g. opensearch-2.19.6, opensearch-3.3.0, elasticsearch-8.19.21).",
    )] = f"opensearch-{DEFAULT_VERSION}",
    mode: Annotated[Mode, typer.Option(help="script (Painless) or plugin (native).")] = Mode.SCRIPT,
) -> None:
    """Print the index settings of the q-log similarity, for review or GitOps.

    Example: qidf render --q 0.3 --engine opensearch-2.19.6 > similarity.json
    """
    params = params_from_options(q, k1, b, form)
    info = EngineInfo.parse(engine)
    emit_json(render(params, mode, info.default_is_legacy_bm25))


@app.command("apply")
@one_line_errors
@with_cluster
def apply_cmd(
    index: IndexArg,
    q: QOpt,
    conn: ClusterOptions,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    mode: ModeOpt = "auto",
    field: Annotated[str | None, typer.Option(
        help="Text field that must be affected; refused if its mapping names its own "
        "similarity.")] = None,
    dry_run: DryRun = False,
    json_out: Json = False,
) -> None:
    """Install the q-log similarity on an index (close, update, reopen; under a second).

    `--q auto` predicts q from the index's own statistics (see `qidf predict`) and records
    them next to the previous settings.

    Example: qidf apply code-search --q 0.3
    """
    from qidf_ctl.predictors import predict_for_index

    auto = q.strip().lower() == "auto"
    params = params_from_options("1" if auto else q, k1, b, form)
    check_mode(mode)
    cluster = conn.connect()
    chosen, reason = install.choose_mode(cluster, mode)
    extra: dict[str, Any] = {}
    if auto:
        with step_status(quiet=json_out) as progress:
            prediction = predict_for_index(cluster, index, field, progress=progress,
                                           bar=bars(json_out))
        params = params_from_options(str(prediction.q), k1, b, form)
        extra = prediction.record()
        if not json_out:
            err.print(f"q auto: {prediction.reason}", markup=False)
    with step_status(quiet=json_out) as progress:
        result = install.apply(cluster, index, params, mode=chosen, field_name=field,
                               dry_run=dry_run, extra_record=extra, progress=progress)
    result.mode_reason = reason
    if not json_out:
        err.print(f"mode: {reason}", markup=False)
    _report(result, json_out)


@app.command("revert")
@one_line_errors
@with_cluster
def revert_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    dry_run: DryRun = False,
    json_out: Json = False,
) -> None:
    """Restore the similarity settings the index had before qidf's first apply.

    Example: qidf revert code-search
    """
    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        result = install.revert(cluster, index, dry_run=dry_run, progress=progress)
    _report(result, json_out)


def _report(result: install.ChangeResult, json_out: bool) -> None:
    if json_out:
        emit_json(result.as_dict())
        return
    for warning in result.warnings:
        err.print(f"warning: {warning}", markup=False)
    out.print(result.message, markup=False)
    if result.changed and result.closed_seconds:
        out.print(f"index was closed for {result.closed_seconds:.2f}s", markup=False)
    if result.dry_run:
        out.print(json.dumps({"settings update": result.settings_body}, indent=2), markup=False)


@app.command("show")
@one_line_errors
@with_cluster
def show_cmd(index: IndexArg, conn: ClusterOptions, json_out: Json = False) -> None:
    """Print the index's current similarity and how it was installed.

    Example: qidf show code-search --json
    """
    info = install.show(conn.connect(), index)
    if json_out:
        emit_json(info)
        return
    out.print(f"{info['index']} ({info['engine']}, {info['status']}): {info['similarity']}",
              markup=False)
    installed = (info.get("record") or {}).get("installed")
    if installed:
        out.print(f"installed {installed.get('at')} by {installed.get('by')}", markup=False)
    for field_name, sim in info["fields_with_own_similarity"].items():
        out.print(f"field {field_name} uses its own similarity {sim!r}", markup=False)
