"""qidf-content's level for whole files: the one q that the file-localization tasks allow.

The eight file-localization tasks (commit messages -> the whole files each commit changed,
``qidf_research.filetasks``; per-query NDCG@10 at every q of the grid, measured on the real
engine and kept in the research cache) are read here without an engine. For each candidate
level of the grid, on each repository's newer half: the change against BM25, its paired
bootstrap p (the product's ``evaluation.bootstrap``) and the recovery of the oracle gain.

The choice rule, applied to all eight and again with each repository left out: the level
that is never significantly below BM25 (p < 0.05) on any repository and keeps the most of
the oracle gain on the worst repository where that gain is significant; no level meets
both targets of issue 36 (never below, >= 0.5 of the gain) on every repository -> the one
with the fewest misses. The repository left out is then scored at the level chosen without
it: what a repository the rule never saw gets.

The corpora's mean tokens per file are counted with a Unicode word pattern close to the
standard tokenizer (the product reads the engine's own count, BM25's avgdl); the function-
level tasks' means are the engine's (benchmarks/retrieval/results.json).

    QIDF_RESEARCH_CACHE=/work/cache/research .venv/bin/python -m qidf_research.predictor_whole_files

writes benchmarks/retrieval/whole-files.json and whole-files.md.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from qidf_ctl.evaluation.bootstrap import paired_bootstrap
from qidf_ctl.predictors import content
from qidf_research.filetasks import loader
from qidf_research.paths import BENCHMARKS

OUT = BENCHMARKS / "retrieval"
LEVELS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
ALPHA = 0.05
RESAMPLES = 10_000
WORD = re.compile("\\w+(?:[.'\u2019]\\w+)*")


def _mean(values: dict[str, float], qids: tuple[str, ...]) -> float:
    return float(np.mean([values.get(q, 0.0) for q in qids]))


def measure(task: loader.FileTask) -> dict[str, Any]:
    """One repository: BM25, the oracle, and every candidate level on the newer half."""
    newer = task.newer
    base = {q: task.curves.per_query["baseline"].get(q, 0.0) for q in newer}
    bm25 = _mean(base, newer)
    grid = [q for q in task.curves.grid if q < 1.0]
    oracle_q = max(grid, key=lambda q: (_mean(task.curves.at(q), newer), q))
    oracle_q = oracle_q if _mean(task.curves.at(oracle_q), newer) > bm25 else 1.0
    gain = (_mean(task.curves.at(oracle_q), newer) - bm25) if oracle_q < 1.0 else 0.0
    significant = gain > 0 and paired_bootstrap(
        {q: task.curves.at(oracle_q).get(q, 0.0) for q in newer}, base,
        resamples=RESAMPLES).p_value < ALPHA
    levels = {}
    for level in LEVELS:
        b = paired_bootstrap({q: task.curves.at(level).get(q, 0.0) for q in newer}, base,
                             resamples=RESAMPLES)
        levels[f"{level:g}"] = {"change": b.delta, "p": b.p_value,
                                "below": b.delta < 0 and b.p_value < ALPHA,
                                "recovery": b.delta / gain if significant else None}
    corpus = task.corpus()
    tokens = sum(len(WORD.findall(text)) for text in corpus.values()) / max(len(corpus), 1)
    return {"key": task.key, "repository": task.meta.get("repository", task.key),
            "language": task.language, "family": task.family, "files": len(corpus),
            "mean_tokens": tokens, "queries": len(newer), "bm25": bm25, "oracle_q": oracle_q,
            "oracle_gain": gain, "oracle_significant": significant, "levels": levels}


def misses(cell: dict[str, Any]) -> int:
    """Issue 36's two file-level targets this cell misses (0, 1 or 2)."""
    rec = cell["recovery"]
    return int(cell["below"]) + int(rec is not None and rec < 0.5)


def choose(rows: list[dict[str, Any]]) -> str:
    """The level with the fewest target misses over ``rows``, then the best worst recovery,
    then the one nearest BM25 (the milder)."""
    def score(level: str) -> tuple[int, float, float]:
        cells = [r["levels"][level] for r in rows]
        recs = [c["recovery"] for c in cells if c["recovery"] is not None]
        return (-sum(misses(c) for c in cells), min(recs, default=1.0), float(level))
    return max((f"{x:g}" for x in LEVELS), key=score)


def study() -> dict[str, Any]:
    rows = [measure(t) for t in loader.load_all()]
    chosen = choose(rows)
    held = {}
    for r in rows:
        level = choose([o for o in rows if o is not r])
        held[r["key"]] = {"level": level, **r["levels"][level]}
    functions = json.loads((OUT / "results.json").read_text())["tasks"]
    lengths = sorted(t["stats"]["tokens"] / t["stats"]["docs"] for k, t in functions.items()
                     if "doc2code" in k and t.get("stats", {}).get("docs"))
    return {"rows": rows, "chosen": chosen, "held_out": held,
            "function_tokens": [lengths[0], lengths[-1]] if lengths else None,
            "shipped": {"Q_CODE_FILES": content.Q_CODE_FILES,
                        "WHOLE_FILE_TOKENS_MIN": content.WHOLE_FILE_TOKENS_MIN,
                        "Q_CODE_CORPUS": content.Q_CODE_CORPUS}}


def _cell(c: dict[str, Any]) -> str:
    text = f"{c['change']:+.4f} (p {c['p']:.3f})"
    if c["below"]:
        text = f"**{text} below**"
    if c["recovery"] is not None:
        text += f", {c['recovery']:.2f}"
    return text


def report(data: dict[str, Any]) -> str:
    rows, shipped = data["rows"], data["shipped"]
    lines = [
        "# qidf-content on whole files: the level of issue 36's file-level targets", "",
        "Generated by `python -m qidf_research.predictor_whole_files` (its docstring has the "
        "method) from the per-query curves of the file-localization tasks "
        "([filetasks](../filetasks/README.md)): commit messages of the newer half of each "
        "repository's judged history against an index of its whole files (standard analyzer, "
        "one shard, the real engine). Each cell: the NDCG@10 change against BM25, its paired "
        "bootstrap p (10,000 resamples), and the recovery of the oracle gain where that gain "
        "is significant; **bold**: significantly below BM25.", "",
        "| repository | language | files | mean tokens | BM25 | oracle q (gain) | "
        + " | ".join(f"q {x:g}" for x in LEVELS) + " |",
        "|---|---|---:|---:|---:|---|" + "---|" * len(LEVELS)]
    for r in rows:
        oracle = (f"{r['oracle_q']:g} ({r['oracle_gain']:+.4f}"
                  + ("" if r["oracle_significant"] else ", n.s.") + ")")
        lines.append(f"| {r['repository']} | {r['language']} | {r['files']:,} | "
                     f"{r['mean_tokens']:,.0f} | {r['bm25']:.4f} | {oracle} | "
                     + " | ".join(_cell(r["levels"][f"{x:g}"]) for x in LEVELS) + " |")
    lines += ["", "## The choice", ""]
    for x in LEVELS:
        cells = [r["levels"][f"{x:g}"] for r in rows]
        recs = [c["recovery"] for c in cells if c["recovery"] is not None]
        below = [r["key"] for r in rows if r["levels"][f"{x:g}"]["below"]]
        lines.append(f"- q {x:g}: significantly below BM25 on {', '.join(below) or 'none'}; "
                     f"recovery mean {np.mean(recs):.2f}, worst {min(recs):.2f}; target "
                     f"misses {sum(misses(c) for c in cells)}")
    lines += ["", f"Chosen on all eight: **q {data['chosen']}**. Each repository left out, "
              "the level chosen on the other seven, and what the one left out gets:", "",
              "| left out | level | change (p) | recovery |", "|---|---|---|---:|"]
    for key, h in data["held_out"].items():
        rec = "n/a" if h["recovery"] is None else f"{h['recovery']:.2f}"
        lines.append(f"| {key} | {h['level']} | {h['change']:+.4f} ({h['p']:.3f}) | {rec} |")
    f = data["function_tokens"]
    lines += [
        "", "## Where whole files start", "",
        f"Function-level code documents of the retrieval benchmark average {f[0]:.0f}-"
        f"{f[1]:.0f} tokens (the engine's count); these whole files "
        f"{min(r['mean_tokens'] for r in rows):,.0f}-{max(r['mean_tokens'] for r in rows):,.0f}"
        f" (a word pattern close to the standard tokenizer). qidf-content gives q "
        f"{shipped['Q_CODE_FILES']:g} to a code field whose documents average at least "
        f"{shipped['WHOLE_FILE_TOKENS_MIN']:.0f} tokens (about the geometric middle of the "
        f"gap), and q {shipped['Q_CODE_CORPUS']:g} below; "
        "`tests/integration/test_content_predictor.py` checks the engine's count on this "
        "project's own modules.", "",
        "## Caveats", "",
        "- The level was chosen after the table above was seen; the leave-one-out rows are "
        "the guard against fitting it: every repository left out gets the same level.",
        "- Eight repositories, one of them (tokio) where BM25 is best; there q 0.7 is "
        "below BM25 by a margin the bootstrap does not call significant (p above 0.05, "
        "not far above). A held-out repository like it can still lose a little.",
        "- The label-free q is one level for every whole-file index: the judged path "
        "(`apply --q auto --judgments`, the repository's own history) recovers more where "
        "the oracle is lower (benchmarks/filetasks).", ""]
    return "\n".join(lines)


def main() -> int:
    data = study()
    (OUT / "whole-files.json").write_text(json.dumps(data, indent=1, default=float) + "\n")
    (OUT / "whole-files.md").write_text(report(data))
    print(report(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
