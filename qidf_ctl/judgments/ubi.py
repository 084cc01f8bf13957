"""Search sessions from User Behavior Insights (UBI) data: what each search showed, in which
order, and which of its results were clicked (or fetched, by an agent).

The schema is OpenSearch's user-behavior-insights (``src/main/resources/queries-mapping.json``
and ``events-mapping.json``). What qidf reads of it:

===============================================  =============================================
UBI field                                        used as
===============================================  =============================================
``ubi_queries.query_id``                         the search (one session); required
``ubi_queries.user_query``                       the query text; events' ``user_query`` else
``ubi_queries.query_response_hit_ids``           the results shown, in rank order, when no
                                                 ``impression`` event says otherwise
``ubi_queries.timestamp`` (events' else)         the search's time: the split's order
``ubi_events.query_id``                          the search an event belongs to; required
``ubi_events.action_name``                       ``impression`` (a result shown), a click
                                                 action (``click``, ``fetch``, ...), or other
                                                 (counted, ignored)
``ubi_events.event_attributes.object.object_id`` the result: a document id (or the value of
                                                 ``object_id_field``, mapped with ``--id-field``)
``ubi_events.event_attributes.position.ordinal`` its rank, from 0 (UBI's own data generator and
                                                 qidf's recorder count from 0; ``ordinal_base``)
===============================================  =============================================

Input: exported JSON lines (each line a UBI document, a search hit holding one in
``_source``, or a ``_bulk`` action line followed by its document, which is what
``qidf mcp --record FILE`` writes: ``curl -XPOST _bulk --data-binary @FILE`` loads it into
a cluster's UBI indices), from a file or every ``*.jsonl``/``*.ndjson``/``*.json`` file of
a folder; or the cluster's ``ubi_queries`` and ``ubi_events`` indices. A document is a query
or an event by its index (``_index``, the file name), else by having an ``action_name``.

A malformed document is one usage error naming the file and line (or the index and document
id) and what a document must hold: never a judgment made from half-read data.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError, NotFoundError, UsageError

QUERIES_INDEX = "ubi_queries"
EVENTS_INDEX = "ubi_events"
IMPRESSION = "impression"
DEFAULT_CLICKS = ("click", "fetch")
SUFFIXES = (".jsonl", ".ndjson", ".json")
SCROLL_KEEP = "2m"
PAGE = 5000
_BULK_ACTIONS = ("index", "create")


@dataclass
class Session:
    """One search: its text, time, the results shown (rank order; rank = index + 1) and the
    results clicked."""

    query_id: str
    text: str | None = None
    time: float | None = None
    hit_ids: list[str] = field(default_factory=list)  # ubi_queries.query_response_hit_ids
    impressions: dict[int, str] = field(default_factory=dict)  # rank -> object id
    clicked: dict[str, int | None] = field(default_factory=dict)  # object id -> rank or None
    application: str | None = None

    def shown(self) -> list[str]:
        """The results in rank order: impression events where there are any, else the hit
        ids of the query."""
        if self.impressions:
            return [self.impressions[r] for r in sorted(self.impressions)]
        return list(dict.fromkeys(self.hit_ids))


@dataclass
class ReadCounts:
    """What reading the log saw, and what it set aside (never silently)."""

    queries: int = 0
    events: int = 0
    impressions: int = 0
    clicks: int = 0
    other_actions: int = 0  # events that are neither an impression nor a click
    events_without_query: int = 0  # an event whose query_id no query and no text explains
    other_application: int = 0  # filtered out by ``application``

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class Where:
    """Where a document came from, for messages: a file and line, or an index and id."""

    text: str

    def error(self, message: str) -> UsageError:
        return UsageError(f"{self.text}: {message}")


def _string(doc: dict[str, Any], key: str, where: Where, required: bool,
            numbers: bool = True) -> str | None:
    """``doc[key]`` as text (an id may be a number where ``numbers``)."""
    value = doc.get(key)
    if value is None:
        if required:
            raise where.error(f'no "{key}": a UBI {"event" if "action_name" in doc else "query"}'
                              f' needs one (see the judgments how-to for the schema)')
        return None
    if isinstance(value, bool) or not isinstance(value, str | int) or (
            not numbers and not isinstance(value, str)):
        raise where.error(f'"{key}" must be a string, got {textfile.kind_of(value)}')
    text = str(value)
    if required and not text.strip():
        raise where.error(f'"{key}" is empty')
    return text


def parse_time(value: Any, where: Where) -> float | None:
    """Epoch seconds from an ISO 8601 timestamp or epoch milliseconds (UBI's formats)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise where.error(f'"timestamp" must be ISO 8601 or epoch milliseconds, got '
                          f"{textfile.kind_of(value)}")
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise where.error('"timestamp" must be a finite number')
        return float(value) / 1000.0
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text) / 1000.0
        with contextlib.suppress(ValueError):
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
                    ).timestamp()
    raise where.error(f'"timestamp" must be ISO 8601 or epoch milliseconds, got '
                      f"{textfile.shown(value)}")


def _ordinal(attributes: dict[str, Any], where: Where) -> int | None:
    position = attributes.get("position")
    if position is None:
        return None
    if not isinstance(position, dict):
        raise where.error('"event_attributes.position" must be an object such as '
                          '{"ordinal": 0}')
    value = position.get("ordinal")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        raise where.error('"event_attributes.position.ordinal" must be a whole number from 0, '
                          f"got {textfile.kind_of(value)}")
    return value


def _object_id(attributes: dict[str, Any], where: Where) -> str:
    obj = attributes.get("object")
    if not isinstance(obj, dict):
        raise where.error('an impression or click needs "event_attributes.object" with '
                          'its "object_id"')
    value = obj.get("object_id")
    if value is None:
        value = obj.get("internal_id")
    if value is None or isinstance(value, bool) or not isinstance(value, str | int) \
            or not str(value).strip():
        raise where.error('"event_attributes.object.object_id" must be the id of the result, '
                          f"got {textfile.kind_of(value)}")
    return str(value)


class Log:
    """Sessions by query id, filled document by document."""

    def __init__(self, clicks: tuple[str, ...] = DEFAULT_CLICKS, ordinal_base: int = 0,
                 application: str | None = None) -> None:
        if ordinal_base not in (0, 1):
            raise UsageError(f"the ordinal base is 0 or 1, got {ordinal_base}")
        self.clicks = {c.strip().lower() for c in clicks if c.strip()}
        if not self.clicks:
            raise UsageError("name at least one click action (e.g. click)")
        self.base = ordinal_base
        self.application = application
        self.sessions: dict[str, Session] = {}
        self.counts = ReadCounts()

    def _session(self, query_id: str) -> Session:
        return self.sessions.setdefault(query_id, Session(query_id))

    def _skip_application(self, doc: dict[str, Any]) -> bool:
        if self.application is None:
            return False
        if doc.get("application") != self.application:
            self.counts.other_application += 1
            return True
        return False

    def add(self, doc: Any, kind: str | None, where: Where) -> None:
        """One UBI document; ``kind`` ("query", "event" or None: by its keys)."""
        if not isinstance(doc, dict):
            raise where.error(f"expected a UBI query or event (a JSON object), got "
                              f"{textfile.kind_of(doc)}")
        if kind is None:
            kind = "event" if "action_name" in doc else "query"
        if self._skip_application(doc):
            return
        if kind == "query":
            self._query(doc, where)
        else:
            self._event(doc, where)

    def _query(self, doc: dict[str, Any], where: Where) -> None:
        query_id = _string(doc, "query_id", where, True)
        assert query_id is not None
        session = self._session(query_id)
        self.counts.queries += 1
        session.text = _string(doc, "user_query", where, False) or session.text
        session.time = parse_time(doc.get("timestamp"), where) or session.time
        session.application = doc.get("application") or session.application
        hits = doc.get("query_response_hit_ids")
        if hits is not None:
            if isinstance(hits, str | int) and not isinstance(hits, bool):
                hits = [hits]
            if not isinstance(hits, list) or not all(
                    isinstance(h, str | int) and not isinstance(h, bool) for h in hits):
                raise where.error('"query_response_hit_ids" must be a list of result ids')
            session.hit_ids = [str(h) for h in hits]

    def _event(self, doc: dict[str, Any], where: Where) -> None:
        self.counts.events += 1
        action = _string(doc, "action_name", where, True, numbers=False)
        assert action is not None
        action = action.strip().lower()
        if action != IMPRESSION and action not in self.clicks:
            self.counts.other_actions += 1
            return
        attributes = doc.get("event_attributes")
        if not isinstance(attributes, dict):
            raise where.error(f'a {action} event needs "event_attributes" with the result\'s '
                              '"object" and "position"')
        object_id = _object_id(attributes, where)
        ordinal = _ordinal(attributes, where)
        query_id = _string(doc, "query_id", where, False)
        if query_id is None or not query_id.strip():
            self.counts.events_without_query += 1
            return
        session = self._session(query_id)
        if session.text is None:
            session.text = _string(doc, "user_query", where, False)
        if session.time is None:
            session.time = parse_time(doc.get("timestamp"), where)
        rank = None if ordinal is None else ordinal + 1 - self.base
        if rank is not None and rank < 1:
            raise where.error(f'"event_attributes.position.ordinal" {ordinal} is below the '
                              f"ordinal base {self.base}")
        if action == IMPRESSION:
            self.counts.impressions += 1
            if rank is None:
                raise where.error('an impression needs "event_attributes.position.ordinal" '
                                  "(its rank, from 0)")
            session.impressions[rank] = object_id
        else:
            self.counts.clicks += 1
            if session.clicked.get(object_id) is None:
                session.clicked[object_id] = rank


def _records(file: textfile.TextFile) -> Iterator[tuple[Any, str | None, Where]]:
    """(document, its index or None, where) of every line of an exported file: a document,
    a search hit (``_source``), or a bulk action line and the document after it."""
    pending_index: str | None = None
    pending_action = False
    for lineno, line in file.lines():
        if not line.strip():
            continue
        where = Where(f"{file.what} {file.path}, line {lineno}")
        try:
            row = textfile.loads_json(line)
        except ValueError as exc:
            raise where.error(f"not valid JSON: {exc}; expected one UBI document a line") \
                from None
        if pending_action:
            pending_action = False
            yield row, pending_index, where
            continue
        if isinstance(row, dict) and len(row) == 1 and next(iter(row)) in _BULK_ACTIONS:
            meta = next(iter(row.values()))
            pending_index = meta.get("_index") if isinstance(meta, dict) else None
            pending_action = True
            continue
        if isinstance(row, dict) and isinstance(row.get("_source"), dict):
            yield row["_source"], row.get("_index"), where
            continue
        yield row, None, where
    if pending_action:
        raise file.error("the last line is a _bulk action with no document after it")


def _kind(index: str | None, path: Path) -> str | None:
    name = (index or "").lower() or path.name.lower()
    if "event" in name:
        return "event"
    if "quer" in name:
        return "query"
    return None


def _files(source: Path) -> list[Path]:
    if source.is_dir():
        found = sorted(p for p in source.iterdir() if p.is_file() and p.suffix in SUFFIXES)
        if not found:
            raise UsageError(f"UBI folder {source} holds no {'/'.join(SUFFIXES)} file")
        return found
    return [source]


def read_files(source: str | Path, log: Log) -> list[Path]:
    """Every UBI document of ``source`` (a file or a folder of them) into ``log``."""
    path = Path(source).expanduser()
    if not path.exists():
        raise NotFoundError(f"UBI log {source}: no such file or folder")
    files = _files(path)
    for file in files:
        text = textfile.read(file, "UBI log")
        for doc, index, where in _records(text):
            log.add(doc, _kind(index, file), where)
    return files


def read_cluster(cluster: Cluster, log: Log, queries_index: str = QUERIES_INDEX,
                 events_index: str = EVENTS_INDEX) -> None:
    """The cluster's UBI indices into ``log``: every query, then every event (a scroll
    each, cleared at the end whatever happens)."""
    for index, kind in ((queries_index, "query"), (events_index, "event")):
        try:
            for hit in _scroll(cluster, index):
                log.add(hit.get("_source"), kind,
                        Where(f"index {index}, document {hit.get('_id')!r}"))
        except ClusterError as exc:
            if exc.status == 404:
                raise NotFoundError(f"the cluster has no {index!r} index: is User Behavior "
                                    "Insights (or `qidf mcp --record ubi:`) writing there?") \
                    from None
            raise


def _scroll(cluster: Cluster, index: str) -> Iterator[dict[str, Any]]:
    body = {"size": PAGE, "sort": ["_doc"], "query": {"match_all": {}}}
    resp = cluster.request("POST", index_path(index, "_search"), body, {"scroll": SCROLL_KEEP})
    scroll_id = resp.get("_scroll_id")
    try:
        while resp["hits"]["hits"]:
            yield from resp["hits"]["hits"]
            resp = cluster.request("POST", "/_search/scroll",
                                   {"scroll": SCROLL_KEEP, "scroll_id": scroll_id})
            scroll_id = resp.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            with contextlib.suppress(ClusterError):
                cluster.request("DELETE", "/_search/scroll", {"scroll_id": [scroll_id]})
