"""A bounded, time-limited cache of df and N, so that a term seen in an earlier query costs no
request.

Code queries repeat tokens (``func``, ``return``, ``err``) across queries, and a sweep runs the
same queries at every q: the statistics of a term do not depend on q. Entries expire after
``ttl_seconds`` because df changes as documents are written; until then a cached df can lag
the index by the writes of that interval (the boosts then follow the statistics the cache
holds, not the newest ones). ``ttl_seconds=0`` turns caching off.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from qidf_ctl.querytime.statistics import TermStats

DEFAULT_MAX_TERMS = 200_000
DEFAULT_TTL_SECONDS = 300.0

Key = tuple[str, str, str]  # (index, field, scope)
Fetch = Callable[[Sequence[str]], TermStats]
_N = "\0N"  # the slot of the field's N beside its terms (no analyzer emits a NUL token)


@dataclass
class CacheCounts:
    hits: int = 0
    misses: int = 0


class DfCache:
    """Least-recently-used terms go first once ``max_terms`` is reached; every entry expires
    ``ttl_seconds`` after it was read from the cluster."""

    def __init__(self, max_terms: int = DEFAULT_MAX_TERMS,
                 ttl_seconds: float = DEFAULT_TTL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_terms < 1 or ttl_seconds < 0:
            raise ValueError("max_terms must be >= 1 and ttl_seconds >= 0")
        self.max_terms = max_terms
        self.ttl = ttl_seconds
        self._clock = clock
        self._entries: OrderedDict[tuple[Key, str], tuple[int, float]] = OrderedDict()
        self.counts = CacheCounts()

    def __len__(self) -> int:
        return len(self._entries)

    def _get(self, key: Key, term: str, now: float) -> int | None:
        entry = self._entries.get((key, term))
        if entry is None:
            return None
        value, stored = entry
        if now - stored >= self.ttl:
            del self._entries[(key, term)]
            return None
        self._entries.move_to_end((key, term))
        return value

    def _put(self, key: Key, term: str, value: int, now: float) -> None:
        self._entries[(key, term)] = (value, now)
        self._entries.move_to_end((key, term))
        while len(self._entries) > self.max_terms:
            self._entries.popitem(last=False)

    def lookup(self, key: Key, terms: Sequence[str], fetch: Fetch) -> TermStats:
        """Statistics of ``terms``: cached where fresh, the rest (and N, if stale) from one
        ``fetch`` of the missing terms only."""
        now = self._clock()
        unique = list(dict.fromkeys(terms))
        known: dict[str, int] = {}
        for term in unique:
            value = self._get(key, term, now)
            if value is not None:
                known[term] = value
        n = self._get(key, _N, now)
        missing = [t for t in unique if t not in known]
        self.counts.hits += len(known)
        self.counts.misses += len(missing)
        scope = key[2]
        if missing or n is None:
            fresh = fetch(missing)
            scope = fresh.scope
            n = fresh.doc_count
            for term in missing:
                known[term] = fresh.of(term)
            if self.ttl > 0:
                self._put(key, _N, n, now)
                for term in missing:
                    self._put(key, term, known[term], now)
        return TermStats(n, {t: known[t] for t in unique}, scope)
