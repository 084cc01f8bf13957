"""``qidf apply | revert | show``: the similarity on an index (``render`` is in render.py)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from qidf_ctl import install, interrupts
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.desired import apply_file
from qidf_ctl.cli.judgments import (
    JudgmentsOpt,
    decide_with,
    judged_line,
    loaded,
    suggest_judgments,
)
from qidf_ctl.cli.options import (
    K1,
    B,
    ClusterOptions,
    Form,
    IndexArg,
    Json,
    ModeOpt,
    QueriesAre,
    params_from_options,
    with_cluster,
)
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.formula import IdfForm
from qidf_ctl.install import scope
from qidf_ctl.install.auto import BM25_STAYS
from qidf_ctl.install.mode import check_mode
from qidf_ctl.predictors import QueryKind
from qidf_ctl.similarity import Mode, QlogParams

DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; change nothing.")]
StrategyOpt = Annotated[install.Strategy, typer.Option(
    "--strategy", help="close (the default): close, update, reopen; searches and writes fail "
    "for the printed window, no extra disk. clone: searches keep working, writes are refused "
    "(403, retryable) for the printed window, the index becomes an alias of a hard-linked "
    "clone. reopen (Elasticsearch 8.12+): one settings call that closes, updates and reopens "
    "the index. The costs of each, measured: the apply-safety page of the docs.")]
StatsOpt = Annotated[str, typer.Option(
    "--stats", metavar="[auto|snapshot|index|shard]",
    help="Statistics the index's scoring searches use, for every client, with no "
    "change to the application: snapshot (the plugin's similarity scores plain searches with "
    "index-wide df and N taken once, at the cost of a plain search; `qidf snapshot refresh` "
    "takes them again), index (a default search pipeline of qidf's runs them with index-wide "
    "df, as dfs_query_then_fetch does, one extra round trip; OpenSearch with the qidf plugin "
    "on every node), shard (the engine's default: each shard its own df and N), or auto "
    "(snapshot when the index has several shards and the plugin's similarity and snapshots "
    "are on every node, else index where every node has the processor). A default pipeline "
    "the index already has keeps running, its processors first. See the shards page of the "
    "docs.")]
AllowHidden = Annotated[bool, typer.Option(
    "--allow-hidden", help="Allow a hidden or system index (dot names, index.hidden).")]


@app.command("apply")
@one_line_errors
@with_cluster
def apply_cmd(
    conn: ClusterOptions,
    index: Annotated[str | None, typer.Argument(
        help="Index (or alias to one index); omitted with -f.")] = None,
    q: Annotated[str | None, typer.Option(
        "--q", metavar="FLOAT|auto",
        help="q in [0, 2], installed as given (`--q 1` installs q-log at q = 1: BM25's "
        "ranking through qidf's similarity; `qidf revert` goes back to the built-in one); "
        "`auto` decides q from the index, and a decision of q = 1 changes nothing.")] = None,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    mode: ModeOpt = "auto",
    field: Annotated[str | None, typer.Option(
        help="Text field that must be affected; refused if its mapping names its own "
        "similarity.")] = None,
    strategy: StrategyOpt = install.Strategy.CLOSE,
    stats: StatsOpt = scope.AUTO,
    allow_hidden: AllowHidden = False,
    dry_run: DryRun = False,
    queries: Annotated[str | None, typer.Option(
        "--queries", metavar="FILE",
        help="With --q auto: an unlabeled sample of real queries, as `qidf "
        "predict --queries` reads it.")] = None,
    queries_are: QueriesAre = None,
    judgments: JudgmentsOpt = None,
    json_out: Json = False,
    file: Annotated[str | None, typer.Option(
        "--file", "-f", metavar="FILE",
        help="Apply a desired-state file (qidf.toml) or a plan saved by "
        "`qidf plan --out`, instead of one index: see `qidf plan --help`.")] = None,
) -> None:
    """Install the q-log similarity on an index (close, update, reopen; or --strategy clone:
    searches keep working), and on an index of several shards have its scoring searches use
    index-wide statistics (--stats).

    `--q auto` decides q from the index's own statistics (see `qidf predict`; with `--queries
    FILE`, from a query sample too; with `--queries-are code|text`, from what you state) and
    records them next to the previous settings. With `--judgments DIR` (what `qidf judgments
    git` or `ubi` wrote) your judged queries decide instead: the older choose q through
    sweep's bootstrap guard, the newer report; the source, its size and the split are
    recorded with the decision. A decision of q = 1 (BM25 stays) changes
    nothing: an index qidf never changed is left exactly as it is (one line says so, exit
    0), and one qidf changed earlier is reverted to its previous similarity, as `qidf
    revert` does. An interrupted earlier apply or revert on the index is finished or rolled
    back first.

    Example: qidf apply code-search --q 0.3 --strategy clone --stats index
    """
    from qidf_ctl.errors import UsageError

    if file is not None or index is None or q is None:  # -f: the desired-state file
        for given, flag in ((queries, "--queries"), (queries_are, "--queries-are"),
                            (judgments, "--judgments")):
            if given:
                raise UsageError(f"{flag} is read only with one index and --q auto: drop it "
                                 "with -f (a target's queries_are key says it there)")
        return apply_file(file, index=index, q=q, conn=conn, dry_run=dry_run, json_out=json_out)
    auto = q.strip().lower() == "auto"
    for given, flag in ((queries, "--queries"), (queries_are, "--queries-are"),
                        (judgments, "--judgments")):
        if given and not auto:
            raise UsageError(f"{flag} is read only with --q auto: drop it or use --q auto")
        if given and judgments and flag != "--judgments":
            raise UsageError(f"{flag} feeds the label-free prediction; with --judgments your "
                             "judgments decide: drop one of them")
    params = params_from_options("1" if auto else q, k1, b, form)
    check_mode(mode)
    scope.check_choice(stats)
    if auto:
        return _apply_auto(conn, index, params, mode=mode, field=field, strategy=strategy,
                           stats=stats, allow_hidden=allow_hidden, dry_run=dry_run,
                           queries=queries, queries_are=queries_are, json_out=json_out,
                           judgments=loaded(judgments) if judgments else None)
    cluster = conn.connect()
    install.check_supported(cluster.engine, strategy)
    chosen, reason = install.choose_mode(cluster, mode)
    interrupts.hold_when_changed()
    with step_status(quiet=json_out) as progress:
        result = install.apply(cluster, index, params, mode=chosen, strategy=strategy,
                               field_name=field, dry_run=dry_run, progress=progress,
                               allow_hidden=allow_hidden, stats=stats)
    result.mode_reason = reason
    if not json_out:
        err.print(f"mode: {reason}", markup=False)
        if result.stats_reason:
            err.print(f"stats: {result.stats_reason}", markup=False)
        if params.q == 1.0 and result.changed:
            err.print("note: --q 1 installs q-log at q = 1 (BM25's ranking through qidf's "
                      f"similarity); `qidf revert {index}` goes back to the built-in one",
                      markup=False)
    report_change(result, json_out, _reach(cluster, result.index, None, params.q))


def _apply_auto(conn: ClusterOptions, index: str, params: QlogParams, *, mode: str,
                field: str | None, strategy: install.Strategy, stats: str, allow_hidden: bool,
                dry_run: bool, queries: str | None, queries_are: QueryKind | None,
                json_out: bool, judgments: tuple[Any, Any] | None = None) -> None:
    """`apply --q auto`: decide, then install (q < 1) or change nothing / revert (q = 1).
    On an index of several text fields without --field or judgments, each field is predicted
    and the q of the field holding the most text decides (``predictors.fields.for_default``)."""
    from qidf_ctl.predictors import predict_for_index
    from qidf_ctl.predictors.fields import for_default, predict_fields
    from qidf_ctl.stats.query_sample import query_sample

    sampled = query_sample(queries) if queries else None
    cluster = conn.connect()
    install.check_supported(cluster.engine, strategy)
    if judgments is not None:
        found = [decide_with(cluster, index, field, judgments, json_out)]
    else:
        with step_status(quiet=json_out) as progress:
            if field is not None:
                found = [predict_for_index(cluster, index, field, queries=sampled,
                                           query_kind=queries_are, progress=progress,
                                           bar=bars(json_out))]
            else:
                found = predict_fields(cluster, index, None, queries=sampled,
                                       query_kind=queries_are, progress=progress,
                                       bar=bars(json_out))
        suggest_judgments(json_out)
    prediction, why = for_default(found)
    decided = QlogParams(prediction.q, params.k1, params.b, params.form)
    record = prediction.record()
    if len(found) > 1:
        record["prediction"]["fields"] = {p.field: {"q": p.q, "reason": p.reason}
                                          for p in found}
        record["prediction"]["chosen_because"] = why
    chosen, reason = Mode.SCRIPT, ""
    if decided.q != BM25_STAYS:  # only an install needs to know the nodes
        chosen, reason = install.choose_mode(cluster, mode)
    if not json_out and judgments is None:
        if len(found) > 1:
            err.print(f"q auto: {why}", markup=False)
            for p in found:
                err.print(f"  field {p.field}: {p.reason}", markup=False)
        elif decided.q != BM25_STAYS:
            err.print(f"q auto: {prediction.reason}", markup=False)
    interrupts.hold_when_changed()
    with step_status(quiet=json_out) as progress:
        result = install.apply_auto(cluster, index, decided, decision=record,
                                    mode=chosen, strategy=strategy, field_name=field,
                                    dry_run=dry_run, progress=progress,
                                    allow_hidden=allow_hidden, stats=stats)
    result.mode_reason = reason
    if reason and not json_out:
        err.print(f"mode: {reason}", markup=False)
        if result.stats_reason:
            err.print(f"stats: {result.stats_reason}", markup=False)
    wants = {p.field: p.q for p in found} if len(found) > 1 else None
    report_change(result, json_out, _reach(cluster, result.index, wants, decided.q))


@app.command("revert")
@one_line_errors
@with_cluster
def revert_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    strategy: StrategyOpt = install.Strategy.CLOSE,
    allow_hidden: AllowHidden = False,
    dry_run: DryRun = False,
    json_out: Json = False,
) -> None:
    """Restore the similarity settings the index had before qidf's first apply (with
    --strategy clone: on a clone of the live index, so no write made since is lost).

    Example: qidf revert code-search --strategy clone
    """
    interrupts.hold_when_changed()
    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        result = install.revert(cluster, index, strategy=strategy, dry_run=dry_run,
                                progress=progress, allow_hidden=allow_hidden)
    report_change(result, json_out)


def _reach(cluster: Any, index: str, wants: dict[str, float] | None,
           q: float | None = None) -> dict[str, Any]:
    """Which text fields ``index.similarity.default`` scores (those that name no similarity
    of their own) and, after --q auto on several, the q each field would want alone."""
    from qidf_ctl.cluster import describe_index
    from qidf_ctl.errors import ClusterError
    from qidf_ctl.install.state import SimilarityState

    try:
        state = SimilarityState(describe_index(cluster, index, read_status=False))
    except ClusterError:
        return {}
    own = state.own_similarity_fields
    reached = [f for f in state.text_fields if f not in own]
    return {"fields_affected": reached, "fields_with_own_similarity": own,
            "field_q_wanted": wants, "q": q}


def _reach_line(reach: dict[str, Any], result: install.ChangeResult) -> str:
    reached = reach.get("fields_affected") or []
    if not reached or result.action != "apply" or len(reached) < 2:
        return ""
    verb = "would score" if result.dry_run or not result.changed else "scores"
    line = (f"the default similarity {verb} fields {', '.join(reached)} (every text field "
            "that names no similarity of its own)")
    wants = reach.get("field_q_wanted") or {}
    differ = {f: q for f, q in wants.items() if f in reached and q != reach.get("q")}
    if differ:
        line += ("; alone, " + ", ".join(f"{f} would want "
                                         f"{'BM25' if q == 1 else f'q {q:g}'}"
                                         for f, q in differ.items())
                 + ": each field its own q at query time (`qidf search --q F=Q,...`), or on "
                 "a new index through named similarities (`qidf render --field-q`)")
    return line


def report_change(result: install.ChangeResult, json_out: bool,
                  reach: dict[str, Any] | None = None) -> None:
    """What apply, revert or recover did: warnings on stderr, the outcome and the window
    clients were refused on stdout (or all of it as JSON); ``reach``: the text fields the
    default similarity scores, and what each would want alone."""
    if json_out:
        emit_json({**result.as_dict(), **{k: v for k, v in (reach or {}).items() if k != "q"}})
        return
    for warning in result.warnings:
        err.print(f"warning: {warning}", markup=False)
    out.print(result.message, markup=False)
    line = _reach_line(reach or {}, result)
    if line:
        out.print(line, markup=False, soft_wrap=False)
    if result.changed and result.closed_seconds:
        how = " (inside the one reopen=true call)" if result.strategy == "reopen" else ""
        out.print(f"index was closed for {result.closed_seconds:.2f}s{how} (searches and "
                  "writes failed meanwhile)", markup=False)
    if result.changed and result.write_blocked_seconds:
        out.print(f"writes were refused for {result.write_blocked_seconds:.2f}s (403 "
                  "cluster_block_exception: clients must retry them); searches kept working",
                  markup=False)
    if result.dry_run and result.action != "none":  # "none": --q auto decided to change nothing
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
    statistics = info["search_statistics"]
    for key in ("interrupted", "in_progress", "disagreement"):
        if info.get(key):
            err.print(f"warning: {info[key]}", markup=False)
    for line in (statistics["problem"], info["sharding_warning"]):
        if line:
            err.print(f"warning: {line}", markup=False)
    out.print(f"{info['index']} ({info['engine']}, {info['status']}): {info['similarity']}",
              markup=False)
    held = statistics.get("snapshot")
    if held and held.get("generation"):
        out.print(f"searches: {scope.describe_scope('snapshot', key=held['key'])}: generation "
                  f"{held['generation']}, {held['stale']}; held by {held['nodes_holding']} of "
                  f"{held['data_nodes']} data nodes", markup=False)
        if held["staleness"]["refresh_due"]:
            err.print(f"note: a refresh is due (`qidf snapshot refresh {held['key']}`): "
                      "rankings drift from explicit dfs as documents are added (the shards "
                      "page of the docs)", markup=False)
        if held.get("shared"):
            err.print(f"note: {held['shared']}", markup=False)
    if statistics["qidf_pipeline"]:
        out.print(f"searches: {scope.describe_scope(statistics['scope'], statistics['composes'])}"
                  f" (default search pipeline {statistics['qidf_pipeline']})", markup=False)
    elif statistics["default_pipeline"]:
        out.print(f"default search pipeline: {statistics['default_pipeline']} (not qidf's)",
                  markup=False)
    installed = (info.get("record") or {}).get("installed")
    if installed:
        out.print(f"installed {installed.get('at')} by {installed.get('by')}", markup=False)
        decided = judged_line(installed.get("prediction") or {})
        if decided:
            out.print(decided, markup=False)
    for field_name, sim in info["fields_with_own_similarity"].items():
        out.print(f"field {field_name} uses its own similarity {sim!r}", markup=False)
