"""Choosing q from the query sample (predictor.md, "Choosing q from the query sample"): four
label-free criteria read off the sample's own rankings at a grid of q, family F4, LOLO.

Reads the unlabeled runs of ``qpp_runs`` and the sweep curves of results.json (to score a
choice only). Prints and writes ``benchmarks/retrieval/qpp.json``:

    .venv/bin/python -m qidf_research.predictor_qpp
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from qidf_research import predictor_content as pc
from qidf_research.paths import CACHE, REPO
from qidf_research.predictor_fit import ndcg_at, recovery

RESULTS = REPO / "benchmarks" / "retrieval" / "results.json"
OUT = REPO / "benchmarks" / "retrieval" / "qpp.json"
TAUS = (0.0, 0.005, 0.01, 0.02, 0.05)
CORROBORATION_DEPTH = 10
HUB_SHARE = 0.01

Runs = tuple[np.ndarray, np.ndarray, dict[str, Any]]


@cache
def runs_of(key: str) -> Runs | None:
    path = CACHE / "qpp" / f"{key}.npz"
    if not path.is_file():
        return None
    z = np.load(path)
    return z["ids"], z["scores"], json.loads(bytes(z["meta"]).decode())


# --- the criteria: one number per q, from ids and scores only -----------------------------


def unique_top1(ids: np.ndarray) -> np.ndarray:
    """Per query: its top-1 is the top-1 of no other query (False without hits)."""
    top = ids[:, 0]
    hit = top >= 0
    counts = np.bincount(top[hit], minlength=int(top.max()) + 1 if hit.any() else 1)
    out = np.zeros(len(top), dtype=bool)
    out[hit] = counts[top[hit]] == 1
    return out


def spread(ids: np.ndarray, _scores: np.ndarray, _bm25_ids: np.ndarray, _n: int) -> float:
    return float(unique_top1(ids).mean())


def corroborated_spread(ids: np.ndarray, _scores: np.ndarray, bm25_ids: np.ndarray,
                        _n: int) -> float:
    top = ids[:, :1]
    backed = (bm25_ids[:, :CORROBORATION_DEPTH] == top).any(axis=1) & (ids[:, 0] >= 0)
    return float((unique_top1(ids) & backed).mean())


def score_spread(ids: np.ndarray, scores: np.ndarray, _bm25_ids: np.ndarray,
                 _n: int) -> float:
    cvs = []
    for row_ids, row in zip(ids, scores, strict=True):
        s = row[row_ids >= 0].astype(np.float64)
        if len(s) >= 2 and s.mean() > 0:
            cvs.append(s.std() / s.mean())
    return float(np.mean(cvs)) if cvs else 0.0


def hubness(ids: np.ndarray, _scores: np.ndarray, _bm25_ids: np.ndarray, n: int) -> float:
    top = ids[:, :10]
    top = top[top >= 0]
    if not len(top):
        return 0.0
    counts = np.sort(np.bincount(top))[::-1]
    hubs = max(1, math.ceil(HUB_SHARE * n))
    return float(counts[:hubs].sum() / len(top))


Criterion = Callable[[np.ndarray, np.ndarray, np.ndarray, int], float]
CRITERIA: dict[str, tuple[Criterion, bool]] = {  # name -> (function, higher is better)
    "Q1 spread": (spread, True),
    "Q2 corroborated spread": (corroborated_spread, True),
    "Q3 score spread": (score_spread, True),
    "Q4 hubness": (hubness, False),
}
RELATIVE = {"Q3 score spread", "Q4 hubness"}


@cache
def curve(key: str, name: str) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    data = runs_of(key)
    if data is None:
        return None
    ids, scores, meta = data
    fn, _ = CRITERIA[name]
    bm25 = ids[meta["grid"].index(1.0)]
    values = tuple(fn(ids[g], scores[g], bm25, meta["documents"])
                   for g in range(len(meta["grid"])))
    return tuple(meta["grid"]), values


def choose(key: str, name: str, tau: float) -> float | None:
    """The largest q whose criterion is within ``tau`` of the best (None: no runs)."""
    c = curve(key, name)
    if c is None:
        return None
    grid, values = c
    higher = CRITERIA[name][1]
    best = max(values) if higher else min(values)
    slack = tau * abs(best) if name in RELATIVE else tau
    ok = [q for q, v in zip(grid, values, strict=True)
          if (v >= best - slack if higher else v <= best + slack)]
    return max(ok)


# --- F4 and LOLO ---------------------------------------------------------------------------


def decide(p: pc.Params, r: pc.Row, name: str | None, tau: float) -> float:
    """F1's q with the sample; where F1 departs from BM25, the criterion's choice instead."""
    q, _ = pc.decide(p, r, True)
    if name is None or q == 1.0:
        return q
    chosen = choose(r["key"], name, tau)
    return q if chosen is None else chosen


def mean_recovery(p: pc.Params, rows: list[pc.Row], name: str | None, tau: float) -> float:
    per_language = []
    for lang in sorted({r["language"] for r in rows if r["main"]}):
        mains = [r for r in rows if r["language"] == lang and r["main"]]
        per_language.append(np.mean([recovery(r, decide(p, r, name, tau)) or 0.0
                                     for r in mains]))
    return float(np.mean(per_language))


def fit_tau(p: pc.Params, train: list[pc.Row], name: str) -> float:
    best = (-math.inf, 0.0)
    for tau in TAUS:
        rec = mean_recovery(p, train, name, tau)
        if rec > best[0] + 1e-12 or abs(rec - best[0]) <= 1e-12:
            best = (rec, tau) if rec > best[0] + 1e-12 else (best[0], max(best[1], tau))
    return best[1]


def lolo(rows: list[pc.Row], name: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"per_language": {}, "tau": {}, "worst": None}
    worst: tuple[float, str, float] = (math.inf, "", 1.0)
    for lang in pc.LANGUAGES:
        held = [r for r in rows if r["language"] == lang]
        train = [r for r in rows if r["language"] != lang]
        p = pc.fit(train)
        assert p is not None
        tau = fit_tau(p, train, name) if name else 0.0
        out["tau"][lang] = tau
        mains = [r for r in held if r["main"]]
        out["per_language"][lang] = {
            r["key"]: {"q": decide(p, r, name, tau),
                       "recovery": recovery(r, decide(p, r, name, tau))} for r in mains}
        out["per_language"][lang]["mean"] = float(np.mean(
            [recovery(r, decide(p, r, name, tau)) or 0.0 for r in mains]))
        for r in held:
            q = decide(p, r, name, tau)
            delta = ndcg_at(r, q) - r["bm25"]
            if delta < worst[0]:
                worst = (delta, r["key"], q)
    out["mean"] = float(np.mean([v["mean"] for v in out["per_language"].values()]))
    out["worst"] = {"delta": worst[0], "task": worst[1], "q": worst[2]}
    return out


def study() -> dict[str, Any]:
    results = json.loads(RESULTS.read_text())
    rows = [r for r in pc.rows_of(results) if pc.is_training(r)]
    report: dict[str, Any] = {"criteria": {}, "curves": {}}
    report["F1"] = lolo(rows, None)
    for name in CRITERIA:
        report["criteria"][name] = lolo(rows, name)
        report["curves"][name] = {r["key"]: curve(r["key"], name) for r in rows
                                  if runs_of(r["key"]) is not None}
    return report


def main() -> None:
    report = study()
    OUT.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"F1 (constants): LOLO {report['F1']['mean']:.3f}")
    for name, rep in report["criteria"].items():
        w = rep["worst"]
        per = " ".join(f"{lang}:{v['mean']:.2f}" for lang, v in rep["per_language"].items())
        print(f"{name}: LOLO {rep['mean']:.3f}, worst {w['delta']:+.4f} ({w['task']} "
              f"q={w['q']:g}); taus {sorted(set(rep['tau'].values()))}\n   {per}")


if __name__ == "__main__":
    main()
