"""``qidf recover``: finish or roll back an interrupted apply or revert, explicitly."""

from __future__ import annotations

from typing import Annotated

import typer

from qidf_ctl import install, interrupts
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, IndexArg, Json, with_cluster
from qidf_ctl.cli.output import err, step_status
from qidf_ctl.cli.similarity import report_change
from qidf_ctl.cluster import Cluster


@app.command("recover")
@one_line_errors
@with_cluster
def recover_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    force: Annotated[bool, typer.Option(
        "--force", help="Break the lease of a run that still looks alive (its host is "
        "another machine, or it hangs); a warning names it.")] = False,
    json_out: Json = False,
) -> None:
    """Leave the index open and consistent after an interrupted apply or revert: finish it
    or roll it back from qidf's journal, remove scratch indices of dead runs, and rewrite a
    _meta.qidf record that disagrees with the settings. apply and revert do this themselves.

    Example: qidf recover code-search --force
    """
    interrupts.hold_when_changed()
    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        result = install.recover(cluster, index, force=force, progress=progress)
    report_change(result, json_out)


def warn_if_interrupted(cluster: Cluster, index: str, quiet: bool = False) -> None:
    """For read-only commands: one line when an interrupted qidf operation (or a record
    disagreeing with the settings) is found on ``index``."""
    if quiet:
        return
    note = install.pending_notice(cluster, index)
    if note:
        err.print(f"warning: {note}", markup=False)
