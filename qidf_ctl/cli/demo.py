"""``qidf demo``: real Go code, the generic ``standard`` analyzer, BM25 against q-log; then
the commands that take the reader from the demo to their own index, ready to paste."""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from qidf_ctl import install
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.engine import Port, config
from qidf_ctl.cli.options import ClusterOptions, Json, ModeOpt, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.cli.paths import check_writable
from qidf_ctl.cluster.connection import DEFAULT_URL
from qidf_ctl.demo.run import GRID
from qidf_ctl.engine import disk, process
from qidf_ctl.engine.config import DEFAULT_PORT, home_dir
from qidf_ctl.install.mode import check_mode

# The demo's own points and 1: the sweep it prints recommends what the demo printed.
SWEEP_GRID = ",".join(f"{q:g}" for q in (*GRID, 1.0))  # `qidf sweep` alone runs 18 q
EXAMPLE_QUERY = "func (h *Header) FileInfo() fs.FileInfo"  # when the demo found no example


@app.command("demo")
@one_line_errors
@with_cluster
def demo_cmd(
    conn: ClusterOptions,
    queries: Annotated[int, typer.Option(help="How many code queries to run.", min=1)] = 500,
    port: Port = None,
    mode: ModeOpt = "auto",
    out_dir: Annotated[str | None, typer.Option(
        "--out-dir", metavar="DIR",
        help="Folder the demo writes its queries and judgements to, for the "
        "commands it prints next (default: demo/ in the qidf home, $QIDF_HOME, next to the "
        "local engine's data).")] = None,
    json_out: Json = False,
) -> None:
    """Index real Go code and compare BM25 with q-log on a real engine, then print the
    commands that take it further (predict, sweep, apply, search, show, mcp, revert),
    ready to paste.

    Runs on the local engine (started if needed), or on the cluster given by --url /
    QIDF_URL or --profile (e.g. the docker-compose one).

    Example: qidf demo --queries 500
    """
    from qidf_ctl.demo import run_demo

    check_mode(mode)
    folder = Path(out_dir).expanduser() if out_dir else home_dir() / "demo"
    check_writable(folder / "queries.jsonl", "--out-dir", folders=True)
    local = not conn.names_a_cluster
    stop_port = None
    if local:
        cfg = config(None, port)
        with step_status(quiet=json_out) as progress:
            info = process.start(cfg, progress)
        conn.url = info["url"]
        stop_port = cfg.port
        warning = disk.local_warning(cfg, len(info["nodes"]))
        if warning and not json_out:
            err.print(f"warning: {warning}", markup=False)
    cluster = conn.connect()
    chosen, reason = install.choose_mode(cluster, mode)
    if not json_out:
        err.print(f"mode: {reason}", markup=False)
    with step_status(quiet=json_out) as progress:
        result = run_demo(cluster, max_queries=queries, mode=chosen, progress=progress,
                          bar=bars(json_out), files_dir=folder)
    steps = next_commands(result, conn, cluster.url, stop_port)
    if json_out:
        emit_json({**dataclasses.asdict(result), "next_commands": [c for c, _ in steps]})
        return
    _print_demo(result, cluster.url)
    _print_next(steps, conn)


def qidf_command() -> str:
    """How to run this qidf again from any folder: ``qidf`` when that name on PATH is this
    program, else its absolute path (``./scripts/demo.sh`` leaves .venv/bin off PATH)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if not argv0 or argv0.endswith(("__main__.py", ".py")):
        return f"{shlex.quote(sys.executable)} -m qidf_ctl"
    program = Path(argv0) if os.sep in argv0 else Path(shutil.which(argv0) or argv0)
    found = shutil.which("qidf")
    try:
        if found and program.exists() and os.path.samefile(found, program):
            return "qidf"
    except OSError:
        pass
    return shlex.quote(str(program.absolute()))


def _connection_args(conn: ClusterOptions, url: str) -> str:
    """The options that name the demo's cluster again (never a credential)."""
    if conn.profile:
        return f" --profile {shlex.quote(conn.profile)}"
    return "" if url == DEFAULT_URL else f" --url {shlex.quote(url)}"


def _search_text(result: Any) -> str:
    """The first line of the demo's example query (a function's signature), to search."""
    head = (result.example or {}).get("code_head") or EXAMPLE_QUERY
    line = head.splitlines()[0].strip().rstrip("{").strip()
    return line or EXAMPLE_QUERY


def next_commands(result: Any, conn: ClusterOptions, url: str,
                  stop_port: int | None) -> list[tuple[str, str]]:
    """(command, what it does) for each next step, each runnable exactly as printed (the
    MCP server until its client closes stdin)."""
    qidf, index = qidf_command(), result.index
    where = _connection_args(conn, url)
    queries = shlex.quote(result.queries_file or "queries.jsonl")
    qrels = shlex.quote(result.qrels_file or "qrels.trec")
    plot = shlex.quote(str(Path(result.queries_file or ".").parent / "sweep.png"))
    recommended = result.recommended_q
    if recommended is not None and recommended < 1:
        apply = (f"{qidf} apply {index} --q {recommended:g}{where}",
                 f"installs q {recommended:g}, what sweep recommends (on an index without "
                 f"judgements: --q auto --queries FILE, here q {result.predicted_q:g})")
    else:
        apply = (f"{qidf} apply {index} --q auto --queries {queries}{where}",
                 "installs the q predict gives (at q = 1 BM25 stays and nothing changes)")
    steps = [
        (f"{qidf} predict {index} --queries {queries}{where}",
         "q from the index and the queries alone (no labels)"),
        (f"{qidf} sweep {index} --queries {queries} --qrels {qrels} --grid {SWEEP_GRID} "
         f"--plot {plot}{where}", "NDCG@10 at each q with the judgements, the recommended q; "
         "draws the curve"),
        apply,
        (f"{qidf} search {index} {shlex.quote(_search_text(result))} --vs bm25{where}",
         "the installed ranking beside BM25's, hit by hit"),
        (f"{qidf} show {index}{where}", "the similarity the index has now"),
        (f"{qidf} mcp {index} --queries {queries}{where}",
         "the MCP server for an agent: register this line with your MCP client (it ranks "
         "with what is installed)"),
        (f"{qidf} revert {index}{where}", "back to what it had before"),
    ]
    if stop_port is not None:
        port = "" if stop_port == DEFAULT_PORT else f" --port {stop_port}"
        steps.append((f"{qidf} engine stop{port}", "stops the local engine"))
    return steps


def _print_demo(result: Any, url: str) -> None:
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
    out.print(f"\nqidf predict with the demo's queries: q = {result.predicted_q:g} (the row "
              f"marked (qidf predict)); {result.predicted_reason}", markup=False,
              soft_wrap=False)
    if result.recommended_reason:
        out.print(f"\nWith the demo's judgements, `qidf sweep` recommends: "
                  f"{result.recommended_reason}", markup=False, soft_wrap=False)
    out.print(f"\nThe index {result.index} on {url} is back on built-in BM25. The demo's "
              f"{result.queries} queries and their judgements are in {result.queries_file} "
              f"and {result.qrels_file}.", markup=False)  # paths to copy: never wrapped


def _print_next(steps: list[tuple[str, str]], conn: ClusterOptions) -> None:
    out.print("\nNext, on this index (each line runs as printed, from any folder):",
              markup=False)
    for command, what in steps:
        out.print(f"  {command}  # {what}", markup=False)
    qidf = steps[0][0].split(" ")[0]
    activate = Path(qidf).parent / "activate"
    if qidf != "qidf" and activate.is_file():
        out.print(f"(to type just `qidf`: source {shlex.quote(str(activate))})", markup=False)
    if any(getattr(conn, k) for k in ("user", "password_file", "api_key_file",
                                      "bearer_token_file", "ca_certs", "aws_region")):
        out.print("(add the connection options you gave the demo: credentials are never "
                  "printed)", markup=False)
    out.print("On your own index, the same commands with its name and your --url (or "
              "--profile): see docs/tutorial/demo.md.", markup=False)
