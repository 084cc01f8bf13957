"""The time split: q is chosen on the older half of the judged commits and reported on the
newer half, so nothing is evaluated on what chose it. Ties in time go by commit id, so the
split is the same on every run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Split:
    older: tuple[str, ...]
    newer: tuple[str, ...]
    cut_time: int  # the newer half starts at this committer time

    def as_dict(self) -> dict[str, object]:
        return {"older": list(self.older), "newer": list(self.newer), "cut_time": self.cut_time}


def halves(times: Mapping[str, int]) -> Split:
    """Older half (the first floor(n/2) commits by time) and newer half."""
    order = sorted(times, key=lambda q: (times[q], q))
    cut = len(order) // 2
    if cut == 0 or cut == len(order):
        raise ValueError(f"{len(order)} judged commits cannot be split in two halves")
    return Split(tuple(order[:cut]), tuple(order[cut:]), times[order[cut]])


def latest(split: Split, n: int) -> tuple[str, ...]:
    """The ``n`` most recent commits of the older half: what a user who judges "the last n
    commits" before the evaluation period would sweep on."""
    return split.older[-n:]
