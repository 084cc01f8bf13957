"""Graded judgments from a UBI log: sessions (``ubi``) -> the position-based click model
(``clickmodel``) -> a grade per (query, document) -> the judgments folder, split by time.

Queries are grouped by their text (trimmed, case and whitespace folded): two people typing
the same words asked the same question, and every session of it is evidence on the same
(query, document) pairs.

Minimum evidence, each rule counted in the manifest:

- a (query, document) pair is judged only once it was shown ``min_impressions`` times
  (default 1: for agents, most queries are asked once; raise it for human logs, where one
  stray click is common);
- a click on a result the session never showed (no impression, no hit list, no position
  in the event) cannot be placed at a rank: it is counted and set aside;
- a query is kept only when one of its documents reaches grade 1: a query with no
  attractive result adds nothing to NDCG at any q.

Grades from the attractiveness ``alpha`` (the chance a result is clicked once looked at):
2 from ``HIGH`` (0.5: clicked at least every other time it was looked at), 1 from ``LOW``
(0.25), else 0 (written: judged, not relevant).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone

from qidf_ctl import __version__
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from qidf_ctl.judgments import clickmodel, matching
from qidf_ctl.judgments.clickmodel import Impression
from qidf_ctl.judgments.folder import Judgments
from qidf_ctl.judgments.split import DEFAULT_OLDER_SHARE, check_share, time_split
from qidf_ctl.judgments.ubi import Log, Session
from qidf_ctl.progress import Progress, quiet

SOURCE = "ubi"
LOW = 0.25
HIGH = 0.5
DEFAULT_MIN_IMPRESSIONS = 1


@dataclass(frozen=True)
class UbiOptions:
    """How clicks become judgments (module docstring)."""

    min_impressions: int = DEFAULT_MIN_IMPRESSIONS
    older_share: float = DEFAULT_OLDER_SHARE
    low: float = LOW
    high: float = HIGH

    def check(self) -> UbiOptions:
        if self.min_impressions < 1:
            raise UsageError(f"--min-impressions must be at least 1, got {self.min_impressions}")
        if not 0.0 < self.low <= self.high <= 1.0:
            raise UsageError(f"the grade thresholds must satisfy 0 < low <= high <= 1, got "
                             f"{self.low} and {self.high}")
        check_share(self.older_share)
        return self


def query_key(text: str) -> str:
    return " ".join(text.casefold().split())


def query_id(key: str) -> str:
    """A stable id for a query text: the same text gets the same id in every run."""
    return "ubi-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def grade(alpha: float, low: float = LOW, high: float = HIGH) -> int:
    return 2 if alpha >= high else 1 if alpha >= low else 0


@dataclass
class _Grouped:
    keys: list[str]  # query keys, first seen first
    text: dict[str, str]  # key -> the text as first typed
    first_time: dict[str, float | None]
    pairs: dict[tuple[str, str], int]
    impressions: list[Impression]
    sessions: Counter[str] = field(default_factory=Counter)  # per query key
    sessions_used: int = 0
    sessions_without_text: int = 0
    sessions_without_results: int = 0
    clicks_without_rank: int = 0


def _group(sessions: list[Session]) -> _Grouped:
    g = _Grouped([], {}, {}, {}, [])
    for session in sessions:
        if not session.text or not session.text.strip():
            g.sessions_without_text += 1
            continue
        shown = session.shown()
        placed = dict.fromkeys(shown)
        for doc, rank in session.clicked.items():
            if doc in placed:
                continue
            if rank is None:
                g.clicks_without_rank += 1
                continue
            if rank <= len(shown):  # another result was shown at that rank
                g.clicks_without_rank += 1
                continue
            shown += [""] * (rank - 1 - len(shown))  # ranks the log does not name
            shown.append(doc)
        if not any(shown):
            g.sessions_without_results += 1
            continue
        key = query_key(session.text)
        if key not in g.text:
            g.keys.append(key)
            g.text[key] = " ".join(session.text.split())
            g.first_time[key] = session.time
        elif session.time is not None:
            known = g.first_time[key]
            g.first_time[key] = session.time if known is None else min(known, session.time)
        g.sessions_used += 1
        g.sessions[key] += 1
        for rank, doc in enumerate(shown, 1):
            if not doc:
                continue
            pair = g.pairs.setdefault((key, doc), len(g.pairs))
            g.impressions.append(Impression(pair, rank, doc in session.clicked))
    return g


def judgments_from_log(log: Log, origin: str, options: UbiOptions | None = None, *,
                       cluster: Cluster | None = None, index: str | None = None,
                       id_field: str | None = None, progress: Progress = quiet) -> Judgments:
    """Judgments from the sessions of ``log`` (module docstring). With ``id_field``, object
    ids are values of that field of ``index`` and are mapped to document ids (``matching``);
    otherwise they are document ids."""
    started = time.monotonic()
    options = (options or UbiOptions()).check()
    grouped = _group(list(log.sessions.values()))
    progress(f"fitting the position-based click model to {len(grouped.impressions):,} "
             "impressions")
    fitted = clickmodel.fit(grouped.impressions, len(grouped.pairs))
    to_docs: dict[str, list[str]] | None = None
    if id_field is not None:
        if cluster is None or index is None:
            raise UsageError("--id-field needs --index: the index whose field holds the ids")
        pf = matching.path_field(cluster, index, id_field)
        to_docs = matching.lookup(cluster, pf, sorted({d for _, d in grouped.pairs}))
    qrels: dict[str, dict[str, int]] = {}
    below_evidence = unmapped = 0
    grades = {0: 0, 1: 0, 2: 0}
    for (key, doc), pair in grouped.pairs.items():
        if fitted.impressions[pair] < options.min_impressions:
            below_evidence += 1
            continue
        value = grade(float(fitted.alpha[pair]), options.low, options.high)
        docs = [doc] if to_docs is None else to_docs.get(doc, [])
        if not docs:
            unmapped += 1
            continue
        grades[value] += 1
        for d in docs:
            judged = qrels.setdefault(query_id(key), {})
            judged[d] = max(value, judged.get(d, 0))
    kept = [k for k in grouped.keys if any(v > 0 for v in qrels.get(query_id(k), {}).values())]
    if not kept:
        raise UsageError(
            f"no query of {origin} has a result clicked often enough to judge "
            f"({len(log.sessions):,} searches, {log.counts.clicks:,} clicks, "
            f"{below_evidence:,} pairs below --min-impressions {options.min_impressions}): "
            "check the click actions (--clicks) and that events carry the query_id of their search")
    queries = {query_id(k): grouped.text[k] for k in kept}
    times = grouped.first_time
    timed = all(times[k] is not None for k in kept)
    split = time_split([(query_id(k), int(times[k] or 0) if timed else i)
                        for i, k in enumerate(kept)], options.older_share)
    metadata = {query_id(k): {"first_seen": _iso(times[k]), "sessions": grouped.sessions[k]}
                for k in kept}
    manifest = {
        "source": SOURCE, "origin": origin,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "qidf_version": __version__,
        "index": {"name": index, "id_field": id_field} if index else None,
        "model": {"name": "position-based model (PBM), EM",
                  "iterations": fitted.iterations, "converged": fitted.converged,
                  "examination_by_rank": [round(float(g), 4) for g in fitted.gamma[:20]],
                  "grades": {"2": f"attractiveness >= {options.high}",
                             "1": f"attractiveness >= {options.low}", "0": "below"}},
        "rules": {"min_impressions": options.min_impressions, "clicks": sorted(log.clicks),
                  "ordinal_base": log.base, "application": log.application},
        "counts": {"events_read": log.counts.events, "searches": len(log.sessions),
                   "judged_queries": len(queries),
                   "judgments": sum(len(qrels[q]) for q in queries),
                   "read": log.counts.as_dict(),
                   "skipped": {"searches_without_text": grouped.sessions_without_text,
                               "searches_without_results": grouped.sessions_without_results,
                               "clicks_without_rank": grouped.clicks_without_rank,
                               "pairs_below_min_impressions": below_evidence,
                               "pairs_not_in_index": unmapped,
                               "queries_without_attractive_result":
                                   len(grouped.keys) - len(kept)},
                   "grades": {str(k): v for k, v in grades.items()},
                   "impressions": len(grouped.impressions)},
        "split": {**split.as_dict(), "by": "first search time" if timed else "log order"},
        "seconds": round(time.monotonic() - started, 2),
    }
    return Judgments(queries, {q: qrels[q] for q in queries}, list(split.older),
                     list(split.newer), manifest, metadata)


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, timezone.utc).isoformat()
