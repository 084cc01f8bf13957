"""``qidf plan | check`` and ``qidf apply -f``: the desired-state file (``qidf.toml``) from
CI. The library is ``qidf_ctl.desired``; these commands only read options and print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from qidf_ctl import interrupts
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import fail_after, one_line_errors
from qidf_ctl.cli.options import (
    K1,
    B,
    ClusterOptions,
    Form,
    Json,
    ModeOpt,
    QueriesAre,
    with_cluster,
)
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.cli.paths import check_writable
from qidf_ctl.desired import (
    DEFAULT_FILE,
    Connections,
    Plan,
    Profile,
    apply_plan,
    check,
    load,
    make_plan,
    one_index,
)
from qidf_ctl.desired.saved import read_plan
from qidf_ctl.desired.text import format_apply, format_check, format_plan
from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.formula import IdfForm

ENV_FILE = "QIDF_FILE"
FileOpt = Annotated[str, typer.Option(
    "--file", "-f", metavar="FILE", envvar=ENV_FILE, show_envvar=True,
    help="Desired-state file (see docs/how-to/gitops.md).")]


def _print(text: str) -> None:
    out.print(text, markup=False, highlight=False)


@app.command("plan")
@one_line_errors
@with_cluster
def plan_cmd(
    conn: ClusterOptions,
    file: FileOpt = DEFAULT_FILE,
    save: Annotated[str | None, typer.Option(
        "--out", "-o", metavar="FILE",
        help="Also write the plan as JSON here; `qidf apply -f PLAN.json` "
        "then applies exactly it (refusing if the cluster moved).")] = None,
    json_out: Json = False,
) -> None:
    """Show what applying a desired-state file (qidf.toml) would change; changes nothing.

    Index by index: the settings and _meta diff, whether it will close or clone the index,
    and the q each `auto` target gets with the statistics it came from.

    Targets without `cluster = NAME` use --url / QIDF_URL.

    Example: qidf plan -f qidf.toml --out plan.json
    """
    if save:
        check_writable(save, "--out")
    state = load(file)
    conns = Connections(state.profiles, fallback=conn.settings,
                        connect=conn.connect_settings)
    with step_status(quiet=json_out) as progress:
        plan = make_plan(state, conns, progress=progress, bar=bars(json_out))
    if not json_out:
        _print(format_plan(plan))
    if save:  # after the plan is printed: a write that fails late loses nothing
        try:
            Path(save).write_text(json.dumps(plan.as_dict(), indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            fail_after(plan.as_dict(), exc)
    if json_out:
        emit_json(plan.as_dict())
    elif save:
        _print(f"saved to {save}: apply exactly this with `qidf apply -f {save}`")


@app.command("check")
@one_line_errors
@with_cluster
def check_cmd(
    conn: ClusterOptions,
    index: Annotated[str | None, typer.Argument(
        help="Check one index against --q and the other options instead of a file.")] = None,
    file: FileOpt = DEFAULT_FILE,
    q: Annotated[str | None, typer.Option(
        "--q", metavar="FLOAT|auto",
        help="With INDEX: the q it must have (`auto` with --predictor: q must come "
        "from that predictor).")] = None,
    predictor: Annotated[str | None, typer.Option(
        metavar="NAME", help="With INDEX and --q auto: the predictor q must come from.")] = None,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    mode: ModeOpt = "auto",
    queries_are: QueriesAre = None,
    json_out: Json = False,
) -> None:
    """Exit 0 when the cluster is as the file says, 3 on drift; read-only.

    Other exit codes are errors. With --json, one report object.

    Also asks the engine what a new index matching each managed template would get, and
    reports indices that match a managed template but lack the similarity.

    Example: qidf check -f qidf.toml --json

    Example: qidf check code-search --q 0.3
    """
    if index is not None:
        if q is None:
            raise UsageError("give --q with INDEX (or check a file with -f)")
        values: dict[str, Any] = {"q": q if q.strip().lower() == "auto" else _number(q),
                                  "predictor": predictor, "k1": _number(k1), "b": _number(b),
                                  "form": form, "mode": mode,
                                  "queries_are": queries_are.value if queries_are else None}
        state = one_index(index, values)
    else:
        if queries_are is not None:
            raise UsageError("--queries-are is read only with INDEX and --q auto: in a file, "
                             "a target's queries_are key says it")
        state = load(file)
    conns = Connections(state.profiles, fallback=conn.settings,
                        connect=conn.connect_settings)
    with step_status(quiet=json_out) as progress:
        report = check(state, conns, progress=progress)
    if json_out:
        emit_json(report.as_dict())
    else:
        _print(format_check(report))
    raise typer.Exit(report.exit_code)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"expected a number, got {text!r}") from None


def _load_plan_or_state(path: str, conn: ClusterOptions, json_out: bool
                        ) -> tuple[Plan, Connections, bool]:
    """A saved plan (JSON) is applied as it is; a desired-state file is planned now."""
    try:
        plan = read_plan(path)
    except NotFoundError:
        load(path)  # the one not-found message
        raise
    if plan is not None:
        profiles = {name: Profile(**{"name": name, **p}) for name, p in plan.profiles.items()}
        return plan, Connections(profiles, fallback=conn.settings,
                                 connect=conn.connect_settings), True
    state = load(path)
    conns = Connections(state.profiles, fallback=conn.settings,
                        connect=conn.connect_settings)
    with step_status(quiet=json_out) as progress:
        plan = make_plan(state, conns, progress=progress, bar=bars(json_out))
    return plan, conns, False


def apply_file(file: str | None, *, index: str | None, q: str | None, conn: ClusterOptions,
               dry_run: bool, json_out: bool) -> None:
    """``qidf apply -f FILE``: plan (or read a saved plan), then apply in order, stopping at
    the first failure; exit with that failure's code."""
    if file is None:
        missing = "INDEX" if index is None else "--q"
        raise UsageError(f"give {missing} (qidf apply INDEX --q Q), or -f qidf.toml to "
                         "apply a desired-state file")
    if index is not None or q is not None:
        raise UsageError("-f applies everything the file names: drop INDEX and --q (or "
                         "drop -f)")
    plan, conns, saved = _load_plan_or_state(file, conn, json_out)
    if dry_run:
        if json_out:
            emit_json({"dry_run": True, "plan": plan.as_dict()})
        else:
            _print(format_plan(plan))
            _print("dry run: nothing changed")
        return
    if not json_out:
        _print(format_plan(plan))
        _print("")
    interrupts.hold_when_changed()
    with step_status(quiet=json_out) as progress:
        report = apply_plan(plan, conns, saved=saved, progress=progress)
    if json_out:
        emit_json({**report.as_dict(), "plan": plan.as_dict()})
    else:
        _print(format_apply(report))
    if report.failed:
        err.print(f"error: {report.failed['error']}", markup=False)
        raise typer.Exit(report.exit_code)
