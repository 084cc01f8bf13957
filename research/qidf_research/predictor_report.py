"""results.md's tables of the large-prose study (predictor.md, "Prose at production size"):
the natural-language corpora at every size and the mixed index, the shipped default's safety
per corpus and per size, and the content rule's leave-one-language-out by family.

Rendered by bench_report from results.json alone (no engine)."""

from __future__ import annotations

from typing import Any

DEFAULT = "qidf-content"
WITH = f"{DEFAULT}+queries"
BEFORE = "qidf-gate"
LARGE = ("debdesc", "debman", "debdocs", "debmulti")
NAMES = {"debdesc": "Debian package descriptions (summary -> long description)",
         "debman": "man pages of 6,408 Debian packages (NAME summary -> DESCRIPTION)",
         "debdocs": "both in one index",
         "debmulti": "both, plus the descriptions in seven more languages (one index)"}


def _pts(t: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["label"]: p for p in t["points"]}


def _ndcg(t: dict[str, Any], label: str) -> float | None:
    p = _pts(t).get(label)
    return None if p is None else p["metrics"]["NDCG@10"]


def _delta(t: dict[str, Any], label: str) -> str:
    got, base = _ndcg(t, label), _ndcg(t, "bm25")
    if got is None or base is None:
        return "—"
    return f"{_pts(t)[label]['q']:g} / {got - base:+.4f}"


def _content(results: dict[str, Any]) -> dict[str, Any]:
    return ((results.get("predictor") or {}).get("content")) or {}


def _before(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """qidf-gate as shipped before, read off each curve (its q is always a grid point)."""
    return {c["corpus"]: c["before"] for c in _content(results).get("per_corpus", [])}


def size_order(key: str) -> tuple[str, int]:
    tail = key.rsplit("-", 1)[-1]
    n = int(tail[:-1]) * 1000 if tail.endswith("k") and tail[:-1].isdigit() else 10**9
    return key.split("-")[0], n


def large_prose(results: dict[str, Any]) -> list[str]:
    tasks = results["tasks"]
    before = _before(results)
    keys = sorted((k for k in tasks if k.split("-")[0] in LARGE or k.startswith("mixed-")),
                  key=size_order)
    if not keys:
        return []
    out = ["", "## Natural language at production size, and a mixed index", "",
           "Built from the Debian archive (research/qidf_research/sources/debian_prose.py): "
           + "; ".join(f"`{k}`: {v}" for k, v in NAMES.items()) + "; `mixed-java-debdesc`: "
           "the package descriptions plus the Java functions searched with their docstrings, in "
           "one field. Nested seeded subsets (each the first n of one permutation). Cells: q / "
           "NDCG@10 change against BM25. The default is measured end to end (`apply --q auto`), "
           "without and with the task's queries as an unlabeled sample (`--queries`); the "
           "default before (qidf-gate) is read off the curve at its q (a grid point).", "",
           "| corpus | documents | BM25 | oracle q (NDCG) | code-like documents | code-like "
           "queries | default, no sample | default + queries | qidf-gate before | paper |",
           "|---|---:|---:|---|---:|---:|---|---|---|---|"]
    for key in keys:
        t = tasks[key]
        st, sw = t["stats"], t["sweep"]
        b = before.get(key)
        gate = f"{b['q']:g} / {b['delta_vs_bm25']:+.4f}" if b else "—"
        qshare = st.get("q_code_like_share")
        out.append(
            f"| {key} | {t['documents']:,} | {sw['baseline_ndcg10']:.4f} | {sw['oracle_q']:g} "
            f"({sw['oracle_ndcg10']:.4f}) | {st.get('src_code_like_share', float('nan')):.1%} | "
            f"{'—' if qshare is None else f'{qshare:.1%}'} | {_delta(t, DEFAULT)} | "
            f"{_delta(t, WITH)} | {gate} | {_delta(t, 'paper')} |")
    return out


def safety(results: dict[str, Any]) -> list[str]:
    """Worst NDCG@10 change against BM25 of the shipped default, per corpus family, over
    every size measured (engine measured), and of the default before (curves)."""
    tasks = results["tasks"]
    before = _before(results)
    families: dict[str, list[str]] = {}
    for key in tasks:
        fam = key.split("-")[0]
        families.setdefault("go" if key.startswith("go-") else fam, []).append(key)
    out = ["", "## Safety of the shipped default", "",
           "Worst NDCG@10 change against BM25 over every task of a corpus family (all sizes, "
           "both directions and the identifier-analyzer ablation for a language), measured end "
           "to end; the default before read off the curves. Negative beyond -0.005 is a "
           "failure of the safety target.", "",
           "| corpus family | tasks | sizes (documents) | default, no sample | default + queries "
           "| qidf-gate before |", "|---|---:|---|---|---|---|"]

    def worst(keys: list[str], label: str) -> str:
        vals = [(_ndcg(tasks[k], label) - _ndcg(tasks[k], "bm25"), k) for k in keys  # type: ignore[operator]
                if _ndcg(tasks[k], label) is not None]
        if not vals:
            return "—"
        v, k = min(vals)
        return f"{v:+.4f} ({k})"

    for fam, keys in sorted(families.items()):
        sizes = sorted({tasks[k]["documents"] for k in keys})
        span = f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,}-{sizes[-1]:,}"
        bvals = [(before[k]["delta_vs_bm25"], k) for k in keys if k in before]
        b = f"{min(bvals)[0]:+.4f} ({min(bvals)[1]})" if bvals else "—"
        out.append(f"| {fam} | {len(keys)} | {span} | {worst(keys, DEFAULT)} | "
                   f"{worst(keys, WITH)} | {b} |")
    return out


CANDIDATES = (("src_code_like_share", "code-like documents"),
              ("q_code_like_share", "code-like queries"),
              ("src_identifier_words", "identifier words"),
              ("hapax_mean_length", "df=1 mean length"), ("hapax_long_share", "df=1 long"),
              ("hapax_joint_share", "df=1 joined"), ("hapax_digit_share", "df=1 digit"),
              ("hapax_glued_share", "df=1 glued"), ("query_tokens", "query tokens"),
              ("query_hapax_share", "query df=1 share"))


def candidates(results: dict[str, Any]) -> list[str]:
    """Every task's candidate statistics (qidf_ctl/stats definitions; no labels needed)."""
    out = ["", "## Candidate statistics of the large-prose study", "",
           "Shares of ~1,000 sampled documents and of the task's queries that look like code "
           "(stats/text_shape.py), identifier-shaped words in the document sample, shapes of "
           "the df = 1 terms (stats/hapax_terms.py), and analysed query statistics "
           "(stats/query_sample.py, 200 queries).", "",
           "| corpus | docs | " + " | ".join(n for _, n in CANDIDATES) + " | oracle q |",
           "|---|---:|" + "---:|" * len(CANDIDATES) + "---|"]
    for key, t in sorted(results["tasks"].items(), key=lambda kv: size_order(kv[0])):
        st = t["stats"]
        if "src_code_like_share" not in st:
            continue
        cells = " | ".join("—" if st.get(k) is None else
                           (f"{st[k]:.1f}" if k in ("hapax_mean_length", "query_tokens")
                            else f"{st[k]:.3f}") for k, _ in CANDIDATES)
        out.append(f"| {key} | {t['documents']:,} | {cells} | {t['sweep']['oracle_q']:g} |")
    return out


def content_study(results: dict[str, Any]) -> list[str]:
    study = _content(results)
    if not study:
        return []
    out = ["", "## The content rule: leave-one-language-out by family", "",
           "Each family refitted without the held-out language (its ablation and Go subsets too); "
           "the six small prose controls are safety corpora in every fold; the Debian corpora "
           "and the mixed index are held out of every fit. Recovery over the held-out "
           "language's two main tasks, with the task's queries as the sample and without.", "",
           "| family | LOLO with queries | LOLO without | worst change in a fold (with / "
           "without) | fitted on all |", "|---|---:|---:|---|---|"]
    rows = [("F1 content", study["f1"])]
    rows += [(f"F2 + gate on {k}", v) for k, v in study["f2"].items()]
    rows += [(f"F3 q_q split on {k}", v) for k, v in study["f3"].items()]
    for name, rep in rows:
        lo = rep["lolo"]
        p = rep["params"] or {}
        fitted = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                           for k, v in p.items())
        w, wo = lo["with_queries"], lo["without_queries"]
        out.append(f"| {name} | {_f(w['mean'])} | {_f(wo['mean'])} | "
                   f"{w['worst_delta']:+.4f} / {wo['worst_delta']:+.4f} | {fitted} |")
    f1 = study["f1"]["lolo"]
    langs = list(f1["with_queries"]["per_language"])
    out += ["", "F1 per held-out language (with queries / without): " + ", ".join(
        f"{lang} {_f(f1['with_queries']['per_language'][lang], 2)} / "
        f"{_f(f1['without_queries']['per_language'][lang], 2)}" for lang in langs) + ".",
        "", f"Chosen by the protocol on the training tasks: docstring gate "
        f"{study['chosen']['doc_stat'] or 'none'}, graded q_q "
        f"{study['chosen']['query_stat'] or 'none'}."]
    fails = study.get("held_out_failures") or []
    if fails:
        out += ["", "Held-out corpora where that choice falls more than 0.005 below BM25 (read "
                "off the curves; rule 5 of the protocol):", "",
                "| corpus | mode | q | change vs BM25 | decided by |", "|---|---|---:|---:|---|"]
        out += [f"| {f['corpus']} | {f['mode'].replace('_', ' ')} | {f['q']:g} | "
                f"{f['delta_vs_bm25']:+.4f} | {f['by']} |" for f in fails]
    final = study.get("final_choice") or {}
    out += ["", f"After rule 5: docstring gate {final.get('doc_stat') or 'none'}, graded q_q "
            f"{final.get('query_stat') or 'none'}; shipped as `qidf-content` with "
            + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                        for k, v in (study.get("params") or {}).items()) + "."]
    return out


def _f(x: float | None, nd: int = 3) -> str:
    return "—" if x is None else f"{x:.{nd}f}"


def render(results: dict[str, Any]) -> list[str]:
    return large_prose(results) + safety(results) + content_study(results) + candidates(results)
