"""``qidf snapshot refresh``: the statistics snapshot of ``apply --stats snapshot``."""

from __future__ import annotations

import typer

from qidf_ctl import install, interrupts
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, IndexArg, Json, with_cluster
from qidf_ctl.cli.output import step_status
from qidf_ctl.cli.similarity import AllowHidden, report_change

snapshot_app = typer.Typer(
    help="Statistics snapshots: the index-wide df and N the plugin's similarity scores plain "
    "searches with (apply --stats snapshot), taken again when the index has changed enough.",
    no_args_is_help=True)
app.add_typer(snapshot_app, name="snapshot")


@snapshot_app.command("refresh")
@one_line_errors
@with_cluster
def refresh_cmd(index: IndexArg, conn: ClusterOptions, allow_hidden: AllowHidden = False,
                json_out: Json = False) -> None:
    """Take the index's statistics snapshot again: no close, no setting changes; every data
    node loads the new generation and searches move to it. `qidf show` says how many
    documents were added since the last one and when a refresh is due.

    Example: qidf snapshot refresh code-search
    """
    interrupts.hold_when_changed()
    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        result = install.refresh(cluster, index, allow_hidden=allow_hidden, progress=progress)
    report_change(result, json_out)
