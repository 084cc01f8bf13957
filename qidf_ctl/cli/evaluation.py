"""``qidf eval`` and ``qidf sweep``: retrieval quality on a live index."""

from __future__ import annotations

from typing import Annotated

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import fail_after, one_line_errors
from qidf_ctl.cli.options import ClusterOptions, IndexArg, Json, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.cli.paths import check_writable
from qidf_ctl.cli.recover import warn_if_interrupted
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import QidfError, UsageError
from qidf_ctl.evaluation import evaluate, files, runs
from qidf_ctl.evaluation import plot as plot_lib
from qidf_ctl.evaluation import sweep as sweep_lib
from qidf_ctl.evaluation.bootstrap import DEFAULT_RESAMPLES
from qidf_ctl.evaluation.score import DEFAULT_BUDGET
from qidf_ctl.evaluation.tokens import COUNTERS
from qidf_ctl.formula import validate_q
from qidf_ctl.progress import Progress
from qidf_ctl.similarity import Mode

QueriesOpt = Annotated[str, typer.Option(
    "--queries", metavar="FILE",
    help="Queries: BEIR JSONL ({\"_id\", \"text\"} a line) or qid<TAB>text TSV.")]
QrelsOpt = Annotated[str, typer.Option(
    "--qrels", metavar="FILE",
    help="Judgements: TREC qrels (qid 0 docid rel) or BEIR TSV (qid docid score).")]
FieldOpt = Annotated[str | None, typer.Option(
    "--field", help="Text field to search (default: the index's only text field).")]
MaxQueries = Annotated[int | None, typer.Option(
    "--max-queries", min=1, help="Evaluate a seeded sample of this many judged queries.")]
Seed = Annotated[int, typer.Option("--seed", min=0,
                                   help="Seed of the query sample and bootstrap.")]
MAX_HITS = 10_000  # the engines' index.max_result_window default
QueryTimeOpt = Annotated[bool, typer.Option(
    "--query-time", help="Build q-log into each query (boosted term clauses) instead of "
    "installing it: the index is not changed, search privileges suffice "
    "(the query-time how-to in the docs).")]


@app.command("eval")
@one_line_errors
@with_cluster
def eval_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    queries: QueriesOpt,
    qrels: QrelsOpt,
    field: FieldOpt = None,
    depth: Annotated[int, typer.Option(
        min=1, max=MAX_HITS, help="Hits per query; the token-budget walk stops here too.")]
    = evaluate.DEFAULT_DEPTH,
    budget: Annotated[int, typer.Option(
        min=1, max=10_000_000, help="Token budget of Recall@8K-tokens.")] = DEFAULT_BUDGET,
    token_counter: Annotated[str, typer.Option(
        "--token-counter", metavar="[cl100k|regex]", help=f"Token counter: {' or '.join(COUNTERS)} "
        "(cl100k: tiktoken's GPT-4 BPE, offline; regex: its pre-tokens, a lower bound).")]
    = "cl100k",
    baseline: Annotated[str | None, typer.Option(
        "--baseline", metavar="FILE",
        help="TREC run to compare with: paired bootstrap on NDCG@10.")] = None,
    resamples: Annotated[int, typer.Option(min=1, max=1_000_000, help="Bootstrap resamples.")]
    = DEFAULT_RESAMPLES,
    seed: Seed = 0,
    max_queries: MaxQueries = None,
    run_out: Annotated[str | None, typer.Option(
        "--run-out", metavar="FILE",
        help="Save this run as a TREC run file (a later --baseline).")] = None,
    query_time: QueryTimeOpt = False,
    q: Annotated[str | None, typer.Option(
        "--q", metavar="FLOAT", help="With --query-time: the q to build into the queries.")] = None,
    json_out: Json = False,
) -> None:
    """NDCG@10, MRR@10, Recall@100 and Recall@8K-tokens of the index as configured now.

    Queries the engine returns nothing for count as 0.

    Example: qidf eval code --queries q.jsonl --qrels q.trec --baseline bm25.run
    """
    if query_time != (q is not None):
        raise UsageError("--query-time needs --q, and --q needs --query-time (e.g. "
                         "--query-time --q 0.3); without both, eval measures the index as it is")
    query_time_q = validate_q(q) if q is not None else None
    if run_out:
        check_writable(run_out, "--run-out")
    qs, rel = files.sample_queries(files.read_queries(queries), files.read_qrels(qrels),
                                      max_queries, seed)
    base = runs.read_trec_run(baseline) if baseline else None
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    with step_status(quiet=json_out) as progress:
        result, run = evaluate.evaluate_index(
            cluster, index, qs, rel, field_name=field, depth=depth, budget=budget,
            counter_name=token_counter, baseline=base, resamples=resamples, seed=seed,
            query_time_q=query_time_q, progress=progress, bar=bars(json_out))
    if not json_out:
        _print_eval(result)
    if run_out:  # after the numbers are out: a write that fails late loses nothing
        try:
            runs.write_trec_run(run, run_out)
        except OSError as exc:
            fail_after(result.as_dict(), exc)
    if json_out:
        emit_json(result.as_dict())


def _print_eval(result: evaluate.EvalResult) -> None:
    out.print(f"{result.index} ({result.similarity}), field {result.field}, "
              f"{result.queries} queries, top {result.depth}", markup=False)
    for name, value in result.mean.items():
        out.print(f"  {name:<18} {value:.4f}", markup=False)
    out.print(f"  ({result.token_budget} tokens counted with {result.token_counter}; "
              f"{result.empty_queries} queries returned nothing and count as 0)", markup=False)
    b = result.baseline
    if b is not None:
        out.print(f"vs baseline: NDCG@10 {b.baseline_mean:.4f} -> {b.run_mean:.4f} "
                  f"({b.delta:+.4f}), paired bootstrap p = {b.p_value:.4g}, sign flips in "
                  f"{b.sign_flip_share:.2%} of {b.resamples} resamples", markup=False)


@app.command("sweep")
@one_line_errors
@with_cluster
def sweep_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    queries: QueriesOpt,
    qrels: QrelsOpt,
    grid: Annotated[str, typer.Option(
        metavar="GRID", show_default=False,
        help="q values (0.05,0.1,0.3) or start:stop:step; default: "
        + ", ".join(f"{q:g}" for q in sweep_lib.DEFAULT_GRID) + ".")]
    = ",".join(f"{q:g}" for q in sweep_lib.DEFAULT_GRID),
    plot: Annotated[str | None, typer.Option(
        "--plot", metavar="FILE", help="Write the NDCG@10 curve to this PNG.")] = None,
    field: FieldOpt = None,
    mode: Annotated[Mode, typer.Option(help="script (Painless) or plugin (native).")]
    = Mode.SCRIPT,
    max_queries: MaxQueries = None,
    seed: Seed = 0,
    k1_grid: Annotated[str | None, typer.Option(
        "--k1-grid", metavar="GRID",
        help="Also tune BM25's k1 over these values (with --b-grid: q, k1 and b "
        "jointly; prints the `qidf apply` line of the best).")] = None,
    b_grid: Annotated[str | None, typer.Option(
        "--b-grid", metavar="GRID", help="Also tune BM25's b over these values (0 to 1).")] = None,
    query_time: QueryTimeOpt = False,
    reference: Annotated[str, typer.Option(
        "--reference", metavar="auto|none|FLOAT",
        help="What the recommendation starts from: auto (the q `qidf apply "
        "--q auto` chooses, these queries as its sample), a q (1 = BM25), or none.")]
    = "auto",
    json_out: Json = False,
) -> None:
    """NDCG@10 at every q of a grid, installed in turn on the live index, the oracle q, and
    the recommended q.

    The oracle is the best q for these queries; the recommendation is the best-mean q
    unless resampling the queries (a paired bootstrap) leaves real doubt that it beats the
    reference q (--reference): it carries over to new queries better than the oracle does.

    The index gets its own similarity back at the end, whatever happens. With --k1-grid or
    --b-grid, every (q, k1, b) is installed in turn and the best joint setting is reported
    with its paired bootstrap interval against the index's similarity and the best single
    family. With --query-time the index is never changed (q only: k1 and b live in the
    index's BM25, which query time does not touch).

    Example: qidf sweep code --queries q.jsonl --qrels q.trec --plot sweep.png

    Example: qidf sweep code --queries q.jsonl --qrels q.trec --query-time
    """
    q_grid = sweep_lib.parse_grid(grid)
    fixed_reference = _fixed_reference(reference)
    joint_grids = _joint_grids(k1_grid, b_grid, plot)
    if joint_grids is not None:
        from qidf_ctl.evaluation.joint import joint_grid

        joint_grid(q_grid, *joint_grids)  # the joint grid is bounded before any work
    if query_time and joint_grids is not None:
        raise UsageError("--query-time sweeps q only: k1 and b are the index's own BM25 "
                         "parameters, which query time does not change (drop --k1-grid/--b-grid "
                         "or --query-time)")
    if plot:  # before any file is read or any request sent: the sweep changes the index
        plot_lib.require(plot)
        check_writable(plot, "--plot", folders=True)  # the plot makes its folder
    qs, rel = files.sample_queries(files.read_queries(queries), files.read_qrels(qrels),
                                      max_queries, seed)
    if joint_grids is not None:
        _joint_cmd(conn, index, qs, rel, (q_grid, *joint_grids), field, mode, seed, json_out)
        return
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    measured = sweep_lib.Measured()
    try:
        with step_status(quiet=json_out) as progress:
            ref = (fixed_reference if reference != "auto"
                   else _auto_reference(cluster, index, field, qs, queries, progress))
            result = sweep_lib.sweep(cluster, index, qs, rel, grid=q_grid, field_name=field,
                                     mode=mode, query_time=query_time, reference=ref,
                                     progress=progress, bar=bars(json_out), measured=measured)
    except (QidfError, KeyboardInterrupt) as exc:
        if measured.baseline_ndcg10 is None:
            raise
        if not json_out:
            _print_measured(measured, "measured before the failure")
        fail_after({"partial": True, **measured.as_dict()}, exc)
    if not json_out:
        _print_sweep(result)
    if plot:  # the numbers are printed first: a plot that fails late loses nothing
        try:
            plot_lib.plot(result, plot)
        except (QidfError, OSError) as exc:
            fail_after(result.as_dict(), exc)
    if json_out:
        emit_json({**result.as_dict(), **({"plot": plot} if plot else {})})
    elif plot:
        out.print(f"plot: {plot}", markup=False)


def _print_measured(measured: sweep_lib.Measured, title: str) -> None:
    out.print(f"{title}:", markup=False)
    out.print(f"  baseline ({measured.baseline_similarity}): NDCG@10 "
              f"{measured.baseline_ndcg10:.4f}", markup=False)
    for p in measured.points:
        out.print(f"  q = {p.q:<5g} NDCG@10 {p.ndcg10:.4f}", markup=False)


def _print_sweep(result: sweep_lib.SweepResult) -> None:
    out.print(f"{result.index}, field {result.field}, {result.queries} queries "
              f"({result.seconds:.1f}s)", markup=False)
    out.print(f"  baseline ({result.baseline_similarity}): NDCG@10 "
              f"{result.baseline_ndcg10:.4f}", markup=False)
    for p in result.points:
        mark = "  <- oracle" if p.q == result.oracle_q else ""
        out.print(f"  q = {p.q:<5g} NDCG@10 {p.ndcg10:.4f}{mark}", markup=False)
    if result.recommendation is not None:
        out.print(f"recommended: {result.recommendation.reason}", markup=False)


def _fixed_reference(text: str) -> tuple[float, str] | None:
    """``--reference`` as a number or none, checked before any work (auto: None here)."""
    if text in ("auto", "none"):
        return None
    try:
        q = validate_q(text)
    except UsageError as e:
        raise UsageError(f"--reference takes auto, none or a q: {e}") from None
    return q, "BM25" if q == 1.0 else "given with --reference"


def _auto_reference(cluster: Cluster, index: str, field: str | None, qs: dict[str, str],
                    source: str, progress: Progress) -> tuple[float, str] | None:
    """What ``apply --q auto`` would choose with these queries as its sample; None, with a
    warning on stderr (also under --json: stdout stays one JSON object), when the index
    cannot be measured (e.g. a user with search privileges only)."""
    from qidf_ctl.errors import QidfError
    from qidf_ctl.predictors.prediction import predict_for_index
    from qidf_ctl.stats.query_sample import from_texts

    try:
        prediction = predict_for_index(cluster, index, field, queries=from_texts(qs, source),
                                       progress=progress)
    except QidfError as e:
        err.print(f"warning: no recommendation: --q auto could not be computed ({e}); "
                  "pass --reference Q to start from a q of your own", markup=False)
        return None
    return prediction.q, "--q auto"


def _joint_grids(k1_grid: str | None, b_grid: str | None,
                 plot: str | None) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The k1 and b grids of a joint sweep (None: a q sweep), checked before any work."""
    from qidf_ctl.errors import UsageError
    from qidf_ctl.evaluation import joint

    if k1_grid is None and b_grid is None:
        return None
    if plot:
        raise UsageError("--plot draws the q curve; it does not combine with --k1-grid or "
                         "--b-grid (drop one of them)")
    return (joint.parse_k1_grid(k1_grid) if k1_grid is not None else (joint.DEFAULT_K1,),
            joint.parse_b_grid(b_grid) if b_grid is not None else (joint.DEFAULT_B,))


def _joint_cmd(conn: ClusterOptions, index: str, qs: dict[str, str], rel: files.Qrels,
               grids: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]],
               field: str | None, mode: Mode, seed: int, json_out: bool) -> None:
    """``qidf sweep --k1-grid/--b-grid``: q, k1 and b tuned together."""
    from qidf_ctl.evaluation import joint

    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        result = joint.joint_sweep(cluster, index, qs, rel, q_grid=grids[0], k1_grid=grids[1],
                                   b_grid=grids[2], field_name=field, mode=mode, seed=seed,
                                   progress=progress, bar=bars(json_out))
    if json_out:
        emit_json(result.as_dict())
        return
    out.print(f"{result.index}, field {result.field}, {result.queries} queries, "
              f"{len(result.points)} settings ({result.seconds:.1f}s)", markup=False)
    out.print(f"  baseline ({result.baseline_similarity}): NDCG@10 "
              f"{result.baseline_ndcg10:.4f}", markup=False)
    for name, p in (("q-log, k1 and b at defaults", result.best_q_only),
                    ("BM25 (q = 1), k1 and b tuned", result.best_bm25_only),
                    ("joint", result.best)):
        out.print(f"  best {name:<28} {p.label:<22} NDCG@10 {p.ndcg10:.4f}", markup=False)
    for name, iv in (("the baseline", result.vs_baseline),
                     (f"the best single family, {result.best_single}", result.vs_best_single)):
        out.print(f"  joint vs {name}: {iv.delta:+.4f}, 95% interval [{iv.low:+.4f}, "
                  f"{iv.high:+.4f}], p = {iv.p_value:.4g}", markup=False)
    out.print("  (chosen on these queries: check it on others with `qidf eval`)", markup=False)
    out.print(f"install it: {result.apply_command}", markup=False)
