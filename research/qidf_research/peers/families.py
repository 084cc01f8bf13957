"""How each family's settings are searched on the tuning queries: coarse grids, then finer.

Each search takes ``evaluate`` (a setting -> its mean NDCG@10 on the tuning split, cached,
so a setting two searches share is measured once) and returns its candidates, the settings
the family's best is chosen from. Grids are coarse-then-fine: a line search over each
parameter (extended past an edge when the best lies there, then refined between the best
and its neighbours), coordinate by coordinate, then a local step around the best pair.

``full`` runs the whole DFR and IB cross products (every basic model x after-effect x
normalization the engine accepts, every distribution x lambda x normalization) before the
parameter of the best normalization is tuned; the pruned plan measures the models and
after-effects at normalization H2, the other normalizations only for the best pair, and
the parameter-free "L, no normalization" variants always (the DFR variants closest to DPH,
which Lucene does not ship). OpenSearch 2.19.6 refuses the basic models be, d, p and the
after-effect "no" ("isn't supported anymore"), so they are not in the grids.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from qidf_research.peers import settings as st
from qidf_research.peers.settings import DEFAULT_B, DEFAULT_K1, Setting

Evaluate = Callable[[Setting], float]

BASIC_MODELS = ("g", "if", "in", "ine")
AFTER_EFFECTS = ("b", "l")
NORMALIZATIONS = ("no", "h1", "h2", "h3", "z")
IB_DISTRIBUTIONS = ("ll", "spl")
IB_LAMBDAS = ("df", "ttf")
DFI_MEASURES = ("standardized", "saturated", "chisquared")

B_GRID = (0.25, 0.5, 0.75, 1.0)
K1_GRID = (0.5, 0.9, 1.2, 1.6, 2.4)
Q_GRID = (0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3)
MU_GRID = (10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0)
LAMBDA_GRID = (0.1, 0.3, 0.5, 0.7, 0.9)
GAMMA_GRID = (1.0, 1.5, 2.0, 3.0)
NORM_GRIDS = {"h1": (0.5, 1.0, 2.0, 4.0), "h2": (0.5, 1.0, 2.0, 4.0),
              "h3": (200.0, 800.0, 3200.0), "z": (0.1, 0.3, 0.6)}


def best(evaluate: Evaluate, candidates: Sequence[Setting]) -> Setting:
    """The best candidate on tuning; a tie goes to the earlier one (the grids list the
    engine's defaults first)."""
    return max(candidates, key=lambda s: (round(evaluate(s), 12), -candidates.index(s)))


def line(evaluate: Evaluate, make: Callable[[float], Setting], grid: Sequence[float], *,
         log: bool, lo: float, hi: float, extend: int = 6, refine: bool = True,
         prefer: float | None = None) -> list[Setting]:
    """A 1-D search: the grid; past an edge while the best sits on it (``extend`` steps,
    never beyond [lo, hi]); then the midpoints between the best and its neighbours. A tie
    goes to the value nearest ``prefer`` (the engine's default), else the smallest."""
    xs = sorted({st.num(x) for x in grid})
    tried: dict[float, Setting] = {x: make(x) for x in xs}

    def best_x() -> float:
        anchor = xs[0] if prefer is None else prefer
        return max(sorted(tried), key=lambda x: (round(evaluate(tried[x]), 12),
                                                 -abs(x - anchor)))

    for _ in range(extend):
        order = sorted(tried)
        b = best_x()
        if b not in (order[0], order[-1]) or len(order) < 2:
            break
        if b == order[0]:
            x = order[0] * order[0] / order[1] if log else 2 * order[0] - order[1]
            x = st.num(max(lo, x))
        else:
            x = order[-1] * order[-1] / order[-2] if log else 2 * order[-1] - order[-2]
            x = st.num(min(hi, x))
        if x in tried:
            break
        tried[x] = make(x)
    if refine:
        order = sorted(tried)
        b = best_x()
        i = order.index(b)
        for j in (i - 1, i + 1):
            if 0 <= j < len(order):
                mid = math.sqrt(b * order[j]) if log and b > 0 and order[j] > 0 else \
                    (b + order[j]) / 2
                x = st.num(mid)
                if x not in tried:
                    tried[x] = make(x)
    for s in tried.values():
        evaluate(s)
    return list(tried.values())


def _pair_step(evaluate: Evaluate, make: Callable[[float, float], Setting], k1: float,
               b: float) -> list[Setting]:
    """The four neighbours of (k1, b): k1 x 0.75 and x 1.33, b -/+ 0.1 (within [0, 1])."""
    out = [make(k1 * 0.75, b), make(k1 * 4 / 3, b)]
    out += [make(k1, x) for x in (b - 0.1, b + 0.1) if 0.0 <= x <= 1.0]
    for s in out:
        evaluate(s)
    return out


def search_bm25(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    cands = [st.default()]
    cands += line(evaluate, lambda b: st.bm25(DEFAULT_K1, b), B_GRID, log=False, lo=0.0,
                  hi=1.0, refine=False, prefer=DEFAULT_B)
    b = best(evaluate, cands).get("b", DEFAULT_B)
    cands += line(evaluate, lambda k: st.bm25(k, b), K1_GRID, log=True, lo=0.05, hi=20.0,
                  refine=False, prefer=DEFAULT_K1)
    top = best(evaluate, cands)
    cands += _pair_step(evaluate, st.bm25, top.get("k1", DEFAULT_K1), top.get("b", DEFAULT_B))
    return _unique(cands)


def search_qlog(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    return _unique(line(evaluate, st.qlog, Q_GRID, log=False, lo=0.05, hi=2.0, prefer=1.0))


def search_joint(evaluate: Evaluate, qlog_cands: Sequence[Setting],
                 bm25_cands: Sequence[Setting]) -> list[Setting]:
    """q, k1 and b together, coordinate by coordinate from the best q-log and BM25 settings.
    The candidates include every q-log setting (k1, b at the defaults) and every BM25 one
    (q = 1), so on the tuning split the joint best is never below either family."""
    cands = [*qlog_cands, *bm25_cands]
    q0 = _q(best(evaluate, qlog_cands))
    b_top = best(evaluate, bm25_cands)
    cands.append(st.qlog(q0, b_top.get("k1", DEFAULT_K1), b_top.get("b", DEFAULT_B)))
    evaluate(cands[-1])
    cands += line(evaluate, lambda b: st.qlog(q0, DEFAULT_K1, b), B_GRID, log=False, lo=0.0,
                  hi=1.0, refine=False, prefer=DEFAULT_B)
    b = best(evaluate, [s for s in cands if _q(s) == q0]).get("b", DEFAULT_B)
    cands += line(evaluate, lambda k: st.qlog(q0, k, b), K1_GRID, log=True, lo=0.05, hi=20.0,
                  refine=False, prefer=DEFAULT_K1)
    top = best(evaluate, cands)
    k1, b = top.get("k1", DEFAULT_K1), top.get("b", DEFAULT_B)
    q_grid = sorted({_q(s) for s in qlog_cands})
    i = q_grid.index(q0) if q0 in q_grid else 0
    near = [q_grid[j] for j in (i - 1, i + 1) if 0 <= j < len(q_grid)]
    for q in near:
        cands.append(st.qlog(q, k1, b))
        evaluate(cands[-1])
    top = best(evaluate, cands)
    q = _q(top)
    cands += _pair_step(evaluate, lambda k, bb: st.qlog(q, k, bb),
                        top.get("k1", DEFAULT_K1), top.get("b", DEFAULT_B))
    return _unique(cands)


def _q(s: Setting) -> float:
    return 1.0 if s.kind in ("default", "BM25") else float(s.get("q"))


def search_lm_dirichlet(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    return line(evaluate, st.lm_dirichlet, MU_GRID, log=True, lo=1.0, hi=10_000_000.0,
                prefer=2000.0)


def search_lm_jelinek_mercer(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    return line(evaluate, st.lm_jelinek_mercer, LAMBDA_GRID, log=False, lo=0.01, hi=0.99,
                prefer=0.1)


def _tune_norm(evaluate: Evaluate, top: Setting,
               make: Callable[[str, float], Setting]) -> list[Setting]:
    norm = top.get("normalization")
    if norm == "no":
        return []
    return line(evaluate, lambda c: make(norm, c), NORM_GRIDS[norm], log=True, lo=1e-3,
                hi=1e5, refine=False, prefer=st.NORM_DEFAULT[norm])


def search_dfr(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    if full:
        cands = [st.dfr(m, a, n) for m, a, n in
                 itertools.product(BASIC_MODELS, AFTER_EFFECTS, NORMALIZATIONS)]
        for s in cands:
            evaluate(s)
    else:
        cands = [st.dfr(m, a, "h2") for m, a in itertools.product(BASIC_MODELS, AFTER_EFFECTS)]
        cands += dph_like()
        for s in cands:
            evaluate(s)
        pair = best(evaluate, cands[:len(BASIC_MODELS) * len(AFTER_EFFECTS)])
        m, a = pair.get("basic_model"), pair.get("after_effect")
        more = [st.dfr(m, a, n) for n in NORMALIZATIONS if n != "h2"]
        for s in more:
            evaluate(s)
        cands += more
    top = best(evaluate, cands)
    m, a = top.get("basic_model"), top.get("after_effect")
    cands += _tune_norm(evaluate, top, lambda n, c: st.dfr(m, a, n, c))
    return _unique(cands)


def dph_like() -> list[Setting]:
    """DPH is parameter-free: a hypergeometric basic model, Laplace-like after-effect
    (1 - f)^2 / (tf + 1), no tf normalization. Lucene has no hypergeometric model; the
    closest it ships are its basic models with after-effect L and no normalization."""
    return [st.dfr(m, "l", "no") for m in BASIC_MODELS]


def search_ib(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    norms = NORMALIZATIONS if full else ("h2",)
    cands = [st.ib(d, la, n) for d, la, n in itertools.product(IB_DISTRIBUTIONS, IB_LAMBDAS,
                                                                norms)]
    for s in cands:
        evaluate(s)
    if not full:
        pair = best(evaluate, cands)
        d, la = pair.get("distribution"), pair.get("lambda")
        more = [st.ib(d, la, n) for n in NORMALIZATIONS if n != "h2"]
        for s in more:
            evaluate(s)
        cands += more
    top = best(evaluate, cands)
    d, la = top.get("distribution"), top.get("lambda")
    cands += _tune_norm(evaluate, top, lambda n, c: st.ib(d, la, n, c))
    return _unique(cands)


def search_dfi(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    cands = [st.dfi(m) for m in DFI_MEASURES]
    for s in cands:
        evaluate(s)
    return cands


def search_idf_gamma(evaluate: Evaluate, full: bool = False) -> list[Setting]:
    return line(evaluate, st.idf_gamma, GAMMA_GRID, log=True, lo=0.25, hi=8.0, prefer=1.0)


def _unique(settings: Sequence[Setting]) -> list[Setting]:
    return list(dict.fromkeys(settings))
