"""The time split: q is chosen on the older judged queries and reported on the newer ones, so
that no number is measured on the queries that chose it.

By commit time, not at random: queries from one stretch of history share vocabulary (a
feature's name, a subsystem being rewritten), and a random split would let the choice see
the very topics it is then scored on. The older ``older_share`` of the judged commits (by
count, ties in time broken by commit id) choose; the rest report. ``older_share = 1`` keeps
every query for choosing (nothing is held out, and the manifest says so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from qidf_ctl.errors import UsageError

OLDER = "older"
NEWER = "newer"
DEFAULT_OLDER_SHARE = 0.5


def check_share(share: float) -> float:
    if not (isinstance(share, int | float) and math.isfinite(share) and 0.0 < share <= 1.0):
        raise UsageError(f"--split takes the older share, a number in (0, 1] such as 0.5, got "
                         f"{share!r}")
    return float(share)


@dataclass(frozen=True)
class Split:
    """Which judged queries choose (``older``) and which report (``newer``)."""

    older_share: float
    older: tuple[str, ...]
    newer: tuple[str, ...]
    cut_time: int | None  # the first newer query's commit time (epoch seconds)

    def of(self, qid: str) -> str:
        return NEWER if qid in set(self.newer) else OLDER

    def as_dict(self) -> dict[str, Any]:
        cut = (datetime.fromtimestamp(self.cut_time, timezone.utc).isoformat()
               if self.cut_time is not None else None)
        return {"by": "commit time", "older_share": self.older_share,
                "older_queries": len(self.older), "newer_queries": len(self.newer),
                "newer_from": cut, "older": "choose q", "newer": "report"}


def time_split(times: Sequence[tuple[str, int]], older_share: float = DEFAULT_OLDER_SHARE
               ) -> Split:
    """Split ``(query id, commit time)`` pairs: the oldest ``older_share`` (rounded, at least
    one when there are two or more queries) choose, the rest report."""
    share = check_share(older_share)
    ordered = sorted(times, key=lambda t: (t[1], t[0]))
    n = len(ordered)
    k = n if share >= 1.0 else min(max(round(n * share), 1 if n > 1 else 0), n - 1)
    older = tuple(q for q, _ in ordered[:k])
    newer = tuple(q for q, _ in ordered[k:])
    cut = ordered[k][1] if k < n else None
    return Split(share, older, newer, cut)
