"""Settings of the speed benchmark: systems, paths and defaults."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from qidf_ctl.evaluation import indexing
from qidf_research.paths import REPO

FIELD = indexing.FIELD
DEFAULT_ZIP = (REPO / "plugin-java" / "target" / "opensearch-2.19.6"
               / "qidf-qlog-similarity-0.1.0-opensearch-2.19.6.zip")
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qidf" / "bench-speed"
FALLBACK_Q = 0.3
BM25, PLUGIN, PAINLESS, PLUGIN_Q1 = "bm25", "plugin", "painless", "plugin_q1"
# plugin_q1 is the control: the plugin at q = 1 scores bit for bit like BM25, so it prunes
# exactly like BM25 and any difference is the plugin's code path. At q != 1 the scores (and
# with them how many documents dynamic pruning can skip) differ from BM25's.
INSTALLED = (BM25, PLUGIN, PAINLESS, PLUGIN_Q1)
# Query time (qidf_ctl.querytime) on the BM25 index itself, at the predicted q: the boosted
# body alone (prebuilt: the query's own cost), and end to end, text in, hits out, with the df
# cache warm and with no cache (an _analyze, a _termvectors and the search per query).
QT_SEARCH, QT_WARM, QT_COLD = "qt_search", "qt_warm", "qt_cold"
QUERY_TIME = (QT_SEARCH, QT_WARM, QT_COLD)
SYSTEMS = INSTALLED + QUERY_TIME
LABELS = {BM25: "built-in BM25", PLUGIN: "plugin qlog_bm25, predicted q",
          PAINLESS: "Painless scripted, predicted q", PLUGIN_Q1: "plugin qlog_bm25, q = 1",
          QT_SEARCH: "query time, predicted q: boosted body only",
          QT_WARM: "query time, predicted q: text in, df cache warm",
          QT_COLD: "query time, predicted q: text in, no cache"}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
