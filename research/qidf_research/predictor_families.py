"""Issue 36's study (predictor.md, "A label-free q that holds off the benchmark"): levels
fitted for the worst task and read leave-one-family-out, with the line-shape code detector.

Candidates (the protocol's): R0 today's levels (0.6 code documents, 0.7 text searched with
code); R1 one minimax level per direction; R2 a level that follows one query statistic
(two anchor levels at the training statistic's 10th and 90th percentiles, linear between,
clipped), fitted minimax. Every candidate routes a task the product's way: the analyzer rule,
then the share of sampled documents that look like code (code / ambiguous / text), then for a
text field the share of sampled queries (code -> the code-queries level, else BM25). The
shares are the product's (``text_shape``, D2), computed here on each task's own texts (the
same seeded samples ``predict`` reads); bounds come from the training gaps as before.

Every number is read off the engine's sweep curves (worse grid neighbour). Per fold, every
corpus of the held-out family is read (main tasks for recovery; subsets and ablations for
the change against BM25); prose controls are safety corpora in every fold.

    python -m qidf_research.predictor_families            # families.json + families.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from qidf_research import predictor_families_shapes as task_shapes
from qidf_research.content_fitting import BAND, gap_threshold, kind
from qidf_research.languages import FAMILIES, family_of
from qidf_research.paths import BENCHMARKS
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.predictor_families_report import report
from qidf_research.predictor_families_shapes import shapes
from qidf_research.readings import MAX_LOSS, corpus_rows, is_prose, ndcg_at, recovery, summarize

OUT = BENCHMARKS / "retrieval"
SHAPES = RESEARCH_CACHE / "labelfree" / "shapes.json"
LEVELS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R2_STATS = ("query_tokens", "query_hapax_share", "query_unseen_share", "q_identifier_words")
R0 = {"q_c": 0.6, "q_q": 0.7}
Row = dict[str, Any]
Params = dict[str, Any]


def rows_of(results: dict[str, Any]) -> list[Row]:
    keys = sorted(results["tasks"])
    d2 = shapes(keys)
    rows = []
    for r in corpus_rows(results, keys):
        if r["key"].startswith(("debdesc", "debman", "debdocs", "debmulti", "mixed")):
            continue
        if r["key"] not in d2:
            # The corpus was not built here: the stored shares (the punctuation detector,
            # a lower bound of the product's) stand in, and the report names the task.
            if "src_code_like_share" not in r["stats"]:
                continue
            r["stand_in_shares"] = True
        t = results["tasks"][r["key"]]
        r["kind"] = kind(r["key"], t.get("analyzer", "standard"))
        r["main"] = r["key"].split("-", 1)[1] in ("code2doc", "doc2code")
        r["language"] = "go" if r["key"].startswith("go-") else r["key"].split("-")[0]
        r["family"] = "prose" if is_prose(r["key"]) else family_of(r["language"])
        r["stats"] = {**r["stats"], **d2.get(r["key"], {})}
        rows.append(r)
    return rows


# --- the rule -----------------------------------------------------------------------------


def side(x: float, t: float) -> str:
    if x >= t * (1 + BAND):
        return "code"
    if x <= t * (1 - BAND):
        return "text"
    return "ambiguous"


def bounds(train: list[Row]) -> Params:
    std = [r for r in train if r["kind"] != "identifier"]
    c, s = "src_code_like_share", "q_code_like_share"
    t_c = gap_threshold([r["stats"][c] for r in std if r["kind"] in ("docstring", "prose")],
                        [r["stats"][c] for r in std if r["kind"] == "code"])
    t_q = gap_threshold([r["stats"][s] for r in std if r["kind"] in ("code", "prose")],
                        [r["stats"][s] for r in std if r["kind"] == "docstring"])
    return {"t_c": t_c, "t_q": t_q}


def route(r: Row, p: Params) -> str:
    """Which level applies: "q_c" (code documents), "q_q" (text searched with code), "bm25"."""
    if r["kind"] == "identifier":
        return "bm25"
    doc = side(r["stats"]["src_code_like_share"], p["t_c"])
    if doc == "code":
        return "q_c"
    if doc == "text" and side(r["stats"]["q_code_like_share"], p["t_q"]) == "code":
        return "q_q"
    return "bm25"


def level_of(r: Row, p: Params, which: str) -> float:
    spec = p[which]
    if isinstance(spec, float):
        return spec
    z = r["stats"][spec["stat"]]
    if spec["stat"] == "query_tokens":
        z = math.log(max(z, 1.0))
    lo, hi = spec["z"]
    w = 0.0 if hi == lo else min(1.0, max(0.0, (z - lo) / (hi - lo)))
    return spec["at_lo"] + w * (spec["at_hi"] - spec["at_lo"])


def q_of(r: Row, p: Params) -> float:
    which = route(r, p)
    return 1.0 if which == "bm25" else level_of(r, p, which)


# --- fitting ------------------------------------------------------------------------------


def _score(rows: list[Row], safe: list[Row], q: Callable[[Row], float]
           ) -> tuple[float, float] | None:
    """(worst recovery, mean recovery) on ``rows``; None if a safe row loses > MAX_LOSS."""
    if any(r["bm25"] - ndcg_at(r, q(r)) > MAX_LOSS for r in safe):
        return None
    recs = [x for x in (recovery(r, q(r)) for r in rows) if x is not None]
    if not recs:
        return (0.0, 0.0)
    return (min(recs), float(np.mean(recs)))


def _better(a: tuple[float, float], b: tuple[float, float] | None) -> bool:
    return b is None or a[0] > b[0] + 1e-12 or (abs(a[0] - b[0]) <= 1e-12 and a[1] > b[1] + 1e-12)


def _constant(q: float, r: Row) -> float:
    return q


def _linear(spec: Params, r: Row) -> float:
    return level_of(r, {"x": spec}, "x")


def fit_constant(rows: list[Row], safe: list[Row]) -> float:
    """R1: the level with the best worst task, then mean; ties to the larger q."""
    best: tuple[float, float] | None = None
    chosen = 1.0
    for q in LEVELS:
        s = _score(rows, safe, partial(_constant, q))
        if s is not None and (_better(s, best) or (best is not None and s == best)):
            best, chosen = s, q
    return chosen


def fit_linear(rows: list[Row], safe: list[Row], stat: str) -> Params | float:
    """R2: anchor levels at the statistic's 10th and 90th training percentiles."""
    zs = [r["stats"][stat] for r in rows]
    if stat == "query_tokens":
        zs = [math.log(max(z, 1.0)) for z in zs]
    if len(zs) < 2:
        return fit_constant(rows, safe)
    z = (float(np.percentile(zs, 10)), float(np.percentile(zs, 90)))
    best: tuple[float, float] | None = None
    chosen: Params = {}
    for lo in LEVELS:
        for hi in LEVELS:
            spec = {"stat": stat, "z": z, "at_lo": lo, "at_hi": hi}
            s = _score(rows, safe, partial(_linear, spec))
            if s is not None and _better(s, best):
                best, chosen = s, spec
    return chosen or 1.0


def fit(train: list[Row], candidate: str) -> Params:
    p = bounds(train)
    if p["t_c"] is None or p["t_q"] is None:
        raise ValueError("the training shares overlap: no bound separates code from text")
    if candidate == "R0":
        return {**p, **R0}
    for which in ("q_c", "q_q"):
        routed = [r for r in train if route(r, p) == which]
        mains = [r for r in routed if r["main"]]
        # The protocol fits levels on recovery alone (worst, then mean); safety is judged
        # afterwards, on the held-out family (adoption rule 1), not used to fit.
        if candidate == "R1":
            p[which] = fit_constant(mains, [])
        else:
            p[which] = fit_linear(mains, [], candidate.split(":", 1)[1])
    return p


# --- evaluation ---------------------------------------------------------------------------


def read(rows: list[Row], p: Params) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        q = q_of(r, p)
        at = ndcg_at(r, q)
        out.append({"key": r["key"], "family": r["family"], "main": r["main"],
                    "route": route(r, p), "q": round(q, 3), "oracle_q": r["oracle_q"],
                    "bm25": r["bm25"], "oracle": r["oracle"], "at": at,
                    "change": at - r["bm25"], "recovery": recovery(r, q)})
    return out


def summary(cells: list[dict[str, Any]]) -> dict[str, Any]:
    mains = [c for c in cells if c["main"]]
    s = summarize((c["bm25"], c["oracle"], c["at"]) for c in mains)
    s["worst_change"] = min((c["change"] for c in cells), default=None)
    worst = min((c for c in mains if c["recovery"] is not None),
                key=lambda c: c["recovery"], default=None)
    s["worst_task"] = worst["key"] if worst else None
    return s


def lofo(rows: list[Row], candidate: str) -> dict[str, Any]:
    folds: dict[str, Any] = {}
    pooled: list[dict[str, Any]] = []
    for family in FAMILIES:
        held = [r for r in rows if r["family"] == family]
        if not any(r["main"] for r in held):
            continue
        p = fit([r for r in rows if r["family"] != family], candidate)
        cells = read(held, p)
        pooled += cells
        folds[family] = {"params": p, "summary": summary(cells), "cells": cells}
    return {"folds": folds, "pooled": summary(pooled)}


def candidates() -> list[str]:
    return ["R0", "R1"] + [f"R2:{s}" for s in R2_STATS]


def study(results: dict[str, Any]) -> dict[str, Any]:
    rows = rows_of(results)
    out: dict[str, Any] = {"tasks": len(rows), "stand_in_shares": sorted(
        r["key"] for r in rows if r.get("stand_in_shares")), "families": {f: sorted(
        {r["language"] for r in rows if r["family"] == f}) for f in FAMILIES}}
    for cand in candidates():
        full = fit(rows, cand)
        out[cand] = {"lofo": lofo(rows, cand), "fitted": full,
                     "in_sample": summary(read(rows, full)),
                     "prose": {c["key"]: (c["q"], c["change"]) for c in read(rows, full)
                               if c["family"] == "prose"}}
        print(cand, out[cand]["lofo"]["pooled"], file=sys.stderr, flush=True)
    out["file_level"] = file_level(rows, out["R1"]["fitted"])
    out["shipped"] = shipped(rows)
    return out


def file_level(rows: list[Row], p: Params) -> dict[str, Any]:
    """G0 (the code level) and G3 (a level for long code documents, fitted leave one
    repository out) on the file-level tasks; L from the function corpora and the file
    corpora (mean words of their sampled documents)."""
    from qidf_research import filelevel_reading as fl

    tasks = fl.load()
    if not tasks:
        return {"tasks": []}
    functions = [r["stats"]["src_mean_words"] for r in rows if r["kind"] == "code"]
    bound = fl.length_bound(functions, [t["docs"].mean_words for t in tasks])
    out: dict[str, Any] = {"L": bound, "longest_function_corpus": max(functions),
                           "q_long_all": fl.fit_long_level(tasks), "tasks": []}
    for t in tasks:
        doc = side(t["docs"].code_like_share, p["t_c"])
        g0 = level_of({"stats": {}}, p, "q_c") if doc == "code" else 1.0
        q_long = fl.fit_long_level([o for o in tasks if o is not t])
        long = bound is not None and t["docs"].mean_words >= bound
        g3 = q_long if doc == "code" and long else g0
        out["tasks"].append({
            "key": t["key"], "repo": t["repo"], "documents": t["documents"],
            "code_like_documents": t["docs"].code_like_share,
            "punctuation_documents": t["docs"].punctuation_code_share,
            "mean_words": t["docs"].mean_words,
            "code_like_queries": t["queries"].code_like_share,
            "G0": fl.reading(t, g0), "G3": fl.reading(t, g3), "q_long_fold": q_long})
    for g in ("G0", "G3"):
        cells = [x[g] for x in out["tasks"]]
        out[g] = {"significant_losses": sum(c["significant_loss"] for c in cells),
                  "worst_change": min(c["change"] for c in cells),
                  **summarize((c["bm25"], c["oracle"], c["at"]) for c in cells)}
    return out


def shipped_q(r: Row) -> float:
    """The product's own decision (``qidf-content``, its one definition) on a task's shares,
    with the task's queries as the sample: the rule as shipped, read on the curves."""
    from types import SimpleNamespace

    from qidf_ctl.predictors import content

    st = r["stats"]
    docs = SimpleNamespace(texts=1000, code_like_share=st["src_code_like_share"],
                           code_like_interval=(0.0, 1.0), mean_words=st["src_mean_words"])
    field = SimpleNamespace(source_shape=docs, field="text", documents=r.get("documents", 0),
                            avg_field_length=st["tokens"] / st["docs"] if st.get("docs")
                            else math.nan,
                            splits_identifiers=["camelCase"] if r["kind"] == "identifier"
                            else [])
    queries = SimpleNamespace(shape=SimpleNamespace(
        texts=1000, code_like_share=st["q_code_like_share"], code_like_interval=(0.0, 1.0),
        identifier_words=st.get("q_identifier_words", math.nan)))
    return float(content.decide(field, queries).q)  # type: ignore[arg-type]


def shipped(rows: list[Row]) -> dict[str, Any]:
    cells = []
    for r in rows:
        q = shipped_q(r)
        at = ndcg_at(r, q)
        cells.append({"key": r["key"], "family": r["family"], "main": r["main"], "q": q,
                      "oracle_q": r["oracle_q"], "bm25": r["bm25"], "oracle": r["oracle"],
                      "at": at, "change": at - r["bm25"], "recovery": recovery(r, q)})
    per_family = {f: summary([c for c in cells if c["family"] == f])
                  for f in FAMILIES if any(c["family"] == f and c["main"] for c in cells)}
    return {"summary": summary(cells), "families": per_family, "cells": cells}


def with_cached(results: dict[str, Any]) -> dict[str, Any]:
    """results.json plus finished tasks of the widened languages still only in the
    benchmark's task cache (several runs write results.json in turn)."""
    from qidf_research.languages import WIDENED

    for path in sorted((RESEARCH_CACHE / "bench").glob("*.json")):
        if path.stem.split("-")[0] in WIDENED and path.stem not in results["tasks"]:
            results["tasks"][path.stem] = json.loads(path.read_text())
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="tables from families.json only")
    ap.add_argument("--shapes-only", action="store_true",
                    help="only compute the tasks' shares (of corpora already built)")
    ap.add_argument("--built-only", action="store_true",
                    help="never build a corpus: tasks whose corpus is missing are left out")
    args = ap.parse_args(argv)
    task_shapes.BUILT_ONLY = args.built_only or args.shapes_only
    if args.shapes_only:
        shapes(sorted(with_cached(json.loads((OUT / "results.json").read_text()))["tasks"]))
        return 0
    path = OUT / "families.json"
    if args.report:
        data = json.loads(path.read_text())
    else:
        data = study(with_cached(json.loads((OUT / "results.json").read_text())))
        path.write_text(json.dumps(data, indent=1, default=float) + "\n")
    (OUT / "families.md").write_text(report(data))
    print(report(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
