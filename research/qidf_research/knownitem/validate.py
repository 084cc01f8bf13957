"""The offline scorer against the engine: NDCG@10 of the benchmark's own 1,000 queries at
every q of the sweep, beside results.json's curve (measured on the engine).

    .venv/bin/python -m qidf_research.knownitem.validate go python ...
"""

from __future__ import annotations

import json
import sys

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_research.knownitem.scorer import ndcg10
from qidf_research.knownitem.tasks import DIRECTIONS, sample, task
from qidf_research.paths import BENCHMARKS


def compare(language: str, direction: str, cluster: Cluster | None) -> list[tuple[float, float,
                                                                               float]]:
    results = json.loads((BENCHMARKS / "retrieval" / "results.json").read_text())
    sweep = results["tasks"][f"{language}-{direction}"]["sweep"]
    t = task(language, direction, cluster)
    ids = sample(language, direction, 1000, 0)
    w, gold = t.weights(ids), t.gold(ids)
    out = []
    for p in sweep["points"]:
        if p["q"] > 1:
            continue
        mine = float(ndcg10(t.scorer.ranks(w, gold, p["q"])).mean())
        out.append((p["q"], p["ndcg10"], mine))
    return out


def main(argv: list[str]) -> int:
    cluster = Cluster.connect(ConnectionSettings.from_options(url=argv[0]))
    for lang in argv[1:]:
        for d in DIRECTIONS:
            rows = compare(lang, d, cluster)
            worst = max(abs(a - b) for _, a, b in rows)
            print(f"{lang}-{d}: max |engine - offline| = {worst:.5f}; " + ", ".join(
                f"{q:g}:{a:.4f}/{b:.4f}" for q, a, b in rows[::4]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
