"""qidf-measured end to end, as ``qidf predict --queries`` runs it: on every main task's index
(the benchmark's), the product's own statistics and measurement with another 1,000 queries of
the task as the unlabeled sample (seed 1: never the queries it is scored on), then NDCG@10 at
its q read off the task's engine sweep (results.json; every q it picks is a sweep grid
point). Writes benchmarks/retrieval/measured-end-to-end.json, resumable.

    .venv/bin/python -m qidf_research.knownitem.end_to_end --url http://127.0.0.1:12000 go ...
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from qidf_ctl import predictors as predict
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.stats.query_sample import from_texts
from qidf_research.knownitem.tasks import DIRECTIONS, pairs_of, sample
from qidf_research.paths import BENCHMARKS
from qidf_research.pipeline import PREFIX
from qidf_research.readings import recovery_of, summarize

OUT = BENCHMARKS / "retrieval" / "measured-end-to-end.json"
SEED = 1


def measure(cluster: Cluster, language: str, direction: str) -> dict[str, Any]:
    pairs = {p.id: p for p in pairs_of(language)}
    ids = sample(language, direction, 1000, SEED)
    texts = {i: (pairs[i].code if direction == "code2doc" else pairs[i].doc) for i in ids}
    started = time.monotonic()
    p = predict.predict_for_index(cluster, f"{PREFIX}{language}-{direction}",
                                  predictor="qidf-measured",
                                  queries=from_texts(texts, f"seed {SEED}"))
    return {"q": p.q, "reason": p.reason, "seconds": round(time.monotonic() - started, 1),
            "measured": (p.queries or {}).get("measured")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("languages", nargs="+")
    args = ap.parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    results = json.loads((BENCHMARKS / "retrieval" / "results.json").read_text())["tasks"]
    data = json.loads(OUT.read_text()) if OUT.is_file() else {"tasks": {}}
    for lang in args.languages:
        for d in DIRECTIONS:
            key = f"{lang}-{d}"
            if key in data["tasks"]:
                continue
            row = measure(cluster, lang, d)
            sweep = results[key]["sweep"]
            curve = {p["q"]: p["ndcg10"] for p in sweep["points"]}
            row.update(bm25=sweep["baseline_ndcg10"], oracle=sweep["oracle_ndcg10"],
                       oracle_q=sweep["oracle_q"], at=curve[row["q"]])
            row["recovery"] = recovery_of(row["bm25"], row["oracle"], row["at"])
            data["tasks"][key] = row
            data["summary"] = summarize((r["bm25"], r["oracle"], r["at"])
                                        for r in data["tasks"].values())
            OUT.write_text(json.dumps(data, indent=1, sort_keys=True))
            print(f"{key}: q {row['q']} recovery {row['recovery']} ({row['seconds']} s)",
                  flush=True)
    print(json.dumps(data.get("summary")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
