"""The large-prose study (predictor.md, "Prose at production size"): the content rule and its
variants fitted on the training tasks, left one language out, then read on held-out corpora.

Families (the written protocol's):
  F1 content   q_c if the document sample is clearly code; on a clearly-text field, q_q if
               the query sample is clearly code; q = 1 otherwise (and without queries)
  F2           F1 + a gate on one size-free corpus statistic for text fields without queries
  F3           F1 with q_q in two levels split on one analysed query statistic
Every number is read off the engine's sweep curves (worse grid neighbour), like
predictor_fit; the rule shipped is then measured end to end by the benchmark.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from qidf_ctl.predictors import gate
from qidf_research.readings import (
    LANGUAGES,
    MAX_LOSS,
    corpus_rows,
    is_prose,
    ndcg_at,
    recovery,
    training_key,
)

BAND = 0.10  # relative half-width of the ambiguous band around a threshold; the gate margin
PARSIMONY = 0.02  # LOLO a richer family must add to replace the simpler one
LEVELS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DOC_STATS = ("src_identifier_words", "hapax_joint_share", "hapax_long_share",
             "hapax_mean_length", "hapax_digit_share", "hapax_glued_share")
QUERY_STATS = ("query_tokens", "query_hapax_share")
MIXED_PREFIX = "mixed-"

Row = dict[str, Any]
Params = dict[str, Any]


# --- the corpora, by what their documents and queries are ---------------------------------


def kind(key: str, analyzer: str) -> str:
    """code (doc2code: code documents, text queries), docstring (code2doc: text documents,
    code queries), identifier (an identifier-splitting analyzer), prose, mixed."""
    if analyzer != "standard":
        return "identifier"
    if key.startswith(MIXED_PREFIX):
        return "mixed"
    if is_prose(key):
        return "prose"
    return "code" if "-doc2code" in key else "docstring"


def rows_of(results: dict[str, Any]) -> list[Row]:
    rows = corpus_rows(results, sorted(results["tasks"]))
    for r in rows:
        t = results["tasks"][r["key"]]
        r["kind"] = kind(r["key"], t.get("analyzer", "standard"))
        r["main"] = r["key"].split("-", 1)[1] in ("code2doc", "doc2code")
        r["language"] = "go" if r["key"].startswith("go-") else r["key"].split("-")[0]
    return [r for r in rows if "src_code_like_share" in r["stats"]]


def is_training(r: Row) -> bool:
    """The tasks measured before this study: every language's, and the six small controls
    (the Debian corpora and the mixed index are held out)."""
    return training_key(r["key"])


# --- fitting ------------------------------------------------------------------------------


def gap_threshold(low_side: Sequence[float], high_side: Sequence[float]) -> float | None:
    """The geometric middle of the gap between the largest low-side value and the smallest
    high-side value; None when they overlap (no threshold separates them)."""
    lo, hi = max(low_side), min(high_side)
    if lo >= hi:
        return None
    return math.sqrt(max(lo, 1e-6) * hi)


def best_level(rec_rows: list[Row], safe_rows: list[Row]) -> float:
    """The grid level with the best mean recovery on ``rec_rows`` that loses at most MAX_LOSS
    on every one of ``safe_rows``; ties to the higher q; 1 when none is safe."""
    best = (-math.inf, 1.0)
    for q in LEVELS:
        if any(r["bm25"] - ndcg_at(r, q) > MAX_LOSS for r in safe_rows):
            continue
        rec = float(np.mean([recovery(r, q) or 0.0 for r in rec_rows])) if rec_rows else 0.0
        if rec > best[0] + 1e-12 or (abs(rec - best[0]) <= 1e-12 and q > best[1]):
            best = (rec, q)
    return best[1]


def side(x: float, t: float) -> str:
    """Which side of threshold ``t`` a share falls on: code, text or ambiguous."""
    if x >= t * (1 + BAND):
        return "code"
    if x <= t * (1 - BAND):
        return "text"
    return "ambiguous"


def fit(train: list[Row], doc_stat: str | None = None, query_stat: str | None = None
        ) -> Params | None:
    """F1 (both stats None), F2 (``doc_stat``) or F3 (``query_stat``) on ``train``."""
    std = [r for r in train if r["kind"] != "identifier"]
    c = "src_code_like_share"
    s = "q_code_like_share"
    t_c = gap_threshold([r["stats"][c] for r in std if r["kind"] in ("docstring", "prose")],
                        [r["stats"][c] for r in std if r["kind"] == "code"])
    t_q = gap_threshold([r["stats"][s] for r in std if r["kind"] in ("code", "prose")],
                        [r["stats"][s] for r in std if r["kind"] == "docstring"])
    if t_c is None or t_q is None:
        return None
    p: Params = {"t_c": t_c, "t_q": t_q}
    code = [r for r in std if side(r["stats"][c], t_c) == "code"]
    p["q_c"] = best_level([r for r in code if r["main"]], code)
    text = [r for r in std if side(r["stats"][c], t_c) == "text"]
    asked = [r for r in text if side(r["stats"][s], t_q) == "code"]
    p["q_q"] = best_level([r for r in asked if r["main"]], asked)
    if query_stat is not None:
        p |= fit_split(asked, query_stat)
    if doc_stat is not None:
        p |= fit_gate(text, doc_stat)
    return p


def fit_split(asked: list[Row], stat: str) -> Params:
    """F3: q_q in two levels, ``lo`` where ``stat`` >= theta and ``hi`` below (or the reverse
    order, ``direction`` -1); the split with the best mean recovery under the safety rule."""
    values = sorted({r["stats"][stat] for r in asked})
    best: tuple[float, float, Params] = (-math.inf, -math.inf, {})
    mains = [r for r in asked if r["main"]]
    for theta in [(a + b) / 2 for a, b in itertools.pairwise(values)]:
        for direction in (1, -1):
            up = [r for r in asked if direction * (r["stats"][stat] - theta) >= 0]
            down = [r for r in asked if r not in up]
            q_up = best_level([r for r in up if r["main"]], up)
            q_down = best_level([r for r in down if r["main"]], down)
            qs = {id(r): q_up if r in up else q_down for r in asked}
            rec = float(np.mean([recovery(r, qs[id(r)]) or 0.0 for r in mains])) \
                if mains else 0.0
            caution = float(np.mean(list(qs.values())))
            if (rec, caution) > best[:2]:
                best = (rec, caution, {"split": stat, "theta": theta, "direction": direction,
                                       "q_up": q_up, "q_down": q_down})
    return best[2]


def fit_gate(text: list[Row], stat: str) -> Params:
    """F2: on text fields without queries, q_d when ``stat`` >= g (10% margin for the safety
    corpora); docstring main tasks for recovery, every text corpus for safety. The gate must
    lie above every prose control with the margin (the amendment in predictor.md): a gate
    that prose crosses is a floor under every text field, not evidence of docstrings."""
    mains = [r for r in text if r["kind"] == "docstring" and r["main"]]
    prose = [r["stats"][stat] * (1 + BAND) for r in text if r["kind"] == "prose"]
    floor = max(prose) if prose else -math.inf
    xs = sorted({r["stats"][stat] * m for r in text for m in (1 - BAND, 1.0, 1 + BAND)})
    gates = [g for g in [(a + b) / 2 for a, b in itertools.pairwise(xs)] + [xs[-1] * 2]
             if g > floor]
    scored = []
    for g in gates:
        above_rec = [r for r in mains if r["stats"][stat] >= g]
        above_safe = [r for r in text if r["stats"][stat] * (1 + BAND) >= g]
        q_d = best_level(above_rec, above_safe) if above_rec else 1.0
        rec = sum(recovery(r, q_d) or 0.0 for r in above_rec) / len(mains) if mains else 0.0
        scored.append((rec, q_d, g))
    top = max(rec for rec, _, _ in scored)
    tied = [(q, g) for rec, q, g in scored if rec >= top - 1e-9]
    q_top = max(q for q, _ in tied)
    gs = sorted(g for q, g in tied if q == q_top)
    mid = math.sqrt(gs[0] * gs[-1]) if gs[0] > 0 else gs[-1]
    g = min(gs, key=lambda x: abs(x - mid))
    return {"gate_stat": stat, "gate": g, "q_d": q_top}


# --- the rule ------------------------------------------------------------------------------


def decide(p: Params, r: Row, with_queries: bool) -> tuple[float, bool]:
    """(q, ambiguous) of a fitted rule on one corpus."""
    st = r["stats"]
    if r["kind"] == "identifier":
        return 1.0, False
    doc_side = side(st["src_code_like_share"], p["t_c"])
    if doc_side == "code":
        return p["q_c"], False
    if doc_side == "ambiguous":
        return 1.0, True
    if with_queries:
        q_side = side(st["q_code_like_share"], p["t_q"])
        if q_side != "code":
            return 1.0, q_side == "ambiguous"
        if "split" in p:
            up = p["direction"] * (st[p["split"]] - p["theta"]) >= 0
            return (p["q_up"] if up else p["q_down"]), False
        return p["q_q"], False
    if "gate_stat" in p and st[p["gate_stat"]] >= p["gate"]:
        return p["q_d"], False
    return 1.0, True


def gate_before(r: Row) -> float:
    """qidf-gate as shipped (F0), from the benchmark's own exact statistics."""
    if r["kind"] == "identifier":
        return gate.GATE_Q_SAFE
    return gate.q_gate(r["stats"]["h_types_df1"], r["stats"]["docs"])


def reading(r: Row, q: float) -> dict[str, Any]:
    return {"q": q, "ndcg10": ndcg_at(r, q), "delta_vs_bm25": ndcg_at(r, q) - r["bm25"],
            "recovery": recovery(r, q)}


# --- leave one language out ----------------------------------------------------------------


def language_recovery(p: Params, rows: list[Row], language: str, with_queries: bool) -> float:
    """Mean recovery of ``language``'s main tasks under the rule ``p``."""
    return float(np.mean([recovery(r, decide(p, r, with_queries)[0]) or 0.0 for r in rows
                          if r["language"] == language and r["main"]]))


def lolo(rows: list[Row], fitter: Callable[[list[Row]], Params | None]) -> dict[str, Any]:
    """Refit without each language (prose always in); recovery of its main tasks with and
    without queries, and the worst change against BM25 on any of its corpora."""
    out: dict[str, Any] = {"folds": {}}
    for mode in ("with_queries", "without_queries"):
        out[mode] = {"per_language": {}, "worst_delta": math.inf}
    for lang in LANGUAGES:
        held = [r for r in rows if r["language"] == lang]
        if not held:
            continue
        p = fitter([r for r in rows if r["language"] != lang])
        out["folds"][lang] = p
        for mode, wq in (("with_queries", True), ("without_queries", False)):
            if p is None:
                out[mode]["per_language"][lang] = None
                continue
            out[mode]["per_language"][lang] = language_recovery(p, held, lang, wq)
            worst = min(ndcg_at(r, decide(p, r, wq)[0]) - r["bm25"] for r in held)
            out[mode]["worst_delta"] = min(out[mode]["worst_delta"], worst)
    for mode in ("with_queries", "without_queries"):
        vals = [v for v in out[mode]["per_language"].values() if v is not None]
        out[mode]["mean"] = float(np.mean(vals)) if len(vals) == len(out["folds"]) else None
    return out


def constant_ceiling(rows: list[Row]) -> dict[str, Any]:
    """The best in-sample LOLO-style mean any pair of constant levels (q_c for code
    documents, q_q for text searched with code) reaches with the query sample, thresholds as
    fitted on all languages: an upper bound on what refitting F1's levels can recover, since
    each fold's fit picks one of these pairs."""
    train = [r for r in rows if is_training(r)]
    p = fit(train)
    if p is None:
        return {}
    best: dict[str, Any] = {"mean": -math.inf}
    for q_c, q_q in itertools.product(LEVELS, LEVELS):
        trial = p | {"q_c": q_c, "q_q": q_q}
        per = [language_recovery(trial, train, lang, True) for lang in LANGUAGES]
        mean = float(np.mean(per))
        if mean > best["mean"]:
            best = {"mean": mean, "q_c": q_c, "q_q": q_q,
                    "per_language": dict(zip(LANGUAGES, per, strict=True))}
    return best


def family_report(rows: list[Row], doc_stat: str | None = None,
                  query_stat: str | None = None) -> dict[str, Any]:
    train = [r for r in rows if is_training(r)]
    p = fit(train, doc_stat, query_stat)
    report = {"doc_stat": doc_stat, "query_stat": query_stat, "params": p,
              "lolo": lolo(train, lambda t: fit(t, doc_stat, query_stat))}
    if p is not None:
        report["worst_delta_all"] = {
            mode: min(ndcg_at(r, decide(p, r, wq)[0]) - r["bm25"] for r in train)
            for mode, wq in (("with_queries", True), ("without_queries", False))}
    return report


def admissible(rep: dict[str, Any]) -> bool:
    """The protocol's rule 1: no fold and no all-language fit loses more than MAX_LOSS."""
    if rep["params"] is None:
        return False
    lo = rep["lolo"]
    return all(lo[m]["mean"] is not None and lo[m]["worst_delta"] >= -MAX_LOSS
               and rep["worst_delta_all"][m] >= -MAX_LOSS
               for m in ("with_queries", "without_queries"))


def _choose(f1: dict[str, Any], f2: dict[str, Any], f3: dict[str, Any]) -> dict[str, Any]:
    """The protocol's rules 1-2: a richer family replaces F1's part only if admissible and
    at least PARSIMONY better there."""
    chosen: dict[str, Any] = {"doc_stat": None, "query_stat": None}
    if not admissible(f1):
        return chosen
    base = f1["lolo"]
    for s, rep in f2.items():
        gain = (rep["lolo"]["without_queries"]["mean"] or 0) - base["without_queries"]["mean"]
        if admissible(rep) and gain >= PARSIMONY and gain > chosen.get("doc_gain", 0):
            chosen |= {"doc_stat": s, "doc_gain": gain}
    for s, rep in f3.items():
        gain = (rep["lolo"]["with_queries"]["mean"] or 0) - base["with_queries"]["mean"]
        if admissible(rep) and gain >= PARSIMONY and gain > chosen.get("query_gain", 0):
            chosen |= {"query_stat": s, "query_gain": gain}
    return chosen


def held_out_failures(p: Params, rows: list[Row]) -> list[dict[str, Any]]:
    """Rule 4's test read off the curves: every held-out corpus more than MAX_LOSS below BM25
    under ``p``, with what decided its q."""
    out = []
    for r in rows:
        if is_training(r):
            continue
        for mode, wq in (("with_queries", True), ("without_queries", False)):
            q, _ = decide(p, r, wq)
            delta = ndcg_at(r, q) - r["bm25"]
            if delta < -MAX_LOSS:
                gate_fired = (not wq and "gate_stat" in p and q == p["q_d"]
                              and side(r["stats"]["src_code_like_share"], p["t_c"]) == "text")
                out.append({"corpus": r["key"], "mode": mode, "q": q, "delta_vs_bm25": delta,
                            "by": "docstring gate" if gate_fired else "bounds"})
    return out


def study(results: dict[str, Any]) -> dict[str, Any]:
    """Every family on the training tasks, the protocol's choice, the held-out test of that
    choice (rule 4) and the rule after rule 5, each read on every corpus (held-out included),
    beside the rule shipped before."""
    rows = rows_of(results)
    f1 = family_report(rows)
    f2 = {s: family_report(rows, doc_stat=s) for s in DOC_STATS}
    f3 = {s: family_report(rows, query_stat=s) for s in QUERY_STATS}
    chosen = _choose(f1, f2, f3)
    train = [r for r in rows if is_training(r)]
    protocol_params = fit(train, chosen["doc_stat"], chosen["query_stat"])
    failures = held_out_failures(protocol_params, rows) if protocol_params else []
    final = dict(chosen)
    if any(f["by"] == "docstring gate" for f in failures):  # rule 5: the gate is dropped
        final["doc_stat"] = None
    params = fit(train, final["doc_stat"], final["query_stat"])
    per_corpus = []
    for r in rows:
        entry: dict[str, Any] = {"corpus": r["key"], "kind": r["kind"],
                                 "training": is_training(r), "documents": r["stats"]["docs"],
                                 "bm25": r["bm25"], "oracle": r["oracle"],
                                 "oracle_q": r["oracle_q"],
                                 "code_like_documents": r["stats"]["src_code_like_share"],
                                 "code_like_queries": r["stats"].get("q_code_like_share"),
                                 "before": reading(r, gate_before(r))}
        for name, p in (("protocol", protocol_params), ("final", params)):
            if p is None:
                continue
            for mode, wq in (("with_queries", True), ("without_queries", False)):
                q, amb = decide(p, r, wq)
                entry[f"{name}_{mode}"] = {**reading(r, q), "ambiguous": amb}
        per_corpus.append(entry)
    return {"f1": f1, "f2": f2, "f3": f3, "chosen": chosen, "ceiling": constant_ceiling(rows),
            "protocol_params": protocol_params, "held_out_failures": failures,
            "final_choice": final, "params": params, "per_corpus": per_corpus}
