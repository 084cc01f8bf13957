"""``qidf search``: the index's own ranking, or q-log at query time, on one field or several,
and two rankings side by side (``--vs``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from qidf_ctl import textfile
from qidf_ctl.agents.retrieval import check_query
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, Form, IndexArg, Json, with_cluster
from qidf_ctl.cli.output import emit_json, err, out, step_status
from qidf_ctl.cluster import index_path
from qidf_ctl.cluster.redact import redact_external
from qidf_ctl.errors import UsageError
from qidf_ctl.formula import IdfForm, InvalidParameter, validate_q
from qidf_ctl.querytime import STATS_CHOICES
from qidf_ctl.querytime import compare as cmp
from qidf_ctl.querytime.auto import predicted_qs
from qidf_ctl.querytime.builder import AS_IS
from qidf_ctl.querytime.fields import BEST, COMBINE, FieldsQuery, FieldsQueryTime, parse_field_qs

SNIPPET = 100
DEPTH = 100  # how deep --vs looks for where a hit was ("new" beyond it)
AUTO = "auto"
VS_NAMED = ("bm25", "installed")


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


def _snippet(hit: dict[str, Any], fields: list[str]) -> str:
    for field in fields:
        value: Any = hit.get("_source") or {}
        for part in field.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        text = " ".join(redact_external(str(value or "")).split())  # the cluster's text,
        if text:  # before a cut halves a secret
            return text if len(text) <= SNIPPET else text[:SNIPPET - 3] + "..."
    return ""


def request_of(built: FieldsQuery, size: int) -> dict[str, Any]:
    """The search request as an application would send it."""
    return {"method": "POST", "path": index_path(built.index, "_search"),
            "params": built.params(), "body": built.body(size, _source=built.fields)}


def _check_q(q: str | None) -> None:
    """A number, auto or FIELD=Q pairs, checked before any request (the fields later)."""
    if q is None or q.strip().lower() == AUTO:
        return
    if "=" in q:
        for part in q.split(","):
            validate_q(part.partition("=")[2].strip() or "nan")
        return
    validate_q(q)


def _vs(text: str | None) -> str | None:
    if text is None:
        return None
    if text.strip().lower() in VS_NAMED:
        return text.strip().lower()
    try:
        validate_q(text)
    except (UsageError, InvalidParameter):
        raise UsageError(f"--vs takes bm25, installed or a q in [0, 2], got {text!r}") from None
    return text


def _qs(spec: str | None, ft: FieldsQueryTime, reasons: dict[str, str],
        conn_cluster: Any, json_out: bool) -> dict[str, float]:
    """q by field for ``--q``: none (each field as it is), one number, auto (each field's
    predicted q) or FIELD=Q pairs."""
    if spec is None:
        return {}
    if spec.strip().lower() == AUTO:
        with step_status(quiet=json_out):
            found = predicted_qs(conn_cluster, ft.index, ft.fields)
        for f, (_, why) in found.items():
            reasons[f] = why
        return {f: q for f, (q, _) in found.items()}
    if "=" in spec:
        return parse_field_qs(spec, ft.fields)
    return dict.fromkeys(ft.fields, validate_q(spec))


def _reference(vs: str, ft: FieldsQueryTime) -> tuple[FieldsQueryTime, str]:
    if vs == "installed":
        return ft.with_qs({}), "as installed"
    if vs == "bm25":
        return ft.with_qs(dict.fromkeys(ft.fields, 1.0)), "BM25"
    q = validate_q(vs)
    return ft.with_qs(dict.fromkeys(ft.fields, q)), f"q-log q={q:g}"


def describe(ft: FieldsQueryTime, built: FieldsQuery) -> str:
    """What ranks the hits, in one line: each field's similarity, as installed or rescaled
    to another q at query time, and the statistics the boosts came from."""
    parts = []
    for p in built.parts:
        similarity = ft.builders[p.field].target.similarity
        if ft.ranks_as_is(p.field):
            parts.append(f"field {p.field}: {similarity}, as installed")
        elif ft.builders[p.field].target.base is not None:
            parts.append(f"field {p.field}: q-log q={p.q:g} at query time, rescaling the "
                         f"installed {similarity.split(' via ')[0]}")
        else:
            parts.append(f"field {p.field}: q-log q={p.q:g} at query time over {similarity}")
    read = [p for p in built.parts if p.scope != AS_IS]
    scope = ""
    if read:
        first = read[0]
        scope = ("index-wide statistics" if first.scope == "index"
                 else f"statistics of shard {first.scope.partition(':')[2]}")
        scope += f", N = {first.statistics.doc_count:,}"
    if built.search_type:
        scope += (", " if scope else "") + built.search_type
    how = f" ({built.combine})" if len(parts) > 1 else ""
    return f"{built.index}{how}, " + "; ".join(parts) + (f" ({scope})" if scope else "")


def _label(ft: FieldsQueryTime, qs: dict[str, float]) -> str:
    if not qs:
        return "as installed"
    values = set(qs.values())
    if len(values) == 1 and len(qs) == len(ft.fields):
        q = values.pop()
        return "BM25" if q == 1.0 else f"q-log q={q:g}"
    return ", ".join(f"{f}={q:g}" for f, q in qs.items())


@app.command("search")
@one_line_errors
@with_cluster
def search_cmd(
    index: IndexArg,
    text: Annotated[str, typer.Argument(help="Query text (code or words).")],
    conn: ClusterOptions,
    q: Annotated[str | None, typer.Option(
        "--q", metavar="FLOAT|auto",
        help="Rank with q-log at this q, built into the query (nothing on the index "
        "changes): a number in [0, 2] for every field (1 is BM25), `auto` (each field's "
        "predicted q; needs monitor privileges), or FIELD=Q pairs (code=0.3,doc=1; other "
        "fields as they are). Without it, the index's own ranking: its installed q-log, or "
        "BM25. On a field that already has q-log, the boosts rescale it.")] = None,
    vs: Annotated[str | None, typer.Option(
        "--vs", metavar="bm25|installed|Q",
        help="Also rank with this and show both side by side: each hit's rank, score and how "
        "far it moved from the other ranking (+3 up, -2 down, new), then the hits that left "
        "the top.")] = None,
    fields: Annotated[list[str] | None, typer.Option(
        "--field", metavar="FIELD", help="A text field to search (repeatable; default: "
        "every text field of the index).")] = None,
    combine: Annotated[str, typer.Option(
        "--combine", metavar="[best_fields|most_fields]",
        help="How several fields' scores combine, as multi_match does: best_fields (the best "
        "field's, plus --tie-breaker times the others') or most_fields (their sum).")] = BEST,
    tie_breaker: Annotated[float, typer.Option(
        "--tie-breaker", min=0.0, max=1.0,
        help="With best_fields: the weight of the other fields' scores.")] = 0.0,
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
    """Search an index as it ranks now (its installed q-log, or BM25), or with q-log built
    into the query: no change to the index, no settings privilege, no Painless, no plugin.
    Several text fields are searched as multi_match does, each field with its own q. `--json`
    also prints the request, to paste into an application.

    Example: qidf search code "func (h *Header) FileInfo() fs.FileInfo" --vs bm25

    Example: qidf search code "ParseMultipartForm" --q code=0.3,doc=1 --json
    """
    check_query(text)  # an empty query is refused here as by the MCP tools
    _check_q(q)
    reference = _vs(vs)
    if not 1 <= size <= 10_000:
        raise UsageError(f"--size must be 1 to 10000 (the engines' max_result_window), "
                         f"got {size}")
    if shard < 0:
        raise UsageError(f"--shard must be 0 or more, got {shard}")
    if stats not in STATS_CHOICES:
        raise UsageError(f"--stats must be one of {', '.join(STATS_CHOICES)}, got {stats!r}")
    if combine not in COMBINE:
        raise UsageError(f"--combine must be {' or '.join(COMBINE)}, got {combine!r}")
    try:
        idf_form = IdfForm(form)
    except ValueError:
        raise UsageError(f"--form must be 'lucene' or 'rsj', got {form!r}") from None
    restrict = _filters(filters or [])
    cluster = conn.connect()
    base = FieldsQueryTime.connect(cluster, index, fields, how=combine,
                                   tie_breaker=tie_breaker, stats=stats, shard=shard)
    reasons: dict[str, str] = {}
    qs = _qs(q, base, reasons, cluster, json_out)
    ft = base.with_qs(qs, idf_form) if qs else base
    if not json_out:
        for f, why in reasons.items():
            err.print(f"q auto, {f}: {why}", markup=False)
    tokens = ft.tokens(text)
    built = ft.from_tokens(tokens, minimum_should_match=minimum_should_match, filters=restrict)
    depth = max(size, DEPTH) if reference else size
    hits = ft.search(built, depth, source=built.fields)
    rows = [{"rank": i, "id": redact_external(str(h["_id"])), "score": h["_score"],
             "label": cmp.label(h), "text": _snippet(h, built.fields)}
            for i, h in enumerate(hits[:size], start=1)]
    compared = None
    if reference:
        other, name = _reference(reference, ft)
        ref_built = other.from_tokens(tokens, minimum_should_match=minimum_should_match,
                                      filters=restrict)
        ref_hits = other.search(ref_built, depth, source=built.fields)
        compared = (cmp.ranked(hits), cmp.ranked(ref_hits), name, describe(other, ref_built),
                    ref_built)
    if json_out:
        _emit(ft, built, size, rows, qs, reasons, compared)
        return
    out.print(describe(ft, built), markup=False, soft_wrap=False)
    if compared is None:
        if not rows:
            out.print("  no hits", markup=False)
        for r in rows:
            out.print(f"{r['rank']:>3}  {r['score']:9.4f}  {r['id']}  {r['text']}",
                      markup=False)
        if not qs:
            out.print("(the index's own ranking; `--vs bm25` or `--q 0.3 --vs installed` "
                      "compares another)", markup=False, soft_wrap=False)
        return
    new, old, name, ref_described, _ = compared
    out.print(f"vs {ref_described}", markup=False, soft_wrap=False)
    _print_side_by_side(_label(ft, qs), name, new, old, size)


def _print_side_by_side(left: str, right: str, new: list[cmp.Ranked], old: list[cmp.Ranked],
                        size: int) -> None:
    table = Table(box=None, pad_edge=False, padding=(0, 1), show_edge=False)
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column(left, overflow="fold", ratio=1)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("move", justify="right", no_wrap=True)
    table.add_column(right, overflow="fold", ratio=1)
    table.add_column("score", justify="right", no_wrap=True)
    moved = cmp.moves(new[:size], old)
    for i in range(min(size, max(len(new), len(old)))):
        a = moved[i] if i < len(moved) else None
        b = old[i] if i < len(old) else None
        table.add_row(str(i + 1), a.hit.label if a else "", f"{a.hit.score:.2f}" if a else "",
                      a.move if a else "", b.label if b else "", f"{b.score:.2f}" if b else "")
    out.print(table)
    gone = cmp.left(new, old, size)
    if gone:
        shown = ", ".join(f"{g.hit.label} (was {g.hit.rank}, now "
                          f"{g.was if g.was is not None else f'>{len(new)}'})" for g in gone)
        out.print(f"left the top {size}: {shown}", markup=False, soft_wrap=False)
    same = sum(1 for m in moved if m.move == "=")
    out.print(f"{same} of {len(moved)} at the same rank; move = places up (+) or down (-) "
              f"from the {right} ranking, new = not in its top {max(len(old), size)}",
              markup=False, soft_wrap=False)


def _emit(ft: FieldsQueryTime, built: FieldsQuery, size: int, rows: list[dict[str, Any]],
          qs: dict[str, float], reasons: dict[str, str], compared: Any) -> None:
    summary = {k: v for k, v in built.as_dict().items() if k != "query"}
    one = built.parts[0]
    if len(built.parts) == 1:  # the one-field shape earlier versions printed, kept
        summary.update({k: v for k, v in one.as_dict().items() if k != "query"})
    payload: dict[str, Any] = {
        **summary, "ranking": describe(ft, built),
        "similarity": {p.field: ft.builders[p.field].target.similarity for p in built.parts},
        "as_installed": not qs, "q_auto_reason": reasons or None,
        "request": request_of(built, size), "hits": rows}
    if len(built.parts) == 1:
        payload["similarity"] = ft.builders[one.field].target.similarity
    if compared is not None:
        new, old, name, ref_described, ref_built = compared
        payload["vs"] = {"ranking": name, "described": ref_described,
                         "request": request_of(ref_built, size),
                         "hits": [{**r.__dict__} for r in old[:size]],
                         "moves": [m.as_dict() for m in cmp.moves(new[:size], old)],
                         "left": [{"id": g.hit.id, "label": g.hit.label, "was": g.hit.rank,
                                   "now": g.was} for g in cmp.left(new, old, size)]}
    emit_json(payload)
