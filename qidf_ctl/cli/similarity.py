"""``qidf apply | revert | show``: the similarity on an index (``render`` is in render.py)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from qidf_ctl import install
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.desired import apply_file
from qidf_ctl.cli.options import (
    K1,
    B,
    ClusterOptions,
    Form,
    IndexArg,
    Json,
    ModeOpt,
    params_from_options,
    with_cluster,
)
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.cli.sharding import sharding_warning
from qidf_ctl.formula import IdfForm
from qidf_ctl.install.mode import check_mode

DryRun = Annotated[bool, typer.Option(help="Show what would change; change nothing.")]


@app.command("apply")
@one_line_errors
@with_cluster
def apply_cmd(
    conn: ClusterOptions,
    index: Annotated[str | None, typer.Argument(
        help="Index (or alias to one index); omitted with -f.")] = None,
    q: Annotated[str | None, typer.Option(
        "--q", help="q in [0, 2]; 1 is plain BM25; `auto` predicts it from the index.")] = None,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    mode: ModeOpt = "auto",
    field: Annotated[str | None, typer.Option(
        help="Text field that must be affected; refused if its mapping names its own "
        "similarity.")] = None,
    dry_run: DryRun = False,
    json_out: Json = False,
    file: Annotated[str | None, typer.Option(
        "--file", "-f", help="Apply a desired-state file (qidf.toml) or a plan saved by "
        "`qidf plan --out`, instead of one index: see `qidf plan --help`.")] = None,
) -> None:
    """Install the q-log similarity on an index (close, update, reopen; under a second).

    `--q auto` predicts q from the index's own statistics (see `qidf predict`) and records
    them next to the previous settings.

    Example: qidf apply code-search --q 0.3
    """
    if file is not None or index is None or q is None:  # -f: the desired-state file
        return apply_file(file, index=index, q=q, conn=conn, dry_run=dry_run, json_out=json_out)
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
    info["sharding_warning"] = sharding_warning(info["shards"])
    if json_out:
        emit_json(info)
        return
    if info["sharding_warning"]:
        err.print(f"warning: {info['sharding_warning']}", markup=False)
    out.print(f"{info['index']} ({info['engine']}, {info['status']}): {info['similarity']}",
              markup=False)
    installed = (info.get("record") or {}).get("installed")
    if installed:
        out.print(f"installed {installed.get('at')} by {installed.get('by')}", markup=False)
    for field_name, sim in info["fields_with_own_similarity"].items():
        out.print(f"field {field_name} uses its own similarity {sim!r}", markup=False)
