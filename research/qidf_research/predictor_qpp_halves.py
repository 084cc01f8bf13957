"""V5 (predictor.md, "V5: the spread's test on text searched with code only"): V3's sign
test on the unique-top-1 spread, applied only where F1 reads text searched with code, and
judged on the two halves of the 5,000-query sample (one chooses, the other scores).

Reads the unlabeled runs of ``qpp_runs`` (seeds 0-2 and the 5,000-query sample) and the sweep
curves of results.json. Prints and writes ``benchmarks/retrieval/qpp-halves.json``:

    .venv/bin/python -m qidf_research.predictor_qpp_halves
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import numpy as np

from qidf_ctl.evaluation.recommend import guarded_choice
from qidf_research import content_fitting as pc
from qidf_research.paths import REPO
from qidf_research.qpp_criteria import (
    YARDSTICK,
    ndcg_per_query,
    runs_of,
)
from qidf_research.qpp_rules import (
    RESULTS,
    go_at_scale,
    language_means,
    mean_of,
    measured_row,
    sample_move,
)
from qidf_research.readings import ndcg_at, recovery

OUT = REPO / "benchmarks" / "retrieval" / "qpp-halves.json"
SPLIT_SEED = 3
MIN_GAIN, MAX_LOSS, MAX_LANGUAGE_DROP = 0.02, 0.005, 0.05  # the adoption rule, fixed first


def decide_v5(p: pc.Params, r: pc.Row, seed: int | str = 0,
              subset: list[int] | None = None) -> float:
    """F1, except on text searched with code, where the sample may lower q_q by V3's test
    (``subset``: those queries of the sample only)."""
    return sample_move(p, r, seed, subset, code_documents=False)


def halves(n: int) -> tuple[list[int], list[int]]:
    """One seeded split of a sample's query positions into halves A and B."""
    order = list(range(n))
    random.Random(SPLIT_SEED).shuffle(order)
    return sorted(order[:n // 2]), sorted(order[n // 2:])


def split_tasks(rows: list[pc.Row]) -> Iterator[tuple[pc.Row, list[str], list[int], list[int]]]:
    """Each main task with a 5,000-query sample: (row, its query ids, halves A and B)."""
    for r in rows:
        data = runs_of(r["key"], YARDSTICK)
        if r["main"] and data is not None:
            qids = data[2]["qids"]
            yield (r, qids, *halves(len(qids)))


def split_halves(rows: list[pc.Row], p: pc.Params) -> dict[str, Any]:
    """V5 choosing on one half of the 5,000-query sample and scored on the other, both ways;
    F1 scored on the same halves."""
    tasks: dict[str, Any] = {}
    recs: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for r, qids, a, b in split_tasks(rows):
        f1 = pc.decide(p, r, True)[0]
        task: dict[str, Any] = {"queries": len(qids), "f1_q": f1}
        for name, chooser, scored in (("a_to_b", a, b), ("b_to_a", b, a)):
            row = measured_row(r, YARDSTICK, frozenset(qids[i] for i in chooser))
            v5 = decide_v5(p, r, YARDSTICK, chooser)
            task[name] = {"v5_q": v5, "v5_recovery": recovery(row, v5),
                          "f1_recovery": recovery(row, f1), "bm25": row["bm25"],
                          "oracle": row["oracle"], "v5_delta": ndcg_at(row, v5) - row["bm25"],
                          "scored_queries": len(scored)}
            per = recs.setdefault(name, {"v5": [], "f1": []})
            per["v5"].append((r["language"], recovery(row, v5) or 0.0))
            per["f1"].append((r["language"], recovery(row, f1) or 0.0))
        tasks[r["key"]] = task
    out: dict[str, Any] = {"tasks": tasks, "directions": {}}
    for name, per in recs.items():
        langs = {k: language_means(v) for k, v in per.items()}
        out["directions"][name] = {"v5_per_language": langs["v5"], "f1_per_language":
                                   langs["f1"], "v5": mean_of(langs["v5"]),
                                   "f1": mean_of(langs["f1"])}
    if out["directions"]:
        d = out["directions"].values()
        out["v5_mean"] = float(np.mean([x["v5"] for x in d]))
        out["f1_mean"] = float(np.mean([x["f1"] for x in d]))
        out["worst_delta"] = min(min(t[k]["v5_delta"] for k in ("a_to_b", "b_to_a"))
                                 for t in tasks.values())
        out["worst_language_drop"] = max(
            x["f1_per_language"][lang] - x["v5_per_language"][lang]
            for x in d for lang in x["f1_per_language"])
    return out


def thousand_query_choosers(rows: list[pc.Row], p: pc.Params) -> dict[str, Any]:
    """V5 choosing on seed 1 or 2 (1,000 queries), scored on the 5,000 minus them."""
    out: dict[str, Any] = {}
    for seed in (1, 2):
        v5s, f1s, worst = [], [], 0.0
        for r in rows:
            chooser = runs_of(r["key"], seed)
            if not r["main"] or chooser is None or runs_of(r["key"], YARDSTICK) is None:
                continue
            row = measured_row(r, YARDSTICK, frozenset(chooser[2]["qids"]))
            v5, f1 = decide_v5(p, r, seed), pc.decide(p, r, True)[0]
            v5s.append((r["language"], recovery(row, v5) or 0.0))
            f1s.append((r["language"], recovery(row, f1) or 0.0))
            worst = min(worst, ndcg_at(row, v5) - row["bm25"])
        if v5s:
            out[f"seed{seed}"] = {"v5": mean_of(language_means(v5s)),
                                  "f1": mean_of(language_means(f1s)), "worst_delta": worst}
    return out


def labeled_reference(rows: list[pc.Row], p: pc.Params) -> dict[str, Any]:
    """What a *judged* sample of the same size reaches, scored like the rules (on the other
    half of the 5,000; on the 5,000 minus seed 1 / seed 2; on the benchmark's own queries):
    ``argmax``, q = the NDCG@10 argmax over G on the choosing queries; ``guarded``,
    ``recommend.guarded_choice`` against F1's level (what ``qidf sweep`` recommends). No
    rule that reads only an unlabeled sample knows more about a task than that sample's
    judgements, so these are the levels to read 0.95 against. F1 beside them."""
    recs: dict[str, dict[str, list[tuple[str, float]]]] = {}

    def add(test: str, r: pc.Row, scored: pc.Row, judged: dict[float, np.ndarray]) -> None:
        f1 = pc.decide(p, r, True)[0]
        argmax = max(judged, key=lambda q: (float(judged[q].mean()), q))
        guarded = guarded_choice({q: v.tolist() for q, v in judged.items()}, f1)
        per = recs.setdefault(test, {"argmax": [], "guarded": [], "f1": []})
        for name, q in (("argmax", argmax), ("guarded", guarded), ("f1", f1)):
            per[name].append((r["language"], recovery(scored, q) or 0.0))

    for r, qids, a, b in split_tasks(rows):
        for name, chooser in (("halves a_to_b", a), ("halves b_to_a", b)):
            add(name, r, measured_row(r, YARDSTICK, frozenset(qids[i] for i in chooser)),
                ndcg_per_query(r["key"], YARDSTICK, chooser))
        for seed in (1, 2):
            runs = runs_of(r["key"], seed)
            if runs is None:
                continue
            judged = ndcg_per_query(r["key"], seed, list(range(len(runs[2]["qids"]))))
            add(f"seed{seed} -> 5,000 minus it", r,
                measured_row(r, YARDSTICK, frozenset(runs[2]["qids"])), judged)
            add(f"seed{seed} -> the benchmark's queries", r, r, judged)
    return {test: {k: mean_of(language_means(v)) for k, v in per.items()}
            for test, per in recs.items()}


def adopted(split: dict[str, Any], scale: dict[str, Any]) -> bool:
    """The protocol's adoption rule."""
    return bool(split.get("directions")) and (
        split["v5_mean"] >= split["f1_mean"] + MIN_GAIN
        and split["worst_delta"] >= -MAX_LOSS
        and split["worst_language_drop"] <= MAX_LANGUAGE_DROP
        and all(t["delta"] >= -MAX_LOSS for t in scale.values()))


def study() -> dict[str, Any]:
    rows = [r for r in pc.rows_of(json.loads(RESULTS.read_text())) if pc.is_training(r)]
    p = pc.fit(rows)
    assert p is not None
    split = split_halves(rows, p)
    scale = go_at_scale(rows, p, decide_v5)
    return {"split_halves": split, "thousand_queries": thousand_query_choosers(rows, p),
            "go_at_scale": scale, "adopted": adopted(split, scale),
            "labeled_reference": labeled_reference(rows, p)}


def main() -> None:
    report = study()
    OUT.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    split = report["split_halves"]
    for name, d in split["directions"].items():
        print(f"{name}: V5 {d['v5']:.3f} vs F1 {d['f1']:.3f}")
    if split["directions"]:
        print(f"mean of both: V5 {split['v5_mean']:.3f} vs F1 {split['f1_mean']:.3f}; worst "
              f"change vs BM25 {split['worst_delta']:+.4f}; worst language drop "
              f"{split['worst_language_drop']:+.3f}")
    for key, t in split["tasks"].items():
        print(f"  {key}: F1 q {t['f1_q']:g}; " + "; ".join(
            f"{n} q {t[n]['v5_q']:g} rec {t[n]['v5_recovery'] or 0:.2f} "
            f"(F1 {t[n]['f1_recovery'] or 0:.2f})" for n in ("a_to_b", "b_to_a")))
    for seed, t in report["thousand_queries"].items():
        print(f"choosing on {seed} (1,000): V5 {t['v5']:.3f} vs F1 {t['f1']:.3f}, worst "
              f"{t['worst_delta']:+.4f}")
    for k, t in report["go_at_scale"].items():
        print(f"  Go at scale {k}: q {t['q']:g} delta {t['delta']:+.4f}")
    print(f"adopted: {report['adopted']}")
    for test, t in report["labeled_reference"].items():
        print(f"judged sample, {test}: argmax {t['argmax']:.3f}, guarded {t['guarded']:.3f} "
              f"(F1 {t['f1']:.3f})")


if __name__ == "__main__":
    main()
