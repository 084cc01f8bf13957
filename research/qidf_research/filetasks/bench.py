"""Build and measure the file-localization tasks, one repository after another.

    python -m qidf_research.filetasks.bench --url http://127.0.0.1:9200 [KEY ...]
    python -m qidf_research.filetasks.report     # results.json, curves.json, README tables

Each step's output is cached in the task's folder (``layout``) and reused while its inputs
match, so a rerun resumes where the last one stopped.
"""

from __future__ import annotations

import argparse
import sys
import time

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_research.filetasks import build, measure, sources


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="qidf_research.filetasks.bench")
    ap.add_argument("keys", nargs="*", help="repository keys (sources.json); default: all")
    ap.add_argument("--url", default="http://127.0.0.1:9200")
    ap.add_argument("--max-commits", type=int, default=build.MAX_COMMITS,
                    help="the judgments command's --max: the most recent judged commits")
    ap.add_argument("--build-only", action="store_true", help="corpus, index and judgments")
    ap.add_argument("--check-cli", action="store_true",
                    help="also run `qidf sweep` on the older half as a command and check that "
                    "it recommends what the shared curves do (one more sweep)")
    ap.add_argument("--paths", action="store_true",
                    help="also measure the path as the searched text (path_text, reported "
                    "apart)")
    args = ap.parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:7.0f}s] {message}", file=sys.stderr, flush=True)

    for source in sources.by_key(args.keys or None):
        built = build.build(source, cluster, args.url, max_commits=args.max_commits, log=log)
        log(f"{source.key}: {len(built.docs):,} files, {len(built.queries):,} judged commits "
            f"({len(built.split.older):,} older, {len(built.split.newer):,} newer)")
        if args.build_only:
            continue
        result = measure.measure(cluster, args.url, built, log, args.check_cli, args.paths)
        d = result["decisions"]
        log(f"{source.key}: BM25 {result['newer']['1']['NDCG@10']['mean']:.4f}, oracle q "
            f"{result['oracle']['newer']['q']:g} {result['oracle']['newer']['ndcg10']:.4f}, "
            f"judged q {d['judged']['q']:g}, label-free q {d['label_free']['q']:g} / "
            f"{d['label_free_sample']['q']:g} with the sample")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
