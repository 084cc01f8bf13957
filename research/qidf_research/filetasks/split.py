"""The time split the judgments command wrote (older commits choose q, newer ones report),
as the benchmark uses it, and the older half's most recent commits (the held-out judges
swept on "the last 500 commits")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from qidf_ctl.judgments import Judgments


@dataclass(frozen=True)
class Split:
    older: tuple[str, ...]  # oldest first
    newer: tuple[str, ...]
    newer_from: str  # the first newer commit's time (ISO)

    def as_dict(self) -> dict[str, object]:
        return {"older": list(self.older), "newer": list(self.newer),
                "newer_from": self.newer_from}


def _time(found: Judgments, qid: str) -> tuple[float, str]:
    text = (found.metadata.get(qid) or {}).get("time")
    return (datetime.fromisoformat(text).timestamp() if isinstance(text, str) else 0.0, qid)


def of(found: Judgments) -> Split:
    """The command's split, each half in time order."""
    older = tuple(sorted(found.older, key=lambda q: _time(found, q)))
    newer = tuple(sorted(found.newer, key=lambda q: _time(found, q)))
    if not older or not newer:
        raise ValueError(f"the judgments split {len(older)} older / {len(newer)} newer: "
                         "both halves are needed")
    first = (found.metadata.get(newer[0]) or {}).get("time")
    return Split(older, newer, str(first))


def latest(split: Split, n: int) -> tuple[str, ...]:
    """The ``n`` most recent commits of the older half: what a user who judges "the last n
    commits" before the evaluation period would sweep on."""
    return split.older[-n:]
