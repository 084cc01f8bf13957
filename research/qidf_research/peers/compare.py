"""Choosing on the tuning split, reporting on the held-out split, and the paired bootstrap.

Every family's best setting is the one with the highest mean NDCG@10 on the tuning queries;
its number in the tables is its mean on the held-out queries, which played no part in the
choice. The best peer is chosen the same way (highest tuning mean among the engine's
families and the paper's baselines; the best built-in among the engine's families alone),
so the comparison of q-log with it is fair: both were
picked on one half and meet on the other. Deltas come with a paired bootstrap over the
held-out queries (95% percentile interval and two-sided p).
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.evaluation.bootstrap import paired_interval
from qidf_research.peers.families import best
from qidf_research.peers.measure import CorpusBench
from qidf_research.peers.settings import Setting

FAMILIES = {
    "bm25_default": "BM25 (engine default)",
    "bm25": "BM25, k1 and b tuned",
    "lm_dirichlet": "LMDirichlet (mu)",
    "lm_jelinek_mercer": "LMJelinekMercer (lambda)",
    "dfr": "DFR",
    "dph_like": "DFR closest to DPH (L, no normalization)",
    "ib": "IB",
    "dfi": "DFI",
    "idf_gamma": "BM25 with idf^gamma (Painless)",
    "qlog": "q-log, q tuned",
    "shipped": "q-log, shipped default q",
    "joint": "q-log, q, k1 and b tuned",
}
PEERS = ("bm25_default", "bm25", "lm_dirichlet", "lm_jelinek_mercer", "dfr", "dph_like", "ib",
         "dfi", "idf_gamma")
# What a user gets from settings alone, no script: the question the peers answer first.
BUILTIN = tuple(p for p in PEERS if p != "idf_gamma")
COMPARISONS = (
    ("qlog", "best_peer"), ("qlog", "best_builtin"), ("shipped", "best_builtin"),
    ("qlog", "bm25_default"), ("shipped", "best_peer"),
    ("shipped", "bm25_default"), ("joint", "best_peer"), ("joint", "best_builtin"),
    ("joint", "best_single"),
    ("joint", "bm25_default"), ("best_peer", "bm25_default"),
    # Against each family on its own (the per-family wins and losses of the report).
    *((run, peer) for run in ("qlog", "shipped") for peer in PEERS if peer != "bm25_default"),
)


def _mean(values: dict[str, float], qids: tuple[str, ...]) -> float:
    return sum(values.get(q, 0.0) for q in qids) / max(len(qids), 1)


def summarize(bench: CorpusBench, candidates: dict[str, list[Setting]],
              resamples: int) -> dict[str, Any]:
    """Per family: its best setting on tuning, tuning and held-out NDCG@10, what was tried;
    then the held-out comparisons of COMPARISONS."""
    split = bench.split
    families: dict[str, Any] = {}
    held: dict[str, dict[str, float]] = {}
    for name, cands in candidates.items():
        valid = [s for s in cands if bench.mean(s) > float("-inf")]
        if not valid:
            families[name] = {"refused": len(cands), "tried": len(cands)}
            continue
        top = best(bench.mean, valid)
        values = bench.ndcg(top, "heldout")
        assert values is not None
        held[name] = values
        families[name] = {
            "setting": top.key, "kind": top.kind, "params": dict(top.params),
            "tuning": round(bench.mean(top), 6),
            "heldout": round(_mean(values, split.heldout), 6),
            "tried": len(cands), "refused": len(cands) - len(valid),
            "curve": {s.key: round(bench.mean(s), 6) for s in valid},
        }
    peers = [f for f in PEERS if f in held]
    best_peer = max(peers, key=lambda f: (families[f]["tuning"], -PEERS.index(f)))
    best_builtin = max((f for f in peers if f in BUILTIN),
                       key=lambda f: (families[f]["tuning"], -PEERS.index(f)))
    singles = [f for f in families if f != "joint" and f in held]
    best_single = max(singles, key=lambda f: families[f]["tuning"])
    aliases = {"best_peer": best_peer, "best_builtin": best_builtin,
               "best_single": best_single}
    comparisons: dict[str, Any] = {}
    for run, base in COMPARISONS:
        a, b = aliases.get(run, run), aliases.get(base, base)
        if a not in held or b not in held:
            continue
        iv = paired_interval({q: held[a].get(q, 0.0) for q in split.heldout},
                             {q: held[b].get(q, 0.0) for q in split.heldout},
                             resamples=resamples, seed=0)
        comparisons[f"{run}_vs_{base}"] = {
            "run": a, "baseline": b, "delta": round(iv.delta, 6), "low": round(iv.low, 6),
            "high": round(iv.high, 6), "p_value": iv.p_value, "queries": iv.queries}
    joint_ok = ("joint" not in families or "tuning" not in families["joint"]
                or families["joint"]["tuning"] >= max(families[f]["tuning"]
                                                      for f in ("bm25", "qlog")
                                                      if f in held) - 1e-12)
    return {"families": families, "best_peer": best_peer, "best_builtin": best_builtin,
            "best_single": best_single,
            "comparisons": comparisons, "joint_not_below_bm25_or_qlog_on_tuning": joint_ok}
