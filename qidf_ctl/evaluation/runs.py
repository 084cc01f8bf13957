"""Running many queries against an index and collecting a ranked run."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation.queries import term_query
from qidf_ctl.progress import Advance

Run = dict[str, list[tuple[str, float]]]  # query id -> [(doc id, score)] best first
_RANK = re.compile(r"[0-9]{1,18}")


def search_run(
    cluster: Cluster,
    index: str,
    field: str,
    query_terms: Mapping[str, Counter[str]],
    *,
    k: int = 100,
    batch_size: int = 50,
    search_type: str | None = "dfs_query_then_fetch",
    advance: Advance = lambda n: None,
    queries: Mapping[str, dict[str, Any]] | None = None,
) -> Run:
    """Top-``k`` hits per query via ``_msearch``. ``dfs_query_then_fetch`` makes scores use
    index-wide statistics on multi-shard indices (identical to the default on one shard).
    ``queries`` gives ready query bodies by query id (query-time q-log); else each query is
    its tokens' ``term_query``."""
    run: Run = {}
    qids = list(query_terms)
    header: dict[str, Any] = {"index": index}
    if search_type:
        header["search_type"] = search_type
    for start in range(0, len(qids), batch_size):
        batch = qids[start:start + batch_size]
        lines = []
        for qid in batch:
            lines.append(json.dumps(header))
            lines.append(json.dumps({"size": k, "_source": False, "track_total_hits": False,
                                     "query": queries[qid] if queries is not None
                                     else term_query(field, query_terms[qid])}))
        resp = cluster.request("POST", "/_msearch", "\n".join(lines) + "\n")
        for qid, item in zip(batch, resp["responses"], strict=True):
            if "error" in item:
                raise ClusterError(f"query {qid!r} failed: {item['error']}")
            run[qid] = [(h["_id"], float(h["_score"])) for h in item["hits"]["hits"]]
        advance(len(batch))
    return run


def write_trec_run(run: Run, path: str | Path, tag: str = "qidf") -> int:
    """Write ``run`` in TREC format (``qid Q0 doc rank score tag``); returns lines written.

    Ranks come from list order, so ties in score keep the engine's order when read back.
    """
    lines = []
    for qid in sorted(run):
        for rank, (doc, score) in enumerate(run[qid], start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {score:.6f} {tag}\n")
    Path(path).write_text("".join(lines), encoding="utf-8")
    return len(lines)


def read_trec_run(path: str | Path, option: str = "--baseline") -> Run:
    """Read a TREC run; each query's documents ordered by rank (then by file order).

    A line is ``qid Q0 doc rank score tag``: the rank a non-negative integer, the score a
    finite number, each document once per query (trec_eval refuses duplicates too)."""
    file = textfile.read(path, "TREC run", option)
    rows: dict[str, list[tuple[int, int, str, float]]] = {}
    seen: set[tuple[str, str]] = set()
    for lineno, line in file.lines():
        parts = textfile.fields(line)
        if not parts:
            continue
        if len(parts) != 6:
            raise file.error(f"a TREC run line has 6 fields (qid Q0 doc rank score tag), got "
                             f"{len(parts)}", lineno)
        qid, _, doc, rank_text, score_text, _ = parts
        if not _RANK.fullmatch(rank_text):
            raise file.error(f"the rank must be a non-negative integer, got "
                             f"{textfile.shown(rank_text)}", lineno)
        try:
            score = float(score_text)
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise file.error(f"the score must be a finite number, got "
                             f"{textfile.shown(score_text)}", lineno)
        if (qid, doc) in seen:
            raise file.error(f"document {textfile.shown(doc)} is ranked twice for query "
                             f"{textfile.shown(qid)}", lineno)
        seen.add((qid, doc))
        rows.setdefault(qid, []).append((int(rank_text), lineno, doc, score))
    if not rows:
        raise file.error("holds no ranked documents")
    return {qid: [(doc, score) for _, _, doc, score in sorted(hits)]
            for qid, hits in rows.items()}
