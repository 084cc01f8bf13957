"""``qidf search``: q-log ranking from the query alone, on an index that keeps built-in BM25."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from qidf_ctl import textfile
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, Form, IndexArg, Json, with_cluster
from qidf_ctl.cli.output import emit_json, err, out, step_status
from qidf_ctl.cluster import index_path
from qidf_ctl.errors import UsageError
from qidf_ctl.formula import IdfForm, validate_q
from qidf_ctl.querytime import STATS_CHOICES, QlogQuery, QueryTime, inspect
from qidf_ctl.querytime.auto import predicted_q

SNIPPET = 100


def _filters(texts: list[str]) -> list[dict[str, Any]]:
    out_: list[dict[str, Any]] = []
    for text in texts:
        try:
            value = textfile.loads_json(text)  # strict: no NaN, no nesting past the parser
        except ValueError as exc:
            raise UsageError(f"--filter must be a JSON query object such as "
                             f"'{{\"term\": {{\"lang\": \"go\"}}}}': {exc} in "
                             f"{textfile.shown(text)}") from None
        if not isinstance(value, dict) or len(value) != 1:
            raise UsageError(f"--filter must be one JSON query object with one key, got {text!r}")
        out_.append(value)
    return out_


def _snippet(hit: dict[str, Any], field: str) -> str:
    value: Any = hit.get("_source") or {}
    for part in field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    text = " ".join(str(value or "").split())
    return text if len(text) <= SNIPPET else text[:SNIPPET - 3] + "..."


def request_of(built: QlogQuery, size: int, field: str) -> dict[str, Any]:
    """The search request as an application would send it."""
    return {"method": "POST", "path": index_path(built.index, "_search"),
            "params": built.params(), "body": built.body(size, _source=[field])}


@app.command("search")
@one_line_errors
@with_cluster
def search_cmd(
    index: IndexArg,
    text: Annotated[str, typer.Argument(help="Query text (code or words).")],
    q: Annotated[str, typer.Option(
        "--q", metavar="FLOAT|auto",
        help="q in [0, 2] (1 is plain BM25), or `auto`: predicted from the index's "
        "statistics (needs monitor privileges; a search-only user passes a number).")],
    conn: ClusterOptions,
    field: Annotated[str | None, typer.Option(
        "--field", help="Text field to search (default: the index's only text field).")]
    = None,
    size: Annotated[int, typer.Option("--size", help="Hits to return (1 to 10000).")]
    = 10,
    form: Form = IdfForm.LUCENE.value,
    stats: Annotated[str, typer.Option(
        "--stats", metavar="[auto|shard|index]",
        help="Statistics the boosts use: shard (one shard's, what default search "
        "scores with), index (index-wide, searched with dfs_query_then_fetch), or auto "
        "(shard on one shard, else index).")] = "auto",
    shard: Annotated[int, typer.Option(
        "--shard", help="With --stats shard: the shard whose statistics to use (0 or more).")]
    = 0,
    filters: Annotated[list[str] | None, typer.Option(
        "--filter", metavar="JSON",
        help="A JSON query that restricts the hits without scoring, e.g. "
        "'{\"term\": {\"lang\": \"go\"}}' (repeatable).")] = None,
    minimum_should_match: Annotated[str | None, typer.Option(
        "--minimum-should-match", help="Passed to the bool query (e.g. 2 or 30%).")] = None,
    json_out: Json = False,
) -> None:
    """Search with q-log BM25 built into the query: no change to the index, no settings
    privilege, no Painless, no plugin. `--json` also prints the request, to paste into an
    application.

    Example: qidf search code "func (h *Header) FileInfo() fs.FileInfo" --q 0.3
    """
    auto = q.strip().lower() == "auto"
    q_value = None if auto else validate_q(q)
    if not 1 <= size <= 10_000:
        raise UsageError(f"--size must be 1 to 10000 (the engines' max_result_window), "
                         f"got {size}")
    if shard < 0:
        raise UsageError(f"--shard must be 0 or more, got {shard}")
    if stats not in STATS_CHOICES:
        raise UsageError(f"--stats must be one of {', '.join(STATS_CHOICES)}, got {stats!r}")
    try:
        idf_form = IdfForm(form)
    except ValueError:
        raise UsageError(f"--form must be 'lucene' or 'rsj', got {form!r}") from None
    restrict = _filters(filters or [])
    cluster = conn.connect()
    target = inspect(cluster, index, field)
    reason = ""
    if q_value is None:
        with step_status(quiet=json_out):
            q_value, reason = predicted_q(cluster, index, target.field)
        if not json_out:
            err.print(f"q auto: {reason}", markup=False)
    qt = QueryTime(cluster, target, q_value, form=idf_form, stats=stats, shard=shard)
    built = qt.build(text, minimum_should_match=minimum_should_match, filters=restrict)
    hits = qt.search(built, size, source=[target.field])
    rows = [{"rank": i, "id": h["_id"], "score": h["_score"],
             "text": _snippet(h, target.field)} for i, h in enumerate(hits, start=1)]
    if json_out:
        summary = {k: v for k, v in built.as_dict().items() if k != "query"}
        emit_json({**summary, "similarity": target.similarity, "q_auto_reason": reason or None,
                   "request": request_of(built, size, target.field), "hits": rows})
        return
    where = ("index-wide statistics" if built.scope == "index"
             else f"statistics of shard {built.scope.partition(':')[2]}")
    if built.search_type:
        where += f", {built.search_type}"
    out.print(f"{index}, field {target.field}: q-log q={built.q:g} at query time ({where}, "
              f"N = {built.statistics.doc_count:,}; {target.similarity})", markup=False)
    if not rows:
        out.print("  no hits", markup=False)
    for r in rows:
        out.print(f"{r['rank']:>3}  {r['score']:9.4f}  {r['id']}  {r['text']}", markup=False)

