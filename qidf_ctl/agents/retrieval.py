"""Code retrieval for agents: ranked hits of one index packed into a token budget, a document
by id, and how the index is ranked. The MCP tools and the LangChain and LlamaIndex retrievers
are thin layers over ``Retrieval``; nothing here knows about any of them.

The budget walk is Recall@budget-tokens' own (``evaluation.metrics.budget_prefix``) over the
same token counter (``evaluation.tokens``, cl100k by default) and the same text (the searched
field of each hit's ``_source``): the hits an agent is handed are exactly the prefix that
``qidf eval`` scores, so their recall is the Recall@8K-tokens it reports.

    from qidf_ctl.agents import Retrieval
    retrieval = Retrieval.connect(cluster, "code-search", q="auto")
    result = retrieval.search("func (h *Header) FileInfo() fs.FileInfo", budget_tokens=8000)
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qidf_ctl.agents import ranking as rankings
from qidf_ctl.agents.ranking import INSTALLED, Ranking, decide, parse_q
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.evaluation.budget import source_text
from qidf_ctl.evaluation.metrics import budget_prefix
from qidf_ctl.evaluation.score import DEFAULT_BUDGET
from qidf_ctl.evaluation.tokens import COUNTERS
from qidf_ctl.evaluation.tokens import counter as token_counter
from qidf_ctl.querytime.fields import FieldsQueryTime
from qidf_ctl.stats.query_sample import QuerySample

DEFAULT_MAX_HITS = 50
MAX_HITS = 1000  # qidf eval's default depth: enough for any 8K walk it scores
MAX_BUDGET = 1_000_000  # tokens; the largest model contexts
MAX_QUERY_CHARS = 200_000  # a large source file; longer is a mistake, not a query
MAX_ID_BYTES = 512  # the engines' own limit on a document id
PAGE = 100  # hits of the first request; later ones are sized by the budget left
MAX_PAGE = 1000
META_CHARS = 256  # longer values stay out of a hit's metadata (fetch returns them)


@dataclass(frozen=True)
class Hit:
    """One ranked document: its text (the searched field) and the tokens it costs."""

    rank: int
    id: str
    score: float
    tokens: int
    text: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class SearchResult:
    """The hits that fit the budget, best first, and why the walk stopped."""

    index: str
    method: str
    q: float | None
    budget_tokens: int
    used_tokens: int
    stopped: str  # "budget" (the next hit would overflow), "max_results" or "no more hits"
    next_hit_tokens: int | None  # the size of the first hit left out by the budget
    hits: list[Hit]

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def hit_metadata(self, hit: Hit) -> dict[str, Any]:
        """What a framework's document carries beside its text: the hit's own fields, then
        where it came from and how it was ranked (the retrievers' metadata)."""
        return {**hit.metadata, "id": hit.id, "score": hit.score, "rank": hit.rank,
                "tokens": hit.tokens, "index": self.index, "method": self.method, "q": self.q}


def _metadata(source: Mapping[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    """The short scalar fields of a hit beside its text (path, language, line...)."""
    tops = {f.split(".", 1)[0] for f in fields}
    return {k: v for k, v in source.items() if k not in tops and (
        isinstance(v, (int, float, bool)) or (isinstance(v, str) and len(v) <= META_CHARS))}


def hit_text(source: Mapping[str, Any], fields: Sequence[str]) -> str:
    """A hit's text: the searched field's, or the searched fields' in order, a blank line
    between them (what the token budget counts and an agent reads)."""
    texts = [source_text(source, f) for f in fields]
    return "\n\n".join(t for t in texts if t) if len(fields) > 1 else texts[0]


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise UsageError(f"{name} must be in {low:,}..{high:,}, got {value:,}")
    return value


def _next_page(left: int, room: int, used: int, taken: int) -> int:
    """Hits to ask for next: ``PAGE`` first, then as many as the budget left would hold at
    the mean size seen so far, plus a quarter (a walk of 8K tokens over short documents
    takes two requests, not one per hundred hits)."""
    if not taken:
        return min(PAGE, left)
    mean = max(used / taken, 1.0)
    return max(1, min(left, MAX_PAGE, int(room / mean * 1.25) + 1))


def check_query(text: Any) -> str:
    if not isinstance(text, str):
        raise UsageError(f"the query must be text, got {type(text).__name__}")
    if not text.strip():
        raise UsageError("the query is empty: pass code or words to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {len(text):,} characters long; at most "
                         f"{MAX_QUERY_CHARS:,} (a function or a file, not a corpus)")
    return text


class Retrieval:
    """Search, fetch and describe one index, ranked as ``ranking.decide`` chose.

    Safe to share between threads (the MCP SDK runs tool calls on worker threads): the
    df cache is updated under a lock, searches run in parallel.
    """

    def __init__(self, cluster: Cluster, ranking: Ranking, builder: FieldsQueryTime,
                 counter_name: str = "cl100k") -> None:
        if counter_name not in COUNTERS:
            raise UsageError(f"unknown token counter {counter_name!r}: choose one of "
                             f"{', '.join(COUNTERS)}")
        self.cluster = cluster
        self.ranking = ranking
        self.builder = builder
        self.counter_name = counter_name
        self.count = token_counter(counter_name)
        self._lock = threading.Lock()
        self.target: str | None = None  # the one concrete index to send to (MCP pins it)

    @classmethod
    def connect(cls, cluster: Cluster, index: str, *, q: str | float | None = rankings.AUTO,
                field: str | Sequence[str] | None = None, ranking: str = rankings.AUTO,
                queries: QuerySample | None = None, counter_name: str = "cl100k"
                ) -> Retrieval:
        """Read the index once and decide its ranking (``q``: a number, or ``auto``;
        ``field``: one, several, or None for every text field)."""
        decided, builder = decide(cluster, index, q=parse_q(q), field=field, ranking=ranking,
                                  queries=queries)
        return cls(cluster, decided, builder, counter_name)

    @property
    def index(self) -> str:
        return self.ranking.index

    @property
    def fields(self) -> list[str]:
        return list(self.ranking.fields or (self.ranking.field,))

    def _q(self, q: Any) -> float | None:
        if q is None:
            return None
        if isinstance(q, bool) or not isinstance(q, (int, float, str)):
            raise UsageError(f"q must be a number in [0, 2], got {q!r}")
        value = parse_q(q)
        decided_bm25 = self.ranking.q_source == rankings.AUTO  # BM25 kept: query time may
        if self.ranking.method == INSTALLED and not decided_bm25 and value != self.ranking.q:
            have = "an unknown q" if self.ranking.q is None else f"q = {self.ranking.q:g}"
            raise UsageError(f"index {self.index!r} ranks with its installed similarity "
                             f"({have}); a q per search applies only to indices ranked at "
                             "query time: leave q out")
        return value

    def request(self, text: str, q: float | None = None) -> tuple[dict[str, Any],
                                                                  dict[str, str]]:
        """The query and search parameters for ``text``: what ``search`` sends."""
        with self._lock:
            builder = self.builder if q is None else self.builder.with_qs(
                dict.fromkeys(self.fields, q))
            built = builder.build(text)
        if self.ranking.method == INSTALLED and q is None:
            search_type = self.ranking.search_type
            return built.query, ({"search_type": search_type} if search_type else {})
        return built.query, built.params()

    def _page(self, query: dict[str, Any], params: dict[str, str], start: int,
              size: int) -> list[dict[str, Any]]:
        body = {"query": query, "size": size, "from": start, "track_total_hits": False}
        resp = self.cluster.request("POST", index_path(self.target or self.index, "_search"),
                                    body, params or None)
        return list(resp["hits"]["hits"])

    def search(self, text: str, *, budget_tokens: int = DEFAULT_BUDGET,
               max_hits: int = DEFAULT_MAX_HITS, q: float | None = None) -> SearchResult:
        """The best hits for ``text`` whose texts fit ``budget_tokens`` together, at most
        ``max_hits`` of them. ``q`` overrides the q of a query-time index for this search."""
        text = check_query(text)
        budget = _whole("budget_tokens", budget_tokens, 1, MAX_BUDGET)
        limit = _whole("max_results", max_hits, 1, MAX_HITS)
        q_value = self._q(q)
        query, params = self.request(text, q_value)
        fields = self.fields
        hits: list[Hit] = []
        used, exhausted = 0, False
        while len(hits) < limit and used <= budget and not exhausted:
            size = _next_page(limit - len(hits), budget - used, used, len(hits))
            page = self._page(query, params, len(hits), size)
            exhausted = len(page) < size
            for h in page:
                source = h.get("_source") or {}
                body = hit_text(source, fields)
                hits.append(Hit(len(hits) + 1, str(h["_id"]), float(h["_score"]),
                                self.count(body), body, _metadata(source, fields)))
                used += hits[-1].tokens
        fitting = budget_prefix((h.tokens for h in hits), budget)
        kept = hits[:fitting]
        if fitting < len(hits):
            stopped, next_tokens = "budget", hits[fitting].tokens
        else:
            stopped, next_tokens = ("no more hits" if exhausted else "max_results"), None
        q_used = q_value if q_value is not None else self.ranking.q
        return SearchResult(self.index, self.ranking.method, q_used, budget,
                            sum(h.tokens for h in kept), stopped, next_tokens, kept)

    def fetch(self, doc_id: str) -> dict[str, Any]:
        """One document by the id a hit gave: its text, what it costs in tokens, and its
        whole ``_source``. Read through ``_search`` (an ids query), so the search privilege
        is enough."""
        if not isinstance(doc_id, str) or not doc_id:
            raise UsageError(f"the document id must be non-empty text, got {doc_id!r}")
        if len(doc_id.encode("utf-8")) > MAX_ID_BYTES:
            raise UsageError(f"a document id is at most {MAX_ID_BYTES} bytes; this one is "
                             f"{len(doc_id.encode('utf-8')):,}")
        resp = self.cluster.request("POST", index_path(self.target or self.index, "_search"),
                                    {"query": {"ids": {"values": [doc_id]}}, "size": 1})
        found = resp["hits"]["hits"]
        if not found:
            raise NotFoundError(f"no document with id {doc_id!r} in index {self.index!r}: "
                                "use an id from a search hit")
        source = found[0].get("_source") or {}
        body = hit_text(source, self.fields)
        return {"index": self.index, "id": str(found[0]["_id"]), "field": self.ranking.field,
                "fields": self.fields, "tokens": self.count(body), "text": body,
                "source": source}

    def describe(self) -> dict[str, Any]:
        """How the index is ranked, and with which token counter hits are measured."""
        return {**self.ranking.as_dict(), "token_counter": self.counter_name}
