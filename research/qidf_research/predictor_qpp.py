"""Choosing q from the query sample (predictor.md, "Choosing q from the query sample"): the
four criteria of ``qpp_criteria`` as rule family F4 (LOLO), then the amendments V2 and V3
and their tests on query samples they did not see.

Reads the unlabeled runs of ``qpp_runs`` and the sweep curves of results.json (to score a
choice only). Prints and writes ``benchmarks/retrieval/qpp.json``:

    .venv/bin/python -m qidf_research.predictor_qpp
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from qidf_research import content_fitting as pc
from qidf_research.paths import REPO
from qidf_research.qpp_criteria import (
    CRITERIA,
    YARDSTICK,
    choose,
    curve,
    runs_of,
)
from qidf_research.qpp_rules import (
    RESULTS,
    SPREAD,
    Decider,
    go_at_scale,
    language_means,
    mean_of,
    measured_row,
    sample_move,
)
from qidf_research.readings import ndcg_at, recovery

OUT = REPO / "benchmarks" / "retrieval" / "qpp.json"
TAUS = (0.0, 0.005, 0.01, 0.02, 0.05)

# --- F4 and LOLO ---------------------------------------------------------------------------


def decide(p: pc.Params, r: pc.Row, name: str, tau: float) -> float:
    """F1's q with the sample; where F1 departs from BM25, the criterion's choice instead."""
    q, _ = pc.decide(p, r, True)
    if q == 1.0:
        return q
    chosen = choose(r["key"], name, tau)
    return q if chosen is None else chosen


def mean_recovery(p: pc.Params, rows: list[pc.Row], name: str, tau: float) -> float:
    per_language = []
    for lang in sorted({r["language"] for r in rows if r["main"]}):
        mains = [r for r in rows if r["language"] == lang and r["main"]]
        per_language.append(np.mean([recovery(r, decide(p, r, name, tau)) or 0.0
                                     for r in mains]))
    return float(np.mean(per_language))


def fit_tau(p: pc.Params, train: list[pc.Row], name: str) -> float:
    """The tau with the best mean recovery on ``train``; ties to the larger tau."""
    return max(TAUS, key=lambda tau: (round(mean_recovery(p, train, name, tau), 12), tau))


Decide = Callable[[pc.Row], float]
# A rule as LOLO fits it: F1's parameters and the fold's training rows in, the fold's
# decision per corpus (and what was fitted beyond F1, if anything) out.
RuleFit = Callable[[pc.Params, list[pc.Row]], tuple[Decide, Any]]


def f1_rule(p: pc.Params, _train: list[pc.Row]) -> tuple[Decide, Any]:
    return (lambda r: pc.decide(p, r, True)[0]), None


def criterion_rule(name: str) -> RuleFit:
    """F4 with criterion ``name``: tau fitted on the fold's training languages."""
    def fitted(p: pc.Params, train: list[pc.Row]) -> tuple[Decide, Any]:
        tau = fit_tau(p, train, name)
        return (lambda r: decide(p, r, name, tau)), tau
    return fitted


def lolo(rows: list[pc.Row], rule: RuleFit) -> dict[str, Any]:
    """Refit without each language; recovery of its main tasks (with the query sample) and
    the worst change against BM25 on any of its corpora."""
    out: dict[str, Any] = {"per_language": {}, "fitted": {}, "worst": None}
    worst: tuple[float, str, float] = (math.inf, "", 1.0)
    for lang in pc.LANGUAGES:
        held = [r for r in rows if r["language"] == lang]
        train = [r for r in rows if r["language"] != lang]
        p = pc.fit(train)
        assert p is not None
        q_of, out["fitted"][lang] = rule(p, train)
        mains = [r for r in held if r["main"]]
        out["per_language"][lang] = {r["key"]: {"q": q_of(r), "recovery": recovery(r, q_of(r))}
                                     for r in mains}
        out["per_language"][lang]["mean"] = float(np.mean(
            [recovery(r, q_of(r)) or 0.0 for r in mains]))
        for r in held:
            delta = ndcg_at(r, q_of(r)) - r["bm25"]
            if delta < worst[0]:
                worst = (delta, r["key"], q_of(r))
    out["mean"] = float(np.mean([v["mean"] for v in out["per_language"].values()]))
    out["worst"] = {"delta": worst[0], "task": worst[1], "q": worst[2]}
    return out


# --- the amendment V2 and its tests on data it did not see --------------------------------

SUBSET_SIZES = (100, 200, 500)
SUBSET_DRAWS = 5


def decide_v2(p: pc.Params, r: pc.Row, seed: int = 0,
              subset: tuple[int, ...] | None = None) -> float:
    """F1; with the sample, code documents take Q1's argmax and text searched with code
    takes min(q_q, Q1's argmax)."""
    q, _ = pc.decide(p, r, True)
    if q == 1.0:
        return q
    chosen = choose(r["key"], SPREAD, 0.0, seed, subset)
    if chosen is None:
        return q
    return chosen if r["kind"] == "code" else min(q, chosen)


def decide_v3(p: pc.Params, r: pc.Row, seed: int = 0) -> float:
    """V3: the sample may move q on code documents and lower it on text searched with
    code."""
    return sample_move(p, r, seed)


def new_queries(rows: list[pc.Row], p: pc.Params, seed: int, rule: Decider
                ) -> dict[str, Any]:
    """Test (a): ``rule`` and F1 on another seeded sample of queries of every main task,
    scored on that sample."""
    out: dict[str, Any] = {"tasks": {}}
    for r in rows:
        if not r["main"] or runs_of(r["key"], seed) is None:
            continue
        row = measured_row(r, seed)
        f1, chosen = pc.decide(p, r, True)[0], rule(p, r, seed)
        out["tasks"][r["key"]] = {
            "bm25": row["bm25"], "oracle": row["oracle"], "oracle_q": row["oracle_q"],
            **{name: {"q": q, "recovery": recovery(row, q),
                      "delta": ndcg_at(row, q) - row["bm25"]}
               for name, q in (("f1", f1), ("rule", chosen))}}
    if not out["tasks"]:
        return out
    for name in ("f1", "rule"):
        per_language = language_means([(k.split("-")[0], t[name]["recovery"] or 0.0)
                                       for k, t in out["tasks"].items()])
        out[name] = {"per_language": per_language, "mean": mean_of(per_language),
                     "worst_delta": min(t[name]["delta"] for t in out["tasks"].values())}
    return out


def new_queries_decoupled(rows: list[pc.Row], p: pc.Params, seed: int, rule: Decider
                          ) -> dict[str, Any]:
    """Test (a'): ``rule`` choosing on another seeded sample of queries, recovery read off
    the benchmark's own curves (its seed-0 queries): the sample that picks q does not score
    it."""
    tasks = {}
    for r in rows:
        if r["main"] and runs_of(r["key"], seed) is not None:
            q = rule(p, r, seed)
            tasks[r["key"]] = {"language": r["language"], "q": q, "recovery": recovery(r, q),
                               "delta": ndcg_at(r, q) - r["bm25"]}
    per_language = language_means([(t["language"], t["recovery"] or 0.0)
                                   for t in tasks.values()])
    return {"tasks": tasks, "per_language": per_language, "mean": mean_of(per_language),
            "worst_delta": min((t["delta"] for t in tasks.values()), default=None)}


def v2_rule(p: pc.Params, _train: list[pc.Row]) -> tuple[Decide, Any]:
    return (lambda r: decide_v2(p, r)), None


def yardstick(rows: list[pc.Row], p: pc.Params) -> dict[str, Any]:
    """F1 and V3 scored on the 5,000-query sample: F1 on all of it; V3 choosing on seed 1
    or 2 and scored on the 5,000 minus the choosing sample's queries (F1 on the same)."""
    out: dict[str, Any] = {"tasks": {}}
    f1_all: list[tuple[str, float]] = []
    by_seed: dict[int, dict[str, list[tuple[str, float]]]] = {}
    worst = math.inf
    for r in rows:
        data = runs_of(r["key"], YARDSTICK)
        if not r["main"] or data is None:
            continue
        f1 = pc.decide(p, r, True)[0]
        full = measured_row(r, YARDSTICK)
        task: dict[str, Any] = {"queries": len(data[2]["qids"]),
                                "bm25": full["bm25"], "oracle": full["oracle"],
                                "f1": {"q": f1, "recovery": recovery(full, f1)}}
        f1_all.append((r["language"], recovery(full, f1) or 0.0))
        for seed in (1, 2):
            chooser = runs_of(r["key"], seed)
            if chooser is None:
                continue
            rest = measured_row(r, YARDSTICK, frozenset(chooser[2]["qids"]))
            v3 = decide_v3(p, r, seed)
            task[f"seed{seed}"] = {"v3_q": v3, "v3_recovery": recovery(rest, v3),
                                   "f1_recovery": recovery(rest, f1),
                                   "v3_delta": ndcg_at(rest, v3) - rest["bm25"]}
            worst = min(worst, ndcg_at(rest, v3) - rest["bm25"])
            per = by_seed.setdefault(seed, {"v3": [], "f1": []})
            per["v3"].append((r["language"], recovery(rest, v3) or 0.0))
            per["f1"].append((r["language"], recovery(rest, f1) or 0.0))
        out["tasks"][r["key"]] = task
    if not out["tasks"]:
        return out
    out["f1_per_language"] = language_means(f1_all)
    out["f1_mean"] = mean_of(out["f1_per_language"])
    out["by_seed"] = {str(s): {k: mean_of(language_means(v[k])) for k in ("v3", "f1")}
                      for s, v in by_seed.items()}
    out["v3_worst_delta"] = worst
    return out


def sample_sizes(rows: list[pc.Row], p: pc.Params) -> dict[str, Any]:
    """Test (c): V2 deciding on seeded subsets of each task's sample, read off the full
    curves; mean recovery over the languages per size (and the full sample's)."""
    import random

    mains = [r for r in rows if r["main"]]
    out: dict[str, Any] = {}
    for size in (*SUBSET_SIZES, None):
        draws = []
        for draw in range(SUBSET_DRAWS if size else 1):
            per_language = []
            for lang in pc.LANGUAGES:
                recs = []
                for r in (m for m in mains if m["language"] == lang):
                    data = runs_of(r["key"])
                    n = 0 if data is None else len(data[2]["qids"])
                    subset = (tuple(sorted(random.Random(draw).sample(range(n), size)))
                              if size and n > size else None)
                    recs.append(recovery(r, decide_v2(p, r, 0, subset)) or 0.0)
                per_language.append(float(np.mean(recs)))
            draws.append(float(np.mean(per_language)))
        out[str(size or "all")] = {"mean": float(np.mean(draws)), "min": min(draws),
                                   "max": max(draws)}
    return out


def study() -> dict[str, Any]:
    results = json.loads(RESULTS.read_text())
    rows = [r for r in pc.rows_of(results) if pc.is_training(r)]
    report: dict[str, Any] = {"criteria": {}, "curves": {}}
    report["F1"] = lolo(rows, f1_rule)
    p = pc.fit(rows)
    assert p is not None
    report["v2"] = {"lolo": lolo(rows, v2_rule),
                    "new_queries": new_queries(rows, p, 1, decide_v2),
                    "new_queries_decoupled": new_queries_decoupled(rows, p, 1, decide_v2),
                    "go_at_scale": go_at_scale(rows, p, decide_v2),
                    "sample_sizes": sample_sizes(rows, p)}
    report["yardstick"] = yardstick(rows, p)
    report["v3"] = {
        "seed2": new_queries(rows, p, 2, decide_v3),
        "seed2_decoupled": new_queries_decoupled(rows, p, 2, decide_v3),
        "seed1": new_queries(rows, p, 1, decide_v3),
        "seed1_decoupled": new_queries_decoupled(rows, p, 1, decide_v3),
        "go_at_scale": go_at_scale(rows, p, decide_v3)}
    for name in CRITERIA:
        report["criteria"][name] = lolo(rows, criterion_rule(name))
        report["curves"][name] = {r["key"]: curve(r["key"], name) for r in rows
                                  if runs_of(r["key"]) is not None}
    return report


def main() -> None:
    report = study()
    OUT.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"F1 (constants): LOLO {report['F1']['mean']:.3f}")
    v2 = report["v2"]
    print(f"V2: LOLO {v2['lolo']['mean']:.3f} (worst {v2['lolo']['worst']['delta']:+.4f})")
    nq = v2["new_queries"]
    if nq["tasks"]:
        print(f"  (a) new queries: V2 {nq['rule']['mean']:.3f} (worst "
              f"{nq['rule']['worst_delta']:+.4f})"
              f" vs F1 {nq['f1']['mean']:.3f} (worst {nq['f1']['worst_delta']:+.4f}) on "
              f"{len(nq['tasks'])} tasks")
    dq = v2["new_queries_decoupled"]
    if dq["tasks"]:
        print(f"  (a') decoupled: V2 {dq['mean']:.3f} (worst {dq['worst_delta']:+.4f}) on "
              f"{len(dq['tasks'])} tasks")
    for k, t in v2["go_at_scale"].items():
        print(f"  (b) {k}: q {t['q']:g} (F1 {t['f1_q']:g}) delta {t['delta']:+.4f}")
    for k, t in v2["sample_sizes"].items():
        print(f"  (c) {k} queries: {t['mean']:.3f} ({t['min']:.3f}-{t['max']:.3f})")
    v3 = report["v3"]
    for seed in ("seed1", "seed2"):
        own, dec = v3[seed], v3[f"{seed}_decoupled"]
        if own["tasks"]:
            print(f"V3 {seed}: on its own queries V3 {own['rule']['mean']:.3f} vs F1 "
                  f"{own['f1']['mean']:.3f}; decoupled V3 {dec['mean']:.3f} (worst "
                  f"{dec['worst_delta']:+.4f})")
    for k, t in v3["go_at_scale"].items():
        print(f"  V3 {k}: q {t['q']:g} delta {t['delta']:+.4f}")
    ys = report["yardstick"]
    if ys["tasks"]:
        print(f"5,000 queries ({len(ys['tasks'])} tasks): F1 {ys['f1_mean']:.3f}; " + "; ".join(
            f"choosing on seed {s}: V3 {v['v3']:.3f} vs F1 {v['f1']:.3f}"
            for s, v in ys["by_seed"].items()) + f"; V3 worst {ys['v3_worst_delta']:+.4f}")
    for name, rep in report["criteria"].items():
        w = rep["worst"]
        per = " ".join(f"{lang}:{v['mean']:.2f}" for lang, v in rep["per_language"].items())
        print(f"{name}: LOLO {rep['mean']:.3f}, worst {w['delta']:+.4f} ({w['task']} "
              f"q={w['q']:g}); taus {sorted(set(rep['fitted'].values()))}\n   {per}")


if __name__ == "__main__":
    main()
