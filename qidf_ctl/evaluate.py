"""Retrieval quality of a live index: query/qrels files, metrics, a paired bootstrap.

Everything is measured on the engine as deployed: queries go through the index's own search
analyzer (``_analyze``) and the engine's own scoring, so a number here is what users get.
The IR metrics come from ir-measures (pytrec_eval underneath); Recall@8K-tokens is computed
on the same run with a documented token counter (``tokens.py``).

File formats (what BEIR/CoIR and TREC tools write):
- queries: ``.jsonl``, one ``{"_id": ..., "text": ...}`` a line (BEIR; ``id``/``qid`` and
  ``query`` are accepted too), or ``.tsv``, ``qid<TAB>text`` a line (text on one line).
- qrels: TREC (``qid 0 docid rel``, whitespace-separated) or BEIR's TSV
  (``query-id<TAB>corpus-id<TAB>score``, header line optional).
- runs: TREC (``qid Q0 docid rank score tag``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import install, queries, runs
from .cluster import Cluster
from .errors import QidfError, UsageError
from .metrics import evaluate as ir_evaluate
from .metrics import recall_at_token_budget
from .progress import BarFactory, Progress, no_bar, quiet
from .tokens import counter as token_counter

# ir-measures name -> the name we report.
MEASURES = {"nDCG@10": "NDCG@10", "RR@10": "MRR@10", "R@100": "Recall@100"}
BUDGET_MEASURE = "Recall@8K-tokens"
DEFAULT_DEPTH = 1000
DEFAULT_BUDGET = 8000
DEFAULT_RESAMPLES = 10_000
Qrels = dict[str, dict[str, int]]



# --- Files ------------------------------------------------------------------------------


def read_queries(path: str | Path) -> dict[str, str]:
    """Queries from BEIR-style JSONL or a ``qid<TAB>text`` TSV, in file order."""
    path = Path(path)
    out: dict[str, str] = {}
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"cannot read queries file {path}: {exc.strerror}") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            if path.suffix == ".jsonl" or line.lstrip().startswith("{"):
                try:
                    row = json.loads(line)
                    qid = next(str(row[k]) for k in ("_id", "id", "qid", "query_id") if k in row)
                    text = next(str(row[k]) for k in ("text", "query") if k in row)
                except (ValueError, StopIteration):
                    raise UsageError(f"{path}:{lineno}: expected a JSON object with \"_id\" and "
                                     "\"text\"") from None
            else:
                qid, sep, text = line.rstrip("\r\n").partition("\t")
                if not sep:
                    raise UsageError(f"{path}:{lineno}: expected qid<TAB>text (or use .jsonl)")
            if qid in out:
                raise UsageError(f"{path}:{lineno}: query id {qid!r} appears twice")
            out[qid] = text
    if not out:
        raise UsageError(f"queries file {path} holds no queries")
    return out


def read_qrels(path: str | Path) -> Qrels:
    """Relevance judgements from TREC qrels (4 columns) or BEIR TSV (3 columns)."""
    path = Path(path)
    out: Qrels = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read qrels file {path}: {exc.strerror}") from None
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or (lineno == 1 and parts[0] in ("query-id", "query_id", "qid")):
            continue
        if len(parts) == 4:
            qid, _, doc, rel = parts
        elif len(parts) == 3:
            qid, doc, rel = parts
        else:
            raise UsageError(f"{path}:{lineno}: expected 'qid 0 docid rel' (TREC) or "
                             f"'qid<TAB>docid<TAB>rel' (BEIR), got {len(parts)} fields")
        try:
            out.setdefault(qid, {})[doc] = int(float(rel))
        except ValueError:
            raise UsageError(f"{path}:{lineno}: relevance must be a number, got {rel!r}") from None
    if not out:
        raise UsageError(f"qrels file {path} holds no judgements")
    return out


def write_queries(queries_: Mapping[str, str], path: str | Path) -> None:
    """BEIR-style JSONL, for tasks built from pairs (code has newlines: TSV cannot hold it)."""
    with open(path, "w", encoding="utf-8") as fh:
        for qid, text in queries_.items():
            fh.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> None:
    """TREC qrels."""
    with open(path, "w", encoding="utf-8") as fh:
        for qid in qrels:
            for doc, rel in qrels[qid].items():
                fh.write(f"{qid} 0 {doc} {rel}\n")


def sample_queries(queries_: dict[str, str], qrels: Qrels, max_queries: int | None,
                   seed: int = 0) -> tuple[dict[str, str], Qrels]:
    """Judged queries only, or a seeded sample of them; qrels cut to match."""
    judged = [q for q in queries_ if q in qrels]
    if not judged:
        raise UsageError("no query id in the queries file has a judgement in the qrels file")
    if max_queries is not None and 0 < max_queries < len(judged):
        keep = set(random.Random(seed).sample(judged, max_queries))
        judged = [q for q in judged if q in keep]
    return {q: queries_[q] for q in judged}, {q: qrels[q] for q in judged}


# --- Index helpers ----------------------------------------------------------------------


def text_field(cluster: Cluster, index: str, field_name: str | None) -> str:
    """The field to search: the one given, or the index's only text field."""
    state = install.read_state(cluster, index)
    if field_name is not None:
        if field_name not in state.text_fields:
            raise UsageError(f"{field_name!r} is not a text field of {state.index!r} "
                             f"(text fields: {', '.join(state.text_fields) or 'none'})")
        return field_name
    if len(state.text_fields) != 1:
        raise UsageError(f"{state.index!r} has {len(state.text_fields)} text fields "
                         f"({', '.join(state.text_fields) or 'none'}): pick one with --field")
    return state.text_fields[0]


def _source_text(source: Mapping[str, Any], dotted: str) -> str:
    node: Any = source
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    if isinstance(node, list):
        return " ".join(str(x) for x in node)
    return "" if node is None else str(node)


def _fetch_token_counts(cluster: Cluster, index: str, field_name: str, ids: list[str],
                        count: Callable[[str], int], cache: dict[str, int]) -> None:
    for start in range(0, len(ids), 1000):
        batch = ids[start:start + 1000]
        resp = cluster.request("POST", f"/{index}/_mget", {"ids": batch},
                               {"_source_includes": field_name})
        for doc in resp["docs"]:
            cache[doc["_id"]] = count(_source_text(doc.get("_source") or {}, field_name))


def token_counts_for_run(
    cluster: Cluster, index: str, field_name: str, run: runs.Run, budget: int,
    count: Callable[[str], int], cache: dict[str, int] | None = None,
) -> dict[str, int]:
    """Token counts of the documents each query's budget walk reaches, fetched in rounds
    (only what the walk needs: the whole corpus is never read unless it must be)."""
    cache = {} if cache is None else cache
    pos = dict.fromkeys(run, 0)
    used = dict.fromkeys(run, 0)
    while pos:
        wanted: list[str] = []
        for qid in list(pos):
            hits = run[qid]
            i = pos[qid]
            while i < len(hits) and hits[i][0] in cache and used[qid] <= budget:
                used[qid] += cache[hits[i][0]]
                i += 1
            pos[qid] = i
            if i >= len(hits) or used[qid] > budget:
                del pos[qid]
                continue
            wanted.extend(d for d, _ in hits[i:i + 64] if d not in cache)
        if wanted:
            _fetch_token_counts(cluster, index, field_name, sorted(set(wanted)), count, cache)
    return cache


# --- Scoring ----------------------------------------------------------------------------


@dataclass
class Bootstrap:
    """Paired bootstrap over queries of one measure: run minus baseline."""

    measure: str
    run_mean: float
    baseline_mean: float
    delta: float
    p_value: float
    sign_flip_share: float
    resamples: int
    seed: int
    queries: int


def paired_bootstrap(
    run_values: Mapping[str, float], baseline_values: Mapping[str, float], *,
    measure: str = "NDCG@10", resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
) -> Bootstrap:
    """Resample queries with replacement; p is two-sided under the shifted null (Efron &
    Tibshirani 16.4, as Sakai uses for IR): the share of resampled mean deltas at least as
    far from the observed delta as the observed delta is from 0. The sign-flip share is
    how often a resample's delta has the other sign (or is 0): how fragile the direction is.
    Queries missing from either side count as 0.
    """
    qids = sorted(set(run_values) | set(baseline_values))
    if not qids:
        raise QidfError("no queries to compare")
    diffs = np.array([run_values.get(q, 0.0) - baseline_values.get(q, 0.0) for q in qids])
    observed = float(diffs.mean())
    rng = np.random.default_rng(seed)
    n, extreme, flips, done = len(diffs), 0, 0, 0
    chunk = max(1, min(resamples, 4_000_000 // n))
    while done < resamples:
        size = min(chunk, resamples - done)
        means = diffs[rng.integers(0, n, size=(size, n))].mean(axis=1)
        extreme += int(np.count_nonzero(np.abs(means - observed) >= abs(observed) - 1e-15))
        flips += int(np.count_nonzero(means * np.sign(observed) <= 0)) if observed else size
        done += size
    run_mean = float(np.mean([run_values.get(q, 0.0) for q in qids]))
    return Bootstrap(measure, run_mean, run_mean - observed, observed,
                     (extreme + 1) / (resamples + 1), flips / resamples, resamples, seed, n)


def _fits(hits: list[tuple[str, float]], doc_tokens: Mapping[str, int], budget: int) -> bool:
    """True when the whole hit list fits the budget: the run's depth, not the budget, ended
    the walk, so a deeper run could have scored higher."""
    used = 0
    for doc, _ in hits:
        if doc not in doc_tokens:
            return False
        used += doc_tokens[doc]
        if used > budget:
            return False
    return True


@dataclass
class Scored:
    """Means and per-query values of every reported measure, for one run."""

    mean: dict[str, float]
    per_query: dict[str, dict[str, float]]
    empty_queries: int
    depth_limited: int = 0


def score_run(run: runs.Run, qrels: Qrels, doc_tokens: Mapping[str, int] | None = None,
              budget: int = DEFAULT_BUDGET) -> Scored:
    """Library metrics plus Recall@budget-tokens when ``doc_tokens`` is given."""
    scores = ir_evaluate(run, qrels, MEASURES)
    per_query = {q: {MEASURES[m]: v for m, v in vals.items()}
                 for q, vals in scores.per_query.items()}
    mean = {MEASURES[m]: v for m, v in scores.mean.items()}
    empty = sum(1 for q in qrels if not run.get(q))
    limited = 0
    if doc_tokens is not None:
        recall = recall_at_token_budget(run, qrels, doc_tokens, budget)
        for q in per_query:
            per_query[q][BUDGET_MEASURE] = recall.get(q, 0.0)
        mean[BUDGET_MEASURE] = sum(v[BUDGET_MEASURE] for v in per_query.values()) / max(
            len(per_query), 1)
        limited = sum(1 for q in qrels if run.get(q) and _fits(run[q], doc_tokens, budget))
    return Scored(mean, per_query, empty, limited)


@dataclass
class EvalResult:
    """What ``qidf eval`` reports."""

    index: str
    field: str
    similarity: str
    queries: int
    depth: int
    token_budget: int
    token_counter: str
    mean: dict[str, float]
    empty_queries: int
    depth_limited_queries: int
    baseline: Bootstrap | None = None
    per_query: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict, repr=False)

    def as_dict(self, per_query: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not per_query:
            data.pop("per_query")
        return data


def run_terms(cluster: Cluster, index: str, field_name: str, terms: Mapping[str, Any],
              depth: int, bar: BarFactory = no_bar) -> runs.Run:
    """One search per query, ``depth`` hits each, with a progress bar."""
    with bar(f"searching (top {depth})", len(terms)) as advance:
        return runs.search_run(cluster, index, field_name, terms, k=depth, advance=advance)


def analyze_queries(cluster: Cluster, index: str, field_name: str, texts: Mapping[str, str],
                    bar: BarFactory = no_bar) -> dict[str, Any]:
    """Each query's tokens under the field's search analyzer (one ``_analyze`` each)."""
    with bar("analysing queries", len(texts)) as advance:
        return queries.analyze_all(cluster, index, field_name, texts, advance)


def evaluate_index(
    cluster: Cluster,
    index: str,
    queries_: dict[str, str],
    qrels: Qrels,
    *,
    field_name: str | None = None,
    depth: int = DEFAULT_DEPTH,
    budget: int = DEFAULT_BUDGET,
    counter_name: str = "cl100k",
    baseline: runs.Run | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    progress: Progress = quiet,
    bar: BarFactory = no_bar,
) -> tuple[EvalResult, runs.Run]:
    """Search every judged query on ``index`` as it is configured now, and score the run."""
    if depth < 10:
        raise UsageError(f"--depth must be at least 10 (NDCG@10 needs it), got {depth}")
    if budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {budget}")
    count = token_counter(counter_name)
    queries_, qrels = sample_queries(queries_, qrels, None)
    resolved = cluster.resolve_index(index)
    fname = text_field(cluster, resolved, field_name)
    similarity = install.show(cluster, resolved)["similarity"]
    terms = analyze_queries(cluster, resolved, fname, queries_, bar)
    run = run_terms(cluster, resolved, fname, terms, depth, bar)
    progress("counting tokens of the retrieved documents")
    doc_tokens = token_counts_for_run(cluster, resolved, fname, run, budget, count)
    scored = score_run(run, qrels, doc_tokens, budget)
    result = EvalResult(resolved, fname, similarity, len(qrels), depth, budget, counter_name,
                        scored.mean, scored.empty_queries, scored.depth_limited, None,
                        scored.per_query)
    if baseline is not None:
        base = score_run(baseline, qrels)
        result.baseline = paired_bootstrap(
            {q: v["NDCG@10"] for q, v in scored.per_query.items()},
            {q: v["NDCG@10"] for q, v in base.per_query.items()},
            resamples=resamples, seed=seed)
    return result, run
