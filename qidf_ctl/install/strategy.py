"""How a similarity change reaches a live index: the three strategies and what each costs.

The engines change a similarity only on a closed index, or on a new index. ``close`` closes
the index for the change (fast, no extra disk, searches and writes fail meanwhile); ``clone``
write-blocks it, clones it (hard links) with the new similarity and moves the names to the
clone in one atomic ``_aliases`` call (searches never fail; writes are refused, retryably, for
a short measured window); ``reopen`` (Elasticsearch 8.12+) sends the update with
``?reopen=true``, and the engine closes, updates and reopens the index inside that one call.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class Strategy(str, Enum):
    CLOSE = "close"
    CLONE = "clone"
    REOPEN = "reopen"


REOPEN_SINCE = (8, 12)  # Elasticsearch: PUT <index>/_settings?reopen=true


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
    Strategy.REOPEN: "Elasticsearch 8.12+ only: one settings update with ?reopen=true, in "
                     "which the engine closes the index, updates and reopens it: searches "
                     "and writes fail for the printed window, as with close, but qidf makes "
                     "one call instead of three; no extra disk",
}


def parse_strategy(value: str | Strategy) -> Strategy:
    from qidf_ctl.errors import UsageError

    try:
        return Strategy(value)
    except ValueError:
        raise UsageError(f"--strategy must be close, clone or reopen, got {value!r}") from None


def check_supported(engine: Any, strategy: Strategy) -> None:
    """Refuse, before anything is read or written, a strategy the engine lacks."""
    from qidf_ctl.errors import UsageError

    if strategy is not Strategy.REOPEN:
        return
    version = tuple(int(p) for p in str(engine.version).split(".")[:2] if p.isdigit())
    if engine.distribution != "elasticsearch" or version < REOPEN_SINCE:
        raise UsageError(f"--strategy reopen needs Elasticsearch 8.12+ (PUT <index>/_settings"
                         f"?reopen=true); {engine} has no such call: use --strategy close "
                         "or clone")


def available(engine: Any) -> list[Strategy]:
    """The strategies ``engine`` can run, in the order of the enum."""
    from qidf_ctl.errors import UsageError

    found = []
    for strategy in Strategy:
        try:
            check_supported(engine, strategy)
        except UsageError:
            continue
        found.append(strategy)
    return found
