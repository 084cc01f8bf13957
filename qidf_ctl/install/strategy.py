"""How a similarity change reaches a live index: the two strategies and what each costs.

The engines change a similarity only on a closed index, or on a new index. ``close`` closes
the index for the change (fast, no extra disk, searches and writes fail meanwhile); ``clone``
write-blocks it, clones it (hard links) with the new similarity and moves the names to the
clone in one atomic ``_aliases`` call (searches never fail; writes are refused, retryably, for
a short measured window).
"""

from __future__ import annotations

from enum import Enum


class Strategy(str, Enum):
    CLOSE = "close"
    CLONE = "clone"


# One line each for --help and docs/explanation/apply-safety.md: outage, disk, time, writes.
COSTS = {
    Strategy.CLOSE: "close the index, update, reopen: searches and writes fail while it is "
                    "closed (the printed window: one close and one open, longer when replicas "
                    "must recover); no extra disk",
    Strategy.CLONE: "write-block, clone (hard links) with the new similarity, move every "
                    "alias in one atomic call: searches keep working (only the first swap of "
                    "a concrete index name, which becomes an alias, can fail searches in "
                    "flight); writes get 403 cluster_block_exception for the printed window "
                    "(clients must retry them); disk: hard links, then the clone's own "
                    "merges",
}


def parse_strategy(value: str | Strategy) -> Strategy:
    from qidf_ctl.errors import UsageError

    try:
        return Strategy(value)
    except ValueError:
        raise UsageError(f"--strategy must be close or clone, got {value!r}") from None
