"""The peers section of results.md, rendered from peers.json (no engine needed)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from qidf_research.paths import BENCHMARKS
from qidf_research.peers.compare import FAMILIES, PEERS
from qidf_research.peers.corpora import FULL_CROSS_PRODUCT, GROUPS

SHORT = {"bm25_default": "BM25", "bm25": "BM25 k1/b", "lm_dirichlet": "LMDirichlet",
         "lm_jelinek_mercer": "LMJelinekMercer", "dfr": "DFR", "dph_like": "DFR ~DPH",
         "ib": "IB", "dfi": "DFI", "idf_gamma": "idf^gamma", "qlog": "q-log", "shipped": "shipped",
         "joint": "joint"}
GROUP_NAMES = {"code2doc": "code → doc (standard analyzer)",
               "doc2code": "doc → code (standard analyzer)",
               "prose": "prose controls", "identifier": "code → doc, identifier analyzer",
               "scaling": "Go scaling subsets and Go at scale"}


def _p(x: float) -> str:
    return "< 1e-4" if x < 1e-4 else f"{x:.2g}"


def _delta(c: dict[str, Any] | None) -> str:
    if not c:
        return "—"
    return f"{c['delta']:+.4f} [{c['low']:+.4f}, {c['high']:+.4f}], p {_p(c['p_value'])}"


def _setting(f: dict[str, Any]) -> str:
    """A family's chosen setting, short: e.g. ``k1 0.9, b 0.4``, ``if, b, h2 c=2``."""
    p = f.get("params", {})
    kind = f.get("kind")
    if kind == "default":
        return "default (k1 1.2, b 0.75)"
    if kind in ("DFR", "IB"):
        first = ("basic_model", "after_effect") if kind == "DFR" else ("distribution", "lambda")
        norm = p["normalization"] + (f" c={p['c']:g}" if "c" in p else "")
        return ", ".join([*(str(p[k]) for k in first), norm])
    if kind == "DFI":
        return str(p["independence_measure"])
    order = ("q", "gamma", "mu", "lambda", "k1", "b")
    return ", ".join(f"{k} {p[k]:g}" for k in order if k in p)


def _shipped(c: dict[str, Any]) -> str:
    """The shipped column's cell: held-out NDCG@10, the q installed and the predictor that
    chose it (the default predictor changed between runs: each row names its own)."""
    f = c["families"]["shipped"]
    who = _predictor(c)
    return f"{f['heldout']:.4f} (q {f['params'].get('q', 1):g}, {who})"


def _predictor(c: dict[str, Any]) -> str:
    """The shipped row's predictor, ``+queries`` when it read the task's query sample."""
    sp = c.get("shipped_prediction", {})
    return sp.get("predictor", "?") + (" +queries" if sp.get("query_sample") else "")


def _predictors(rows: list[dict[str, Any]]) -> str:
    names = Counter(_predictor(c) for c in rows)
    return ", ".join(f"{n} {k}" for n, k in sorted(names.items()))


def _ordered(corpora: dict[str, Any]) -> list[str]:
    keys = list(corpora)
    return sorted(keys, key=lambda k: (GROUPS.index(corpora[k]["group"]), keys.index(k)))


def _counts(rows: list[dict[str, Any]], name: str) -> tuple[int, int, str]:
    """Wins and losses at p < 0.05, and the median (range) of the deltas, of one comparison."""
    cmp = [c["comparisons"][name] for c in rows if name in c["comparisons"]]
    ds = [c["delta"] for c in cmp]
    win = sum(1 for c in cmp if c["delta"] > 0 and c["p_value"] < 0.05)
    lose = sum(1 for c in cmp if c["delta"] < 0 and c["p_value"] < 0.05)
    spread = f"{statistics.median(ds):+.4f} ({min(ds):+.4f} to {max(ds):+.4f})" if ds else "—"
    return win, lose, spread


def headline(corpora: dict[str, Any]) -> list[str]:
    out = ["| corpus type | corpora | best built-in (times) | q-log vs best built-in: "
           "above / below (p < 0.05), median Δ (range) | best peer incl. idf^gamma (times) | "
           "q-log vs best peer: above / below, median Δ (range) | shipped default vs best "
           "built-in: above / below, median Δ (range) |", "|---|---|---|---|---|---|---|"]
    for group in GROUPS:
        rows = [c for c in corpora.values() if c["group"] == group]
        if not rows:
            continue
        cells = [f"{len(rows)}"]
        for who, run in (("best_builtin", "qlog"), ("best_peer", "qlog"),
                         (None, "shipped")):
            if who:
                names = Counter(SHORT[c[who]] for c in rows if who in c)
                cells.append(", ".join(f"{n} ({k})" for n, k in names.most_common(3)))
            base = who or "best_builtin"
            win, lose, spread = _counts(rows, f"{run}_vs_{base}")
            cells.append(f"{win} / {lose}, {spread}" + ("" if who else
                                                         f" [{_predictors(rows)}]"))
        out.append(f"| {GROUP_NAMES[group]} | " + " | ".join(cells) + " |")
    return out


def family_wins(corpora: dict[str, Any], run: str) -> list[str]:
    """Per corpus type, how often ``run`` is above / below each family on the held-out
    split at p < 0.05 (each family at its own best tuning setting)."""
    extra = " predictor |" if run == "shipped" else ""
    out = ["| corpus type | corpora | " + " | ".join(SHORT[p] for p in PEERS) + " |" + extra,
           "|---|---|" + "---|" * len(PEERS) + ("---|" if extra else "")]
    for group in GROUPS:
        rows = [c for c in corpora.values() if c["group"] == group]
        if not rows:
            continue
        cells = []
        for peer in PEERS:
            win, lose, _ = _counts(rows, f"{run}_vs_{peer}")
            cells.append(f"{win} / {lose}")
        if extra:
            cells.append(_predictors(rows))
        out.append(f"| {GROUP_NAMES[group]} | {len(rows)} | " + " | ".join(cells) + " |")
    return out


def joint_headline(corpora: dict[str, Any]) -> list[str]:
    out = ["| corpus type | corpora | joint >= best single family on tuning | held out: joint "
           "vs best single, above / below (p < 0.05), median Δ (range) | held out: joint vs "
           "best built-in, above / below, median Δ (range) |", "|---|---|---|---|---|"]
    for group in GROUPS:
        rows = [c for c in corpora.values() if c["group"] == group]
        if not rows:
            continue
        ok = sum(1 for c in rows if c["families"]["joint"]["tuning"]
                 >= c["families"][c["best_single"]]["tuning"] - 1e-12)
        cells = []
        for base in ("best_single", "best_builtin"):
            win, lose, spread = _counts(rows, f"joint_vs_{base}")
            cells.append(f"{win} / {lose}, {spread}")
        out.append(f"| {GROUP_NAMES[group]} | {len(rows)} | {ok} of {len(rows)} | "
                   + " | ".join(cells) + " |")
    return out


def main_table(corpora: dict[str, Any]) -> list[str]:
    out = ["| corpus | docs | BM25 | best built-in (chosen on tuning) | NDCG@10 | q-log (q) | "
           "Δ q-log - best built-in [95% CI], p | best peer, if idf^gamma | "
           "Δ q-log - best peer, p | shipped (q, predictor) | Δ shipped - best built-in, p |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in _ordered(corpora):
        c = corpora[key]
        f = c["families"]
        bi = f[c["best_builtin"]]
        bp = c["best_peer"]
        other = (f"{f[bp]['heldout']:.4f} (gamma {f[bp]['params']['gamma']:g})"
                 if bp != c["best_builtin"] else "—")
        vs_peer = _delta(c["comparisons"].get("qlog_vs_best_peer")) \
            if bp != c["best_builtin"] else "—"
        out.append(
            f"| {key} | {c['documents']:,} | {f['bm25_default']['heldout']:.4f} | "
            f"{SHORT[c['best_builtin']]}: {_setting(bi)} | {bi['heldout']:.4f} | "
            f"{f['qlog']['heldout']:.4f} ({f['qlog']['params'].get('q', 1):g}) | "
            f"{_delta(c['comparisons'].get('qlog_vs_best_builtin'))} | {other} | {vs_peer} | "
            f"{_shipped(c)} | {_delta(c['comparisons'].get('shipped_vs_best_builtin'))} |")
    return out


def docs_table(corpora: dict[str, Any]) -> list[str]:
    """The table docs/explanation/peers.md shows (a test keeps the page equal to peers.json):
    per corpus, the best built-in family against q-log tuned and the shipped default, held
    out."""
    def d(c: dict[str, Any], name: str) -> str:
        x = c["comparisons"].get(name)
        return "—" if not x else f"{x['delta']:+.4f} (p {_p(x['p_value'])})"

    out = ["| corpus | BM25 | best built-in, as tuned | its NDCG@10 | q-log, q tuned | "
           "Δ q-log - built-in | shipped `--q auto` (q, predictor) | Δ shipped - built-in |",
           "|---|---|---|---|---|---|---|---|"]
    for key in _ordered(corpora):
        c = corpora[key]
        f = c["families"]
        bi = f[c["best_builtin"]]
        out.append(
            f"| {key} | {f['bm25_default']['heldout']:.4f} | {SHORT[c['best_builtin']]} "
            f"({_setting(bi)}) | {bi['heldout']:.4f} | {f['qlog']['heldout']:.4f} "
            f"(q {f['qlog']['params'].get('q', 1):g}) | {d(c, 'qlog_vs_best_builtin')} | "
            f"{_shipped(c)} | {d(c, 'shipped_vs_best_builtin')} |")
    return out


def family_table(corpora: dict[str, Any]) -> list[str]:
    names = list(FAMILIES)
    out = ["| corpus | " + " | ".join(SHORT[n] for n in names) + " |",
           "|---|" + "---|" * len(names)]
    for key in _ordered(corpora):
        c = corpora[key]
        f = c["families"]
        cells = []
        for n in names:
            v = f.get(n, {}).get("heldout")
            text = "—" if v is None else f"{v:.4f}"
            cells.append(f"**{text}**" if n in (c["best_peer"], c["best_builtin"]) else text)
        out.append(f"| {key} | " + " | ".join(cells) + " |")
    return out


def settings_table(corpora: dict[str, Any]) -> list[str]:
    names = [n for n in FAMILIES if n not in ("bm25_default", "dfi")] + ["dfi"]
    out = ["| corpus | " + " | ".join(SHORT[n] for n in names) + " |",
           "|---|" + "---|" * len(names)]
    for key in _ordered(corpora):
        f = corpora[key]["families"]
        out.append(f"| {key} | " + " | ".join(
            _setting(f[n]) if "params" in f.get(n, {}) else "—" for n in names) + " |")
    return out


def joint_table(corpora: dict[str, Any]) -> list[str]:
    out = ["| corpus | best single family on tuning | its tuning | joint (q, k1, b) | "
           "joint tuning | joint held-out | best single held-out | Δ joint - best single "
           "[95% CI], p | Δ joint - best built-in, p | Δ joint - BM25, p |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for key in _ordered(corpora):
        c = corpora[key]
        f = c["families"]
        bs, j = f[c["best_single"]], f["joint"]
        jp = j["params"]
        setting = (f"{jp.get('q', 1):g}, {jp.get('k1', 1.2):g}, {jp.get('b', 0.75):g}")
        out.append(f"| {key} | {FAMILIES[c['best_single']]} | {bs['tuning']:.4f} | {setting} | "
                   f"{j['tuning']:.4f} | {j['heldout']:.4f} | {bs['heldout']:.4f} | "
                   f"{_delta(c['comparisons'].get('joint_vs_best_single'))} | "
                   f"{_delta(c['comparisons'].get('joint_vs_best_builtin'))} | "
                   f"{_delta(c['comparisons'].get('joint_vs_bm25_default'))} |")
    return out


def cost_table(corpora: dict[str, Any]) -> list[str]:
    out = ["| corpus | settings measured | searches | search time (s) |", "|---|---|---|---|"]
    total = [0, 0, 0.0]
    for key in _ordered(corpora):
        cost = corpora[key]["cost"]
        total[0] += cost["settings_measured"]
        total[1] += cost["searches"]
        total[2] += cost["search_seconds"]
        out.append(f"| {key} | {cost['settings_measured']} | {cost['searches']:,} | "
                   f"{cost['search_seconds']:,.0f} |")
    out.append(f"| all | {total[0]} | {total[1]:,} | {total[2]:,.0f} |")
    return out


def render_peers(data: dict[str, Any]) -> list[str]:
    corpora = data.get("corpora") or {}
    if not corpora:
        return []
    full = ", ".join(k for k in FULL_CROSS_PRODUCT if k in corpora)
    plan = data["plan"]
    peers = ", ".join(FAMILIES[p] for p in PEERS)
    return [
        "", "## Peers: q-log against every similarity the engine ships", "",
        f"Regenerate: `{data['regenerate']}` (tables only: `python -m "
        "qidf_research.bench_report`, from peers.json). Every family's setting is chosen "
        "on a seeded half of each task's queries (tuning) and every number below is "
        "NDCG@10 on the other half (held out), installed on the corpus's index and ranked by "
        f"{data['engine']}. Peers: {peers}. The best built-in is the engine's own family "
        "(no script) with the highest tuning NDCG@10, the best peer the same over every "
        "peer including the Painless idf^gamma; Δ is held-out NDCG@10 with a paired "
        "bootstrap over the held-out "
        f"queries ({data['resamples']:,} resamples, 95% percentile interval, two-sided p). "
        "q-log is q tuned at k1 = 1.2, b = 0.75; shipped is the q of the product's default "
        "predictor (`apply --q auto`, exact statistics, the task's own queries unlabeled as "
        "the `--queries` sample: +queries); every shipped cell names its predictor, every "
        "shipped count the predictors behind it, as the default has changed before; joint "
        "tunes q, k1 and b together.",
        "",
        f"Grids (coarse, then finer around the best; peers.json has every setting tried "
        f"and its tuning NDCG@10): BM25 b {plan['bm25']['b']} then k1 {plan['bm25']['k1']} "
        f"then one step around the best pair; q {plan['qlog']['q']} then the midpoints "
        f"around the best; LMDirichlet mu {plan['lm_dirichlet']['mu']}; LMJelinekMercer "
        f"lambda {plan['lm_jelinek_mercer']['lambda']} (both extended past an edge and "
        "refined); DFR: basic models g, if, in, ine x after-effects b, l at normalization "
        "H2, the other normalizations (no, H1, H3, Z) for the best pair, the four "
        "parameter-free L / no-normalization variants (the closest Lucene has to DPH: it "
        "ships no hypergeometric model), then the best normalization's parameter; IB: "
        "ll, spl x df, ttf at H2, the other normalizations for the best pair, then its "
        "parameter; DFI: all three measures; idf^gamma: BM25 with its IDF to the power gamma "
        f"(our reading of the paper's power-law rescaling), gamma {plan['idf_gamma']['gamma']} "
        "then refined. The full DFR (4 x 2 x 5) and IB (2 x 2 x 5) cross products ran on "
        f"{full or 'no corpus yet'}. OpenSearch refuses the basic models be, d, p and the "
        "after-effect no.",
        "", "### Headline by corpus type", "", *headline(corpora),
        "", "### Against each family: above / below at p < 0.05 (held out)", "",
        "q-log with q tuned:", "", *family_wins(corpora, "qlog"), "",
        "The shipped default (`apply --q auto`):", "", *family_wins(corpora, "shipped"),
        "", "### q-log against the best built-in and the best peer (held-out NDCG@10)", "",
        *main_table(corpora),
        "", "### Every family (held-out NDCG@10; the best built-in and the best peer in bold)",
        "",
        *family_table(corpora),
        "", "### The settings chosen on the tuning split", "",
        "Parameters as the engine names them; c is the DFR/IB normalization's parameter "
        "(c of H1/H2, mu of H3, z of Z).", "", *settings_table(corpora),
        "", "### Joint tuning of q, k1 and b", "",
        "The joint candidates include every q-log setting and every BM25 setting, so on the "
        "tuning split the joint best is never below tuned BM25 nor tuned q-log; the best "
        "single family is the best of all the others on tuning (a peer, q-log or shipped).",
        "", *joint_headline(corpora), "", *joint_table(corpora),
        "", "### Cost", "", *cost_table(corpora),
    ]


def load_peers(path: Path | None = None) -> dict[str, Any] | None:
    """peers.json (bench_peers) beside results.json, when it exists."""
    path = path or BENCHMARKS / "retrieval" / "peers.json"
    return json.loads(path.read_text()) if path.is_file() else None


def main() -> None:
    """Print the table of docs/explanation/peers.md: python -m qidf_research.peers.report"""

    print("\n".join(docs_table((load_peers() or {}).get("corpora") or {})))


if __name__ == "__main__":
    main()
