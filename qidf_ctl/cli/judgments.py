"""``qidf judgments git | ubi``: judged queries from what the user already owns, written as a
folder that ``sweep``, ``eval`` and ``apply --q auto --judgments`` read.

Thin commands over ``qidf_ctl.judgments``: every input is checked before the history or the
log is read, and nothing is written unless judgments were made.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, Json, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out, step_status
from qidf_ctl.errors import UsageError
from qidf_ctl.judgments import filters, folder
from qidf_ctl.judgments.from_ubi import DEFAULT_MIN_IMPRESSIONS
from qidf_ctl.judgments.split import DEFAULT_OLDER_SHARE
from qidf_ctl.judgments.ubi import DEFAULT_CLICKS

judgments_app = typer.Typer(
    help="Judged queries from what you already own: a repository's history (`git`), search "
    "clicks or agents' fetches in the User Behavior Insights schema (`ubi`). Each writes a "
    "folder (queries.jsonl, qrels.tsv, a judgments.json manifest) that `qidf sweep`, `qidf "
    "eval` and `qidf apply --q auto --judgments DIR` read.", no_args_is_help=True)
app.add_typer(judgments_app, name="judgments")

OutOpt = Annotated[str, typer.Option(
    "--out", help="Folder to write queries.jsonl, qrels.tsv, older.qrels.tsv, "
    "newer.qrels.tsv and judgments.json into (created if missing; those files are replaced).")]
SplitOpt = Annotated[float, typer.Option(
    "--split", help="The older share of the judged queries, by time, that chooses q; the "
    "newer rest reports (1 keeps every query for choosing).")]


@judgments_app.command("git")
@one_line_errors
@with_cluster
def git_cmd(
    repository: Annotated[str, typer.Argument(
        help="A clone (work tree) or bare repository with its whole history.")],
    conn: ClusterOptions,
    index: Annotated[str, typer.Option(
        "--index", help="The index that holds the repository's files, one document per file "
        "(or per chunk of one).")],
    path_field: Annotated[str, typer.Option(
        "--path-field", help="The field holding each document's path relative to the "
        "repository's root (a keyword field, or text with a keyword sub-field, is matched by "
        "lookups; analysed text only by a scan).")],
    out_dir: OutOpt,
    since: Annotated[str | None, typer.Option(
        "--since", help="Only commits from this ISO date (2024-01-31) on.")] = None,
    until: Annotated[str | None, typer.Option(
        "--until", help="Only commits up to this ISO date.")] = None,
    max_queries: Annotated[int | None, typer.Option(
        "--max", min=1, help="At most this many judged queries: the newest commits that "
        "make one.")] = None,
    rev_range: Annotated[str, typer.Option(
        "--range", help="Revisions to read, as git names them (v1.0..main, or a branch).")]
    = "HEAD",
    split: SplitOpt = DEFAULT_OLDER_SHARE,
    path_prefix: Annotated[str, typer.Option(
        "--path-prefix", help="What the index puts before a repository-relative path (e.g. "
        "`cargo/`).")] = "",
    max_files: Annotated[int, typer.Option(
        "--max-files", min=1, help="Skip commits changing more files than this (bulk "
        "changes).")] = filters.DEFAULT_MAX_FILES,
    min_files: Annotated[int, typer.Option(
        "--min-files", min=1, help="Skip commits changing fewer files than this.")]
    = filters.DEFAULT_MIN_FILES,
    min_words: Annotated[int, typer.Option(
        "--min-words", min=0, help="Skip commits whose cleaned message has fewer words.")]
    = filters.DEFAULT_MIN_WORDS,
    include_added: Annotated[bool, typer.Option(
        "--include-added", help="Count the files a commit added as its answer too (by "
        "default only modified and renamed files: an added file did not exist to be found).")]
    = False,
    subject_only: Annotated[bool, typer.Option(
        "--subject-only", help="Query with the message's first line only (default: subject "
        "and body).")] = False,
    field: Annotated[str | None, typer.Option(
        "--field", help="The text field these queries search (recorded; `apply --judgments` "
        "uses it unless given --field).")] = None,
    json_out: Json = False,
) -> None:
    """Judged queries from a repository's history: each commit's cleaned message is a query,
    the index's documents for the files it changed are its answer.

    Merges, bulk and release commits, commits touching only tests, docs, vendored, generated
    or lock files, and messages too short to search with are skipped, each reason counted.
    Messages lose trailers (Signed-off-by, Co-authored-by), PR and issue numbers, URLs and
    revert or merge boilerplate. Files a later commit renamed are found under today's name.
    The judged queries are split by time: the older share chooses q, the newer reports. The
    index holds today's files while a commit changed older ones: see the judgments how-to.

    Example: qidf judgments git ~/cargo --index cargo --path-field path --out j

    Example: qidf judgments git . --index code --path-field path --out j --max 500
    """
    from qidf_ctl.judgments import GitOptions, history, judgments_from_git
    from qidf_ctl.judgments.history import parse_day
    from qidf_ctl.judgments.split import check_share

    options = GitOptions(
        rev_range=rev_range, since=parse_day(since, "--since") if since else None,
        until=parse_day(until, "--until") if until else None, max_queries=max_queries,
        older_share=check_share(split), path_prefix=path_prefix,
        rules=filters.Rules(max_files=max_files, min_files=min_files, min_words=min_words,
                            include_added=include_added),
        subject_only=subject_only, field=field)
    repo = history.open_repository(repository)  # bad input is refused before connecting
    if rev_range != "HEAD":
        history.check_range(repo, rev_range)
    folder.check_folder(out_dir)
    cluster = conn.connect()
    with step_status(quiet=json_out) as progress:
        found = judgments_from_git(cluster, repo, index, path_field, options,
                                   progress=progress, bar=bars(json_out))
    folder.write_folder(out_dir, found)
    report(found, json_out)


def report(found: folder.Judgments, json_out: bool) -> None:
    """What a judgments command wrote: the manifest as JSON, or a summary with every count."""
    manifest = found.manifest
    if json_out:
        emit_json({**manifest, "folder": str(found.folder)})
        return
    counts = manifest["counts"]
    split = manifest["split"]
    _say(f"{counts['judged_queries']:,} judged queries, {counts['judgments']:,} judgments "
         f"from {manifest.get('origin')} -> {found.folder}")
    read = counts.get("commits_read", counts.get("events_read"))
    skipped = {k: v for k, v in counts.get("skipped", {}).items() if v}
    if skipped:
        _say(f"  skipped ({read:,} read): " + ", ".join(f"{k.replace('_', ' ')} {v:,}"
                                                       for k, v in skipped.items()))
    files: dict[str, Any] = counts.get("answer_files") or {}
    if files:
        _say("  answer files: " + ", ".join(f"{k.replace('_', ' ')} {v:,}"
                                            for k, v in files.items()))
    how = (manifest.get("index") or {}).get("how")
    if how:
        _say(f"  matched by {how}")
    _say(f"  split by {split['by']}: {split['older_queries']:,} older queries choose q, "
         f"{split['newer_queries']:,} newer report"
         + (f" (from {split['newer_from']})" if split.get("newer_from") else ""))
    _say(f"next: qidf apply {(manifest.get('index') or {}).get('name') or 'INDEX'} --q auto "
         f"--judgments {found.folder} --dry-run")


def _say(text: str) -> None:
    out.print(text, markup=False, highlight=False)


@judgments_app.command("ubi")
@one_line_errors
@with_cluster
def ubi_cmd(
    source: Annotated[str, typer.Argument(
        help="A UBI log exported as JSON lines (a file, or a folder of them; what `qidf mcp "
        "--record FILE` writes), or ubi: for the cluster's ubi_queries and ubi_events "
        "indices (ubi:APPLICATION: only that application's searches).")],
    conn: ClusterOptions,
    out_dir: OutOpt,
    clicks: Annotated[str, typer.Option(
        "--clicks", help="The action names that count as a click, comma-separated.")]
    = ",".join(DEFAULT_CLICKS),
    min_impressions: Annotated[int, typer.Option(
        "--min-impressions", min=1, help="Judge a (query, document) pair only once it was "
        "shown this many times.")] = DEFAULT_MIN_IMPRESSIONS,
    ordinal_base: Annotated[int, typer.Option(
        "--ordinal-base", min=0, max=1, help="What an event's position ordinal counts the "
        "first result as (0, as UBI's data generator and qidf's recorder write, or 1).")]
    = 0,
    index: Annotated[str | None, typer.Option(
        "--index", help="With --id-field: the index whose documents the object ids name.")]
    = None,
    id_field: Annotated[str | None, typer.Option(
        "--id-field", help="The field of --index that holds the object ids (UBI's "
        "object_id_field), when they are not document ids: mapped to document ids by "
        "lookups.")] = None,
    split: SplitOpt = DEFAULT_OLDER_SHARE,
    json_out: Json = False,
) -> None:
    """Graded judgments from search clicks or agents' fetches in the User Behavior Insights
    schema, through the position-based click model (fitted by EM) that takes the position
    bias out of clicks.

    Searches are grouped by query text; a (query, document) pair is judged once it was shown
    --min-impressions times, graded 2 when clicked at least every other time it was looked
    at, 1 from one time in four. The judged queries are split by the time of their first
    search: the older share chooses q, the newer reports. The schema mapping is in the
    judgments how-to.

    Example: qidf judgments ubi agent-log.ndjson --out judgments/agents

    Example: qidf judgments ubi ubi: --out judgments/clicks --min-impressions 3
    """
    from qidf_ctl.judgments import source as sources
    from qidf_ctl.judgments import ubi
    from qidf_ctl.judgments.from_ubi import UbiOptions, judgments_from_log

    options = UbiOptions(min_impressions=min_impressions, older_share=split).check()
    where = sources.parse_source(source, "SOURCE")
    if where.kind == sources.FOLDER:
        raise UsageError(f"{source} is a judgments folder already (it holds "
                         f"{folder.MANIFEST}): give it to --judgments, or the UBI log it came "
                         "from here")
    if id_field is not None and index is None:
        raise UsageError("--id-field needs --index: the index whose field holds the ids")
    folder.check_folder(out_dir)
    log = ubi.Log(clicks=tuple(clicks.split(",")), ordinal_base=ordinal_base,
                  application=where.application)
    cluster = conn.connect() if where.needs_cluster or id_field else None
    with step_status(quiet=json_out) as progress:
        if where.needs_cluster:
            assert cluster is not None
            progress("reading the cluster's UBI indices")
            ubi.read_cluster(cluster, log)
            origin = f"UBI indices {ubi.QUERIES_INDEX}, {ubi.EVENTS_INDEX}" + (
                f" (application {where.application})" if where.application else "")
        else:
            progress(f"reading {source}")
            ubi.read_files(source, log)
            origin = f"UBI log {source}"
        found = judgments_from_log(log, origin, options, cluster=cluster, index=index,
                                   id_field=id_field, progress=progress)
    folder.write_folder(out_dir, found)
    report(found, json_out)


JudgmentsOpt = Annotated[str | None, typer.Option(
    "--judgments", help="Decide q from your own judgments instead of the index's statistics "
    "alone: a folder `qidf judgments git|ubi` wrote, a UBI log, or ubi: (the cluster's UBI "
    "indices). The older queries choose q through sweep's bootstrap guard against the "
    "label-free q; the newer report NDCG@10 against BM25.")]


def loaded(spec: str) -> tuple[Any, Any]:
    """The parsed source and, for a folder, its judgments: read before anything connects
    (a bad folder is refused first); other sources are read by ``decide_with``."""
    from qidf_ctl.judgments import source as sources

    where = sources.parse_source(spec)
    return where, (sources.load(where) if where.kind == sources.FOLDER else None)


def decide_with(cluster: Any, index: str, field: str | None, spec: tuple[Any, Any],
                json_out: bool, say: bool = True) -> Any:
    """The decision from judgments, with a progress display; the reason and the newer
    split's report on stderr (text mode)."""
    from qidf_ctl.judgments import source as sources
    from qidf_ctl.judgments.decide import decide

    where, found = spec
    with step_status(quiet=json_out) as progress:
        if found is None:
            found = sources.load(where, lambda: cluster, progress=progress)
        decision = decide(cluster, index, found, field_name=field, progress=progress,
                          bar=bars(json_out))
    decision.judgments["spec"] = where.spec
    if say and not json_out:
        err.print(f"q from judgments: {decision.reason}", markup=False)
        err.print(f"  {decision.report_line()}", markup=False)
        for note in decision.notes:
            err.print(f"note: {note}", markup=False)
    return decision


def suggest_judgments(json_out: bool) -> None:
    """The one line a label-free decision adds: judgments would decide."""
    from qidf_ctl.judgments.decide import SUGGESTION

    if not json_out:
        err.print(f"note: {SUGGESTION}", markup=False)


def judged_line(prediction: dict[str, Any]) -> str | None:
    """How a recorded decision came from judgments, on one line (None: it did not)."""
    from qidf_ctl.judgments.decide import describe_record

    return describe_record(prediction)
