"""The measured-q study read (predictor.md, "Measured q"): the simulator's validation on the
benchmark's curves, the adoption test on the 5,000-query yardstick, and the judged-sample
guards, from the per-task files of ``knownitem.study``. Writes
benchmarks/retrieval/measured.json and prints its tables.

    .venv/bin/python -m qidf_research.knownitem.report
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from qidf_ctl.evaluation.recommend import bootstrap_choice, guarded_choice
from qidf_research.knownitem.matrix import FOLDER
from qidf_research.knownitem.simulate import (
    ANCHOR_ALL,
    ANCHOR_RARE,
    ANCHOR_RARE_ALL,
    GOLD,
    GRID,
    argmax,
)
from qidf_research.paths import BENCHMARKS
from qidf_research.readings import recovery_of, summarize

OUT = BENCHMARKS / "retrieval" / "measured.json"
STUDY = FOLDER / "study"  # knownitem.study writes here
F1 = {"code2doc": 0.7, "doc2code": 0.6}  # qidf-content with a code-query sample, every task
CANDIDATES = (ANCHOR_ALL, ANCHOR_RARE, ANCHOR_RARE_ALL)
Task = dict[str, Any]


def load() -> list[Task]:
    """Every studied task, with the benchmark's engine curve (seed 0) from results.json."""
    results = json.loads((BENCHMARKS / "retrieval" / "results.json").read_text())["tasks"]
    tasks = []
    for path in sorted(STUDY.glob("*.json")):
        data = json.loads(path.read_text())
        z = np.load(path.with_suffix(".npz"))
        data["pq"] = {k: z[k] for k in z.files}
        data["direction"] = data["key"].rsplit("-", 1)[1]
        points = {p["q"]: p["ndcg10"] for p in results[data["key"]]["sweep"]["points"]}
        data["s0"] = {q: points[q] for q in GRID}
        tasks.append(data)
    return tasks


def q_sim(t: Task, method: str, seed: int) -> float | None:
    c = t["sims"].get(f"{method}/s{seed}")
    return None if c is None else argmax({float(q): v for q, v in c.items()})


def yardstick(t: Task, without: int | None, on: str = "s3") -> dict[float, float]:
    """NDCG@10 per q on the 5,000 queries less the choosing sample's (``on`` "s0": the
    benchmark's own 1,000 queries, engine-measured)."""
    if on == "s0":
        return t["s0"]
    pq = t["pq"]["s3"]
    ids = t["ids"]["s3"]
    drop = set(t["ids"][f"s{without}"]) if without is not None else set()
    keep = np.array([i not in drop for i in ids])
    return {q: float(pq[g][keep].mean()) for g, q in enumerate(GRID)}


def point(curve: dict[float, float], q: float) -> tuple[float, float, float]:
    return curve[1.0], max(curve.values()), curve[q]


def rule(method: str | None, scope: str) -> Callable[[Task, int], float]:
    """F1 (method None), R-all or R-c2d of a method: the q chosen on sample ``seed``."""
    def choose(t: Task, seed: int) -> float:
        level = F1[t["direction"]]
        if method is None or (scope == "c2d" and t["direction"] == "doc2code"):
            return level
        q = q_sim(t, method, seed)
        return level if q is None else q
    return choose


def adoption(tasks: list[Task], on: str = "s3") -> dict[str, Any]:
    out: dict[str, Any] = {}
    tasks = [t for t in tasks if on == "s0" or "s3" in t["pq"]]
    if not tasks:
        return out
    rules = {"F1": rule(None, "all")}
    for m in CANDIDATES:
        for scope in ("all", "c2d"):
            rules[f"R-{scope}({m})"] = rule(m, scope)
    for name, choose in rules.items():
        per_seed: dict[int, dict[str, Any]] = {}
        for seed in (1, 2):
            pts = {t["key"]: point(yardstick(t, seed, on), choose(t, seed)) for t in tasks}
            per_seed[seed] = {"summary": summarize(pts.values()),
                              "tasks": {k: {"q": choose(t, seed), "recovery": recovery_of(*pts[k]),
                                            "delta": pts[k][2] - pts[k][0]}
                                        for k, t in zip(pts, tasks, strict=True)},
                              "worst_delta": min(p[2] - p[0] for p in pts.values())}
        s1, s2 = per_seed[1]["summary"], per_seed[2]["summary"]
        out[name] = {"seeds": per_seed, **{k: float(np.mean([s1[k], s2[k]]))
                                           for k in ("mean", "gain_weighted", "worst")},
                     "worst_delta": min(per_seed[1]["worst_delta"], per_seed[2]["worst_delta"])}
    return out


def validation(tasks: list[Task]) -> dict[str, Any]:
    """q_sim against the oracle q of the benchmark's own 1,000 queries (seed 0)."""
    out: dict[str, Any] = {}
    for m in (GOLD, *CANDIDATES):
        rows = {}
        for t in tasks:
            curve = t["s0"]
            oracle_q = argmax(curve)
            row: dict[str, Any] = {"oracle_q": oracle_q}
            for seed in (1,):
                q = q_sim(t, m, seed)
                if q is not None:
                    row[f"q_sim_s{seed}"] = q
                    row[f"recovery_s{seed}"] = recovery_of(*point(curve, q))
            rows[t["key"]] = row
        pairs = [(r["oracle_q"], r[k]) for r in rows.values() for k in ("q_sim_s1",) if k in r]
        xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
        rho = spearmanr(xs, ys).statistic if len(pairs) > 2 else None
        rec = [r["recovery_s1"] for r in rows.values() if r.get("recovery_s1") is not None]
        out[m] = {"tasks": rows, "spearman_s1": None if rho is None else float(rho),
                  "mean_recovery_s1": float(np.mean(rec)) if rec else None}
    return out


# --- judged queries: the guards ------------------------------------------------------------


def one_se(pq: np.ndarray, reference: float) -> float:
    """G1: of the q whose mean is within one paired standard error of the best mean, the one
    nearest the reference (ties: the larger q)."""
    means = pq.mean(axis=1)
    b = int(max(range(len(GRID)), key=lambda g: (means[g], GRID[g])))
    se = [float((pq[b] - pq[g]).std(ddof=1) / np.sqrt(pq.shape[1])) for g in range(len(GRID))]
    ok = [GRID[g] for g in range(len(GRID)) if means[g] >= means[b] - se[g]]
    return min(ok, key=lambda q: (abs(q - reference), -q))


def bootstrap(pq: np.ndarray, reference: float) -> float:
    """The product's guard (``recommend.bootstrap_choice``)."""
    return bootstrap_choice({q: pq[g].tolist() for g, q in enumerate(GRID)}, reference)[0]


def sign(pq: np.ndarray, reference: float) -> float:
    return guarded_choice({q: pq[g].tolist() for g, q in enumerate(GRID)}, reference)


def plain(pq: np.ndarray, _reference: float) -> float:
    return argmax({q: float(pq[g].mean()) for g, q in enumerate(GRID)})


GUARDS = {"argmax": plain, "G0 sign test": sign, "G1 one standard error": one_se,
          "G2 bootstrap": bootstrap}


def guards(tasks: list[Task], reference: Callable[[Task, int], float]) -> dict[str, Any]:
    """Each guard choosing on the judged seed 1 / seed 2 samples, scored on the benchmark's
    own queries (seed 0); the split halves of the 5,000 where that sample was measured."""
    out: dict[str, Any] = {}
    for name, guard in GUARDS.items():
        res = {}
        for seed in (1, 2):
            pts = []
            for t in tasks:
                q = guard(t["pq"][f"s{seed}"], reference(t, seed))
                pts.append(point(yardstick(t, seed, "s0"), q))
            res[f"s{seed}"] = summarize(pts)
        halves = []
        for t in (t for t in tasks if "s3" in t["pq"]):
            pq = t["pq"]["s3"]
            order = np.random.default_rng(3).permutation(pq.shape[1])
            a, b = order[:len(order) // 2], order[len(order) // 2:]
            for choose_on, score_on in ((a, b), (b, a)):
                q = guard(pq[:, choose_on], reference(t, 1))
                curve = {g_q: float(pq[g][score_on].mean()) for g, g_q in enumerate(GRID)}
                halves.append(point(curve, q))
        if halves:
            res["halves"] = summarize(halves)
        out[name] = res
    return out


def main() -> int:
    tasks = load()
    result: dict[str, Any] = {"tasks": [t["key"] for t in tasks], "validation": validation(tasks),
              "adoption": adoption(tasks, "s0"), "adoption_on_yardstick": adoption(tasks)}
    best = max((k for k in result["adoption"] if k != "F1" and ANCHOR_ALL not in k),
               key=lambda k: result["adoption"][k]["mean"])
    result["guards"] = {"reference F1": guards(tasks, rule(None, "all"))}
    m, scope = best.split("(")[1].rstrip(")"), best.split("-")[1].split("(")[0]
    result["guards"][f"reference {best}"] = guards(tasks, rule(m, scope))
    OUT.write_text(json.dumps(result, indent=1, default=float))
    print(f"{len(tasks)} tasks")
    for m, v in result["validation"].items():
        print(f"validation {m}: spearman(q_sim seed 1, oracle) {v['spearman_s1']}, "
              f"recovery {v['mean_recovery_s1']}")
    for name, v in result["adoption_on_yardstick"].items():
        print(f"adoption (5,000-query yardstick) {name}: mean {v['mean']:.3f} gain-weighted "
              f"{v['gain_weighted']:.3f} worst {v['worst']:.3f} "
              f"worst delta {v['worst_delta']:+.4f}")
    for name, v in result["adoption"].items():
        print(f"adoption {name}: mean {v['mean']:.3f} gain-weighted {v['gain_weighted']:.3f} "
              f"worst {v['worst']:.3f} worst delta {v['worst_delta']:+.4f}")
    for ref, gs in result["guards"].items():
        for name, v in gs.items():
            print(f"guard ({ref}) {name}: " + "; ".join(
                f"{k} {s['mean']:.3f}/{s['gain_weighted']:.3f}/{s['worst']:.3f}"
                for k, s in v.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
