"""``qidf stats`` and ``qidf predict``: corpus statistics and a label-free q.

Thin commands over ``stats.index_stats`` and ``predictors.predict_for_index``; progress bars
go to stderr, results to stdout (one JSON object with ``--json``). Every statistic is printed
under its own name with its definition: no two different numbers share a name.
"""

from __future__ import annotations

import math
import textwrap
from typing import Annotated, Any

import typer
from rich.padding import Padding
from rich.table import Table

from qidf_ctl import predictors as predict
from qidf_ctl import stats
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.judgments import JudgmentsOpt, decide_with, loaded, suggest_judgments
from qidf_ctl.cli.options import ClusterOptions, IndexArg, Json, QueriesAre, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out
from qidf_ctl.cli.recover import warn_if_interrupted
from qidf_ctl.errors import UsageError
from qidf_ctl.install.scope import advice_for
from qidf_ctl.stats import hapax_terms, text_shape
from qidf_ctl.stats.query_sample import QUERY_SAMPLE, query_sample

Field = Annotated[str | None, typer.Option(
    "--field", help="Text field to measure (default: every text field).")]
Sample = Annotated[int | None, typer.Option(
    "--sample", min=1, help="Read N documents instead of all: the longest N/5 in full, the "
    "rest a seeded uniform sample; densities come with 95% intervals (the default above "
    f"{stats.EXACT_LIMIT:,} documents, with N = {stats.DEFAULT_SAMPLE:,}).")]
Seed = Annotated[int, typer.Option("--seed", min=0,
                                   help="Seed of the sample and of the bootstrap.")]
Exact = Annotated[bool, typer.Option(
    "--exact", help="Read every document, however large the index.")]
PredictorOpt = Annotated[str, typer.Option(
    "--predictor", metavar="NAME",
    help=f"Predictor by name ({', '.join(sorted(predict.PREDICTORS))}).")]
QueriesOpt = Annotated[str | None, typer.Option(
    "--queries", metavar="FILE",
    help="An unlabeled sample of real queries (BEIR JSONL or qid<TAB>text, as "
    f"`qidf eval` reads; a seeded {QUERY_SAMPLE:,} of them): tells text searched with code "
    "from text searched with text.")]


def statistic_names() -> dict[str, dict[str, dict[str, str]]]:
    """Every statistic ``stats`` reports, by group and key: its name and definition."""
    return {
        "densities": {k: {"name": stats.NAMES[k], "definition": d}
                      for k, d in stats.DENSITIES.items()},
        "hapax_terms": {k: {"name": n, "definition": d}
                        for k, (n, d) in hapax_terms.DEFINITIONS.items()},
        "source_shape": {k: {"name": n, "definition": d}
                         for k, (n, d) in text_shape.DEFINITIONS.items()},
    }


@app.command("stats")
@one_line_errors
@with_cluster
def stats_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    field: Field = None,
    sample: Sample = None,
    seed: Seed = 0,
    exact: Exact = False,
    json_out: Json = False,
) -> None:
    """Corpus statistics of text fields: size, df histogram, hapax densities, what the df = 1
    terms and the raw text look like (exact or sampled).

    Example: qidf stats code-search --field text --sample 5000 --seed 1
    """
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    result = stats.index_stats(cluster, index, field=field, sample=sample, seed=seed,
                               exact=exact, bar=bars(json_out))
    if json_out:
        emit_json({**result.as_dict(), "statistics": statistic_names(),
                   "predictor": predict.describe()})
        return
    _print_stats(result)


@app.command("predict")
@one_line_errors
@with_cluster
def predict_cmd(
    index: IndexArg,
    conn: ClusterOptions,
    field: Field = None,
    sample: Sample = None,
    seed: Seed = 0,
    exact: Exact = False,
    predictor: PredictorOpt = predict.DEFAULT_PREDICTOR,
    queries: QueriesOpt = None,
    queries_are: QueriesAre = None,
    judgments: JudgmentsOpt = None,
    json_out: Json = False,
) -> None:
    """Predict q for an index from its own statistics, without relevance labels: for each
    text field (one table), or for the one --field names. With --judgments, q is decided
    from your judged queries as `apply --q auto --judgments` would (nothing changes).

    Example: qidf predict code-search --queries queries.jsonl

    Example: qidf predict code-search --judgments judgments/code
    """
    from qidf_ctl.predictors.fields import for_default, predict_fields

    if judgments:
        return _predict_judged(conn, index, field, judgments, json_out,
                               queries=queries, queries_are=queries_are)
    predict.check_query_kind(predictor, queries_are)
    sampled = query_sample(queries, seed=seed) if queries else None
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    options: dict[str, Any] = {"seed": seed, "exact": exact, "predictor": predictor,
                               "queries": sampled, "query_kind": queries_are,
                               "bar": bars(json_out)}
    if field is not None:
        found = [predict.predict_for_index(cluster, index, field, sample, **options)]
    else:
        found = predict_fields(cluster, index, None, sample, **options)
    warning = advice_for(cluster, index)
    chosen, why = for_default(found)
    if json_out:
        if len(found) == 1:
            emit_json({**found[0].as_dict(), "sharding_warning": warning})
        else:
            emit_json({"index": chosen.index, "fields": [p.as_dict() for p in found],
                       "default": {"field": chosen.field, "q": chosen.q, "reason": why},
                       "sharding_warning": warning})
        return
    if warning:
        err.print(f"warning: {warning}", markup=False, soft_wrap=False)
    suggest_judgments(json_out)
    if len(found) == 1:
        _print_prediction(found[0])
    else:
        _print_fields(found, chosen, why)


def _share(key: str, value: float) -> str:
    """Shares as percentages (as the reasons write them), other numbers as they are."""
    if key.startswith("code_like") or key in stats.DENSITIES:
        return f"{value:.1%}"
    return f"{value:.4g}"


def _say(text: str, indent: int = 0) -> None:
    """A line wrapped to the terminal (80 columns when not one), its continuation lines
    indented two more."""
    pad = " " * indent
    out.print(textwrap.fill(text, width=max(out.width - 1, 40), initial_indent=pad,
                            subsequent_indent=pad + "  ", break_on_hyphens=False),
              markup=False, soft_wrap=True)


def _print_prediction(result: predict.Prediction) -> None:
    """One field's q, why, the evidence (shares as percentages), the rule: short lines."""
    s = result.statistics
    _say(f"{result.index}, field {result.field}: q = {result.q:.2f} (predictor "
         f"{result.predictor}; {_n(s['documents'])} documents, {s['mode']})")
    _say(f"why: {result.reason}")
    if result.evidence:
        _say("evidence:")
    definitions: dict[str, list[str]] = {}
    for key, e in result.evidence.items():
        value = "n/a" if e["value"] is None else _share(key, e["value"])
        low_high = e.get("interval")
        ci = (f" (95% interval {_share(key, low_high[0])} to {_share(key, low_high[1])})"
              if low_high else "")
        _say(f"{e['name']}: {value}{ci}", 2)
        definitions.setdefault(e["definition"], []).append(key)
    for definition, keys in definitions.items():
        _say(f"{', '.join(keys)}: {definition}", 4)
    if result.queries is not None and not any("quer" in k for k in result.evidence):
        _say(f"note: the query sample ({result.queries.get('source')}) was read but did not "
             "decide: the field's own documents did")
    if result.ambiguous:
        _say("the evidence is ambiguous: BM25 is kept (q = 1)")
    _say(f"rule: {result.formula}, clipped to [{predict.Q_MIN}, {predict.Q_MAX:g}]")
    if result.q < predict.Q_MAX:
        _say(f"to use it: qidf apply {result.index} --q {result.q:.2f}")
    else:
        _say("BM25 stays: nothing to install (`qidf apply --q auto` leaves an index qidf "
             "never changed as it is, and reverts one it changed)")


def _print_fields(found: list[predict.Prediction], chosen: predict.Prediction, why: str) -> None:
    """Several text fields: one row each, then what one q for the index means."""
    index = chosen.index
    table = Table(title=f"{index}: q for each text field (predictor {chosen.predictor})",
                  title_justify="left", show_lines=False)
    table.add_column("field", no_wrap=True)
    table.add_column("q", justify="right", no_wrap=True)
    table.add_column("documents", justify="right", no_wrap=True)
    table.add_column("why", ratio=1)
    for p in found:
        table.add_row(p.field, f"{p.q:.2f}", _n(p.statistics["documents"]), p.reason)
    out.print(table)
    _say(f"one q for the index (index.similarity.default, every field that names no "
         f"similarity of its own): {why}: `qidf apply {index} --q auto` installs "
         f"q {chosen.q:g}.")
    _say(f"each field its own q: at query time, `qidf search {index} TEXT --q auto` (or "
         f"--q {','.join(f'{p.field}={p.q:g}' for p in found)}); on a new index, named "
         "similarities per field (`qidf render --field-q ...`; an existing field's "
         "similarity is fixed when the index is created). `--field F` shows one field's "
         "evidence.")


def _predict_judged(conn: ClusterOptions, index: str, field: str | None, judgments: str,
                    json_out: bool, *, queries: str | None,
                    queries_are: predict.QueryKind | None) -> None:
    """``predict --judgments``: the decision ``apply --q auto --judgments`` would make."""
    for given, flag in ((queries, "--queries"), (queries_are, "--queries-are")):
        if given:
            raise UsageError(f"{flag} feeds the label-free prediction; with --judgments your "
                             "judgments decide: drop one of them")
    spec = loaded(judgments)
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    decision = decide_with(cluster, index, field, spec, json_out, say=False)
    if json_out:
        emit_json(decision.as_dict())
        return
    out.print(f"q = {decision.q:g}   {decision.reason}", markup=False)
    out.print(f"  {decision.report_line()}", markup=False)
    out.print("  mean NDCG@10 of the older queries: " + ", ".join(
        f"q {q} {v:.4f}" for q, v in decision.mean_ndcg10.items()), markup=False)
    if decision.q != 1.0:
        out.print(f"to use it: qidf apply {decision.index} --q auto --judgments {judgments} "
                  f"(or --q {decision.q:g})", markup=False)
    else:
        out.print("BM25 stays: nothing to install", markup=False)


def _n(x: float) -> str:
    return f"{x:,.0f}" if isinstance(x, int) or x >= 100 else f"{x:,.2f}"


def _print_stats(result: stats.IndexStats) -> None:
    how = ("exact, every document read" if result.mode == "exact" else
           f"sampled, {result.sample:,} documents, seed {result.seed}")
    out.print(f"{result.index} ({result.engine}, {result.shards} shard"
              f"{'s' if result.shards != 1 else ''}, {result.live_documents:,} live "
              f"documents, {result.deleted_documents:,} deleted Lucene documents not merged "
              f"away): {how}, "
              f"{result.seconds:.1f}s", markup=False)
    chosen = predict.describe()
    if len(result.fields) > 1:
        out.print(_fields_table(result))
    for f in result.fields:
        out.print(f"\nfield {f.field}" + (
            f" ({f.take_all:,} longest documents read in full, the rest sampled uniformly; "
            "~ marks estimates)" if f.mode == "sampled" else ""), markup=False)
        facts = Table.grid(padding=(0, 2))  # labels apart from values, values that wrap
        facts.add_column(no_wrap=True)
        facts.add_column()
        for label, value, key in (
                ("documents with tokens (N)", f.documents, "documents"),
                ("documents without tokens", f.documents_without_tokens, "documents"),
                ("vocabulary", f.vocabulary, "vocabulary"),
                ("total tokens", f.total_tokens, "total_tokens"),
                ("average field length", f.avg_field_length, "total_tokens")):
            mark = "~" if _estimated(f, key) else ""
            facts.add_row(label, f"{mark}{_n(value)}")
        if f.splits_identifiers is not None:
            splits = ", ".join(f.splits_identifiers) or "no: identifiers stay whole"
            facts.add_row("analyzer splits identifiers", splits)
        if f.engine is not None:
            held = f.deleted_in_statistics or 0
            facts.add_row("engine field statistics",
                          f"docCount {f.engine.doc_count:,}, sumTotalTermFreq "
                          f"{f.engine.sum_ttf:,} (these count "
                          f"{'~' if _estimated(f, 'documents') else ''}{_n(held)} deleted "
                          "documents until merged)")
        out.print(Padding(facts, (0, 0, 0, 2)))
        out.print(_histogram_table(f))
        out.print(_density_table(f))
        out.print(_shape_table(f))
        for warning in f.warnings:
            err.print(f"warning: {warning}", markup=False)
    out.print(f"{result.df_counts}. Default predictor {chosen['name']}: {chosen['formula']}.",
              markup=False)


def _fields_table(result: stats.IndexStats) -> Table:
    """Several text fields side by side: size, the share of df = 1 token occurrences and
    of documents that look like code (what the predictors read first); each field's full
    tables follow."""
    table = Table(title="text fields side by side (each field's tables below)",
                  title_justify="left")
    for col in ("field", "N", "vocabulary", "tokens", "avg length", "df = 1 tokens",
                "code-like documents"):
        table.add_column(col, justify="left" if col == "field" else "right")
    for f in result.fields:
        hapax = f.densities.get("tokens", math.nan)
        code = f.source_shape.code_like_share if f.source_shape else math.nan
        table.add_row(f.field, _n(f.documents), _n(f.vocabulary), _n(f.total_tokens),
                      _n(f.avg_field_length),
                      "" if math.isnan(hapax) else f"{hapax:.1%}",
                      "" if math.isnan(code) else f"{code:.1%}")
    return table


def _estimated(f: stats.FieldStats, key: str) -> bool:
    """Sampled mode estimates the vocabulary; N and tokens too when deletions hide them."""
    if f.mode == "exact":
        return False
    return key == "vocabulary" or f.engine_densities is not None


def _histogram_table(f: stats.FieldStats) -> Table:
    title = "df histogram" + (" (estimated)" if f.mode == "sampled" else "")
    table = Table(title=title, title_justify="left")
    for col in ("df", "terms", "tokens", "share of tokens"):
        table.add_column(col, justify="right")
    total = f.total_tokens or 1
    for b in f.df_histogram:
        table.add_row(b.label, _n(b.terms), _n(b.tokens), f"{b.tokens / total:.1%}")
    return table


def _density_table(f: stats.FieldStats) -> Table:
    table = Table(title="hapax densities (df = 1 material, four ways)", title_justify="left")
    table.add_column("name")
    table.add_column("key")
    table.add_column("value", justify="right")
    if f.intervals:
        table.add_column("95% interval", justify="right")
    if f.engine_densities:
        table.add_column("engine df", justify="right")
    table.add_column("definition")
    for key, definition in stats.DENSITIES.items():
        row = [stats.NAMES[key], key, f"{f.densities[key]:.4f}"]
        if f.intervals:
            low, high = f.intervals[key]
            row.append(f"{low:.4f}-{high:.4f}")
        if f.engine_densities:
            engine = f.engine_densities[key]
            row.append(f"{engine:.4f}" if engine == engine else "")
        table.add_row(*row, definition)
    return table


def _shape_table(f: stats.FieldStats) -> Table:
    """What the df = 1 terms and a sample of the raw text look like."""
    table = Table(title="shape of the df = 1 terms and of the raw text", title_justify="left")
    for col in ("name", "key", "value", "definition"):
        table.add_column(col, justify="right" if col == "value" else "left")
    rows: list[tuple[str, str, Any, str]] = []
    if f.hapax_terms is not None:
        got = f.hapax_terms.__dict__
        rows += [(n, k, got[k], d) for k, (n, d) in hapax_terms.DEFINITIONS.items()]
    if f.source_shape is not None:
        got = f.source_shape.__dict__
        rows += [(f"{n} ({f.source_shape.texts:,} sampled documents)", k, got[k], d)
                 for k, (n, d) in text_shape.DEFINITIONS.items()]
    for name, key, value, definition in rows:
        shown = "" if not isinstance(value, float) or math.isnan(value) else f"{value:.4f}"
        table.add_row(name, key, shown, definition)
    return table
