"""``qidf stats`` and ``qidf predict``: corpus statistics and a label-free q.

Thin commands over ``stats.index_stats`` and ``predictors.predict_for_index``; progress bars
go to stderr, results to stdout (one JSON object with ``--json``). Every statistic is printed
under its own name with its definition: no two different numbers share a name.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer
from rich.padding import Padding
from rich.table import Table

from qidf_ctl import predictors as predict
from qidf_ctl import stats
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, IndexArg, Json, QueriesAre, with_cluster
from qidf_ctl.cli.output import bars, emit_json, err, out
from qidf_ctl.cli.recover import warn_if_interrupted
from qidf_ctl.install.scope import advice_for
from qidf_ctl.stats import hapax_terms, text_shape
from qidf_ctl.stats.query_sample import QUERY_SAMPLE, query_sample

Field = Annotated[str | None, typer.Option(
    "--field", help="Text field to measure (default: every text field; predict needs one).")]
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
    json_out: Json = False,
) -> None:
    """Predict q for an index from its own statistics, without relevance labels.

    Example: qidf predict code-search --field text --queries queries.jsonl
    """
    predict.check_query_kind(predictor, queries_are)
    sampled = query_sample(queries, seed=seed) if queries else None
    cluster = conn.connect()
    warn_if_interrupted(cluster, index, json_out)
    result = predict.predict_for_index(cluster, index, field, sample, seed=seed, exact=exact,
                                       predictor=predictor, queries=sampled,
                                       query_kind=queries_are, bar=bars(json_out))
    warning = advice_for(cluster, index)
    if json_out:
        emit_json({**result.as_dict(), "sharding_warning": warning})
        return
    if warning:
        err.print(f"warning: {warning}", markup=False)
    s = result.statistics
    out.print(f"q = {result.q:.2f}   {result.reason}", markup=False)
    out.print(f"predictor {result.predictor}: {result.formula}, clipped to "
              f"[{predict.Q_MIN}, {predict.Q_MAX:g}] (field {result.field}, "
              f"{_n(s['documents'])} documents, {s['mode']})", markup=False)
    for key, e in result.evidence.items():
        ci = f" (95% interval {e['interval'][0]:.3f}-{e['interval'][1]:.3f})" \
            if e.get("interval") else ""
        value = "n/a" if e["value"] is None else f"{e['value']:.4f}"
        out.print(f"  {e['name']} = {value}{ci}  [{key}: {e['definition']}]", markup=False)
    if result.ambiguous:
        out.print("the evidence is ambiguous: BM25 is kept (q = 1)", markup=False)
    if result.q < predict.Q_MAX:
        out.print(f"to use it: qidf apply {result.index} --q {result.q:.2f}", markup=False)
    else:
        out.print("BM25 stays: nothing to install (`qidf apply --q auto` leaves an index qidf "
                  "never changed as it is, and reverts one it changed)", markup=False)


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
