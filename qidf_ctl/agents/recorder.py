"""What an agent searched and which hits it then fetched, recorded in the User Behavior
Insights schema (``qidf mcp --record DEST``), so that ``qidf judgments ubi`` and ``apply
--judgments`` can learn q from it.

An agent that calls ``fetch_document`` on a hit after ``search_code`` says which hit served,
as a click does. Each search becomes one UBI query (``query_id``, the query text as the agent
sent it, the ids returned in rank order as ``query_response_hit_ids``, a timestamp, the
server's ``client_id``) and one ``impression`` event per hit returned (its id and rank); each
fetch becomes a ``fetch`` event on the most recent search that showed the document (its rank
in that search), or, when none did, on the latest search of that index with no rank (the
reader sets such a fetch aside, counted).

Never recorded: document text (ids and ranks only), credentials or any connection setting,
the cluster's URL; the query text goes through the same redaction as every output, so a
secret qidf knows cannot leak through a query an agent pasted it into. Recording is opt-in
and a failed write never fails the agent's call: one warning on stderr, and the tool answers
as it would without recording.

DEST: a file (``_bulk`` NDJSON, appended: ``curl -XPOST _bulk --data-binary @FILE`` loads it
into a cluster's UBI indices, and ``qidf judgments ubi FILE`` reads it as it is), or ``ubi:``
for the cluster's ``ubi_queries`` and ``ubi_events`` indices (created with the UBI mapping
when missing; index privileges on both are needed).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from qidf_ctl.agents.retrieval import Retrieval, SearchResult
from qidf_ctl.cluster import Cluster, index_path, redact
from qidf_ctl.errors import ClusterError, UsageError

QUERIES_INDEX = "ubi_queries"
EVENTS_INDEX = "ubi_events"
UBI_PREFIX = "ubi:"
APPLICATION = "qidf-mcp"
FETCH = "fetch"
IMPRESSION = "impression"
RECENT = 100  # searches remembered per index to place a fetch

# The UBI mapping (opensearch-project/user-behavior-insights, src/main/resources), for
# indices qidf creates when the plugin has not: the fields qidf writes and the reader reads.
_KEYWORD = {"type": "keyword", "ignore_above": 256}
QUERIES_MAPPING = {"dynamic": False, "properties": {
    "timestamp": {"type": "date"}, "query_id": _KEYWORD, "user_query": {"type": "keyword"},
    "query_response_id": _KEYWORD, "query_response_hit_ids": {"type": "keyword"},
    "client_id": _KEYWORD, "application": _KEYWORD,
    "query_attributes": {"type": "object", "enabled": False}}}
EVENTS_MAPPING = {"properties": {
    "application": _KEYWORD, "action_name": _KEYWORD, "client_id": _KEYWORD,
    "query_id": _KEYWORD, "session_id": _KEYWORD, "message_type": _KEYWORD,
    "timestamp": {"type": "date"},
    "event_attributes": {"properties": {
        "position": {"properties": {"ordinal": {"type": "integer"}}},
        "object": {"properties": {"object_id": _KEYWORD, "object_id_field": _KEYWORD}}}}}}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Sink:
    """Where UBI documents go: ``write`` takes (index, document) pairs, atomically."""

    def write(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        return None

    def describe(self) -> str:
        raise NotImplementedError


class FileSink(Sink):
    """``_bulk`` NDJSON appended to a file, one flushed write per call."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        try:
            self.handle: TextIO = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise UsageError(f"--record {path}: cannot write it ({exc.strerror or exc})") \
                from None

    def write(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        text = "".join(json.dumps({"index": {"_index": index}}) + "\n"
                       + json.dumps(doc, ensure_ascii=False) + "\n" for index, doc in docs)
        self.handle.write(text)
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()

    def describe(self) -> str:
        return f"file {self.path}"


class ClusterSink(Sink):
    """The cluster's UBI indices, one ``_bulk`` call per tool call."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        for index, mapping in ((QUERIES_INDEX, QUERIES_MAPPING), (EVENTS_INDEX, EVENTS_MAPPING)):
            try:
                cluster.request("PUT", index_path(index), {"mappings": mapping})
            except ClusterError as exc:
                if exc.error_type != "resource_already_exists_exception":
                    raise

    def write(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        lines = "".join(json.dumps({"index": {"_index": index}}) + "\n"
                        + json.dumps(doc, ensure_ascii=False) + "\n" for index, doc in docs)
        resp = self.cluster.request("POST", "/_bulk", lines)
        if resp.get("errors"):
            first = next(i for i in resp["items"] if "error" in next(iter(i.values())))
            raise ClusterError(f"recording into the UBI indices failed: "
                               f"{next(iter(first.values()))['error']}")

    def describe(self) -> str:
        return f"the cluster's {QUERIES_INDEX} and {EVENTS_INDEX} indices"


def check_dest(dest: str) -> str:
    """``dest`` if it names a file qidf can append to, or ``ubi:``; checked before anything
    connects."""
    if not dest.strip():
        raise UsageError("--record is empty: give a file or ubi:")
    if dest == UBI_PREFIX:
        return dest
    if dest.startswith(UBI_PREFIX):
        raise UsageError(f"--record {dest}: write ubi: for the cluster's {QUERIES_INDEX} and "
                         f"{EVENTS_INDEX} indices (their names are fixed)")
    path = Path(dest).expanduser()
    if path.is_dir():
        raise UsageError(f"--record {dest} is a folder: give a file (it is appended to)")
    if not path.parent.is_dir():
        raise UsageError(f"--record {dest}: the folder {path.parent} does not exist")
    return dest


def open_sink(dest: str, connect: Callable[[], Cluster]) -> Sink:
    """``dest`` (a file, or ``ubi:``) as a sink, opened before the server starts."""
    if check_dest(dest) == UBI_PREFIX:
        return ClusterSink(connect())
    return FileSink(dest)


@dataclass
class _Shown:
    query_id: str
    ranks: dict[str, int]  # document id -> rank (from 1)


class Recorder:
    """Turns searches and fetches into UBI documents, for one server run (one session)."""

    def __init__(self, sink: Sink, warn: Callable[[str], None] = lambda _: None) -> None:
        self.sink = sink
        self.session_id = str(uuid.uuid4())
        self.client_id = f"{APPLICATION}-{self.session_id[:8]}"
        self.warn = warn
        self._lock = threading.Lock()
        self._recent: dict[str, deque[_Shown]] = {}
        self._warned = False
        self.written = 0

    def _write(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        try:
            self.sink.write(docs)
            self.written += len(docs)
        except Exception as exc:  # recording must never fail the agent's call
            if not self._warned:
                self._warned = True
                self.warn(f"warning: recording to {self.sink.describe()} failed, the tools go "
                          f"on without it: {redact(' '.join(str(exc).split()))}")

    def _event(self, action: str, query_id: str, doc_id: str, rank: int | None,
               index: str) -> dict[str, Any]:
        attributes: dict[str, Any] = {"object": {"object_id": doc_id, "object_id_field": "_id"}}
        if rank is not None:
            attributes["position"] = {"ordinal": rank - 1}
        return {"application": APPLICATION, "action_name": action, "query_id": query_id,
                "session_id": self.session_id, "client_id": self.client_id,
                "timestamp": _now(), "message_type": "AGENT", "message": index,
                "event_attributes": attributes}

    def searched(self, index: str, text: str, result: SearchResult) -> None:
        """A search and the hits it returned, in rank order."""
        query_id = str(uuid.uuid4())
        ids = [hit.id for hit in result.hits]
        query = {"query_id": query_id, "user_query": redact(text), "timestamp": _now(),
                 "client_id": self.client_id, "application": APPLICATION,
                 "query_response_hit_ids": ids,
                 "query_attributes": {"index": index, "method": result.method, "q": result.q,
                                      "session_id": self.session_id}}
        docs = [(QUERIES_INDEX, query)]
        docs += [(EVENTS_INDEX, self._event(IMPRESSION, query_id, doc, rank, index))
                 for rank, doc in enumerate(ids, 1)]
        with self._lock:
            recent = self._recent.setdefault(index, deque(maxlen=RECENT))
            recent.append(_Shown(query_id, {doc: rank for rank, doc in enumerate(ids, 1)}))
            self._write(docs)

    def fetched(self, index: str, doc_id: str) -> None:
        """A fetch, on the most recent search of ``index`` that showed ``doc_id``."""
        with self._lock:
            recent = self._recent.get(index)
            if not recent:
                return  # a fetch before any search judges nothing
            shown = next((s for s in reversed(recent) if doc_id in s.ranks), recent[-1])
            event = self._event(FETCH, shown.query_id, doc_id, shown.ranks.get(doc_id), index)
            self._write([(EVENTS_INDEX, event)])

    def close(self) -> None:
        self.sink.close()


class RecordingRetrieval(Retrieval):
    """A ``Retrieval`` that tells a ``Recorder`` what it searched and fetched; everything else
    is the wrapped retrieval's own (its state is shared, not copied)."""

    def __init__(self, inner: Retrieval, recorder: Recorder) -> None:
        self.__dict__.update(inner.__dict__)
        self._recorder = recorder

    def search(self, text: str, **kwargs: Any) -> SearchResult:
        result = super().search(text, **kwargs)
        self._recorder.searched(self.index, text, result)
        return result

    def fetch(self, doc_id: str) -> dict[str, Any]:
        found = super().fetch(doc_id)
        self._recorder.fetched(self.index, str(found.get("id", doc_id)))
        return found


def recording(retrievals: Mapping[str, Retrieval], recorder: Recorder | None
              ) -> dict[str, Retrieval]:
    """``retrievals`` whose searches and fetches ``recorder`` records (as they are, without)."""
    if recorder is None:
        return dict(retrievals)
    return {name: RecordingRetrieval(r, recorder) for name, r in retrievals.items()}
