"""The simulator on the man-pages prose control (predictor.md, "Measured q", validation (c)):
where qidf-content keeps BM25 before anything is measured, does the simulated curve also
peak near q = 1? The corpus and its queries are indexed (the queries as documents of a
second index, to read their tokens as term vectors), then M2 and M2a are built on the queries
and scored beside the true curve.

    .venv/bin/python -m qidf_research.knownitem.prose --url http://127.0.0.1:12000
"""

from __future__ import annotations

import argparse
import json
import sys

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_research.knownitem.matrix import load
from qidf_research.knownitem.scorer import Scorer, ndcg10
from qidf_research.knownitem.simulate import (
    ANCHOR_RARE,
    ANCHOR_RARE_ALL,
    GRID,
    Simulator,
    argmax,
    curve,
)
from qidf_research.paths import BENCHMARKS
from qidf_research.pipeline import PREFIX
from qidf_research.sources.pinned import prose_task


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    args = ap.parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    task = prose_task(1000, lambda m: print(m, file=sys.stderr))
    docs = load(cluster, f"{PREFIX}manpages-prose", task.corpus)
    queries = load(cluster, f"{PREFIX}manpages-prose-queries", task.queries)
    scorer = Scorer(docs)
    row = {q: i for i, q in enumerate(queries.ids)}
    ids = sorted(task.queries)
    counts = [{queries.terms[j]: int(v) for j, v in zip(
        queries.tf[row[q]].indices, queries.tf[row[q]].data, strict=True)} for q in ids]
    w = scorer.weights(counts)
    pos = {d: i for i, d in enumerate(docs.ids)}
    gold = [pos[next(iter(task.qrels[q]))] for q in ids]
    import numpy as np

    gold_arr = np.array(gold)
    true = {q: float(ndcg10(scorer.ranks(w, gold_arr, q)).mean()) for q in GRID}
    out = {"task": "manpages-prose", "documents": scorer.doc_count, "queries": len(ids),
           "true": true, "oracle_q": argmax(true)}
    sim = Simulator(scorer, seed=1, draws=20)
    for m in (ANCHOR_RARE, ANCHOR_RARE_ALL):
        s = sim.build(w, m, gold_arr)
        c = curve(scorer, s)
        out[m] = {"q_sim": argmax(c), "simulated": len(s.answers), "curve": c}
    path = BENCHMARKS / "retrieval" / "measured-prose.json"
    path.write_text(json.dumps(out, indent=1, default=float))
    print(json.dumps({k: v if not isinstance(v, dict) else v.get("q_sim", "")
                      for k, v in out.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
