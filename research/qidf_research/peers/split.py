"""The tuning / held-out split of a task's queries: every setting is chosen on one half and
reported on the other, so no reported number was picked on the queries it is measured on."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

SEED = 17


@dataclass(frozen=True)
class Split:
    tuning: tuple[str, ...]
    heldout: tuple[str, ...]

    def of(self, name: str) -> tuple[str, ...]:
        if name not in ("tuning", "heldout"):
            raise ValueError(f"unknown split {name!r}")
        return self.tuning if name == "tuning" else self.heldout


def split_queries(qids: Iterable[str], seed: int = SEED) -> Split:
    """A seeded half (rounded down) for tuning, the rest held out; independent of order."""
    order = sorted(set(qids))
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return Split(tuple(sorted(order[:half])), tuple(sorted(order[half:])))
