"""``qidf demo``: real Go code, the generic ``standard`` analyzer, BM25 against q-log."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import typer

from qidf_ctl import install
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.engine import Port, config
from qidf_ctl.cli.options import ClusterOptions, Json, ModeOpt, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.engine import disk, process
from qidf_ctl.install.mode import check_mode


@app.command("demo")
@one_line_errors
@with_cluster
def demo_cmd(
    conn: ClusterOptions,
    queries: Annotated[int, typer.Option(help="How many code queries to run.", min=1)] = 500,
    port: Port = None,
    mode: ModeOpt = "auto",
    json_out: Json = False,
) -> None:
    """Index real Go code and compare BM25 with q-log on a real engine.

    Runs on the local engine (started if needed), or on the cluster given by --url /
    QIDF_URL (e.g. the docker-compose one).

    Example:

      qidf demo --queries 500
    """
    from qidf_ctl.demo import run_demo

    check_mode(mode)
    local = not conn.names_a_cluster
    if local:
        cfg = config(None, port)
        with step_status(quiet=json_out) as progress:
            info = process.start(cfg, progress)
        conn.url = info["url"]
        warning = disk.local_warning(cfg, len(info["nodes"]))
        if warning and not json_out:
            err.print(f"warning: {warning}", markup=False)
    cluster = conn.connect()
    chosen, reason = install.choose_mode(cluster, mode)
    if not json_out:
        err.print(f"mode: {reason}", markup=False)
    with step_status(quiet=json_out) as progress:
        result = run_demo(cluster, max_queries=queries, mode=chosen, progress=progress,
                          bar=bars(json_out))
    if json_out:
        emit_json(dataclasses.asdict(result))
        return
    _print_demo(result, cluster.url, local)


def _print_demo(result: Any, url: str, local: bool) -> None:
    from rich.table import Table

    how = "the native plugin" if result.mode == "plugin" else "Painless"
    table = Table(title=f"Go standard library, code -> docstring ({result.queries} queries, "
                  f"{result.documents} docstrings, analyzer: standard; q-log via {how})")
    for col in ("similarity", "NDCG@10", "MRR@10", "Recall@100"):
        table.add_column(col, justify="right" if col != "similarity" else "left")
    base = result.rows[0].ndcg10
    for row in result.rows:
        delta = f" ({(row.ndcg10 - base) / base:+.0%})" if row.q is not None and base else ""
        table.add_row(row.label, f"{row.ndcg10:.4f}{delta}", f"{row.mrr10:.4f}",
                      f"{row.recall100:.4f}")
    out.print(table)
    ex = result.example
    if ex:
        out.print(f"\nExample: the gold docstring moves from rank {ex['bm25_rank'] or '>100'} "
                  f"(BM25) to rank {ex['qlog_rank']} ({ex['qlog_label']}).", markup=False)
        out.print(f"query (code):\n{ex['code_head']}\n...", markup=False)
        out.print(f"gold docstring: {ex['gold_doc']}", markup=False)
    where = "" if local else f" --url {url}"
    stop = "\n  qidf engine stop           (stops the local engine)" if local else ""
    out.print(f"\nThe index {result.index} on {url} is back on built-in BM25. Next, try:\n"
              f"  qidf predict {result.index}{where}\n"
              f"  qidf apply {result.index} --q auto{where}\n"
              f"  qidf show {result.index}{where}\n  qidf revert {result.index}{where}{stop}",
              markup=False)


