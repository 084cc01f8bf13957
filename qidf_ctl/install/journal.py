"""The journal of an operation in flight: written before the first change to an index, so
that whoever comes next (this run after a signal, or another run after a crash) knows what
was being done and can finish or roll it back.

It holds the intent (operation, strategy, old and new similarity settings, the old ``_meta``
and the one to write, for a clone the target index and the aliases to move, and when the
index's default search pipeline changes too, both ends of that: ``pipeline.StatsSide``; the
statistics snapshot taken or dropped: ``snapshot.SnapshotPart``) and
the last step reached. Recovery decides from what it observes on the cluster, using the journal for
the values only, so a step that happened but was not yet journaled is handled too.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from qidf_ctl.cluster.names import state_doc_id
from qidf_ctl.errors import ConflictError
from qidf_ctl.install.store import Doc, StaleWrite, StateStore

JOURNALED = "journaled"


@dataclass
class Journal:
    key: str  # the lease key: the name clients use (a clone's public name)
    run_id: str
    operation: str  # "apply" | "revert"
    strategy: str  # "close" | "clone"
    index: str  # the concrete index changed (for a clone: the source)
    index_uuid: str
    old: dict[str, Any]  # index.similarity.default.* before, keys relative to that prefix
    new: dict[str, Any]  # ... and after
    had_meta: bool  # whether the mapping had a _meta object before
    old_meta: dict[str, Any]
    new_meta: dict[str, Any]  # written only once the settings change succeeded
    owner: dict[str, Any] = field(default_factory=dict)
    target: str | None = None  # clone: the index the clone creates
    aliases: dict[str, dict[str, Any]] = field(default_factory=dict)  # clone: moved aliases
    replace_name: bool = False  # clone: the source's name becomes an alias of the target
    replicas: dict[str, Any] = field(default_factory=dict)  # clone: replica settings to keep
    pipeline: str | None = None  # qidf's search pipeline, when the statistics part changes
    stats_old: dict[str, Any] | None = None  # StatsSide before ...
    stats_new: dict[str, Any] | None = None  # ... and after (None: that part is unchanged)
    snapshot: dict[str, Any] | None = None  # snapshot.SnapshotPart: taken or dropped
    step: str = JOURNALED
    history: list[list[Any]] = field(default_factory=list)
    started_at: float = field(default_factory=time.time)
    doc: Doc | None = field(default=None, repr=False, compare=False)

    @property
    def doc_id(self) -> str:
        return journal_id(self.key)

    def source(self) -> dict[str, Any]:
        body = {k: v for k, v in asdict(self).items() if k != "doc"}
        return {"kind": "journal", "key": self.key, "run_id": self.run_id, "body": body}

    @classmethod
    def from_doc(cls, doc: Doc) -> Journal:
        body = dict(doc.source.get("body", {}))
        body.pop("doc", None)
        journal = cls(**body)
        journal.doc = doc
        return journal

    def describe(self) -> str:
        started = datetime.fromtimestamp(self.started_at, timezone.utc).isoformat(
            timespec="seconds")
        who = self.owner.get("command") or "qidf"
        host = self.owner.get("host", "?")
        return (f"a qidf {self.operation} (--strategy {self.strategy}, run {self.run_id}, "
                f"{who!r} on {host}, started {started}) stopped after step '{self.step}'")


def journal_id(key: str) -> str:
    return state_doc_id("journal", key)


def load(store: StateStore, key: str) -> Journal | None:
    doc = store.get(journal_id(key))
    return Journal.from_doc(doc) if doc else None


def start(store: StateStore, journal: Journal) -> Journal:
    """Write the intent before the first change. Only one journal per key can exist: a
    leftover one means an interrupted operation that must be recovered first."""
    journal.history = [[journal.step, time.time()]]
    try:
        journal.doc = store.create(journal.doc_id, journal.source())
    except StaleWrite:
        raise ConflictError(
            f"{journal.key} has an interrupted qidf operation: run `qidf recover "
            f"{journal.key}` first") from None
    return journal


def advance(store: StateStore, journal: Journal, step: str) -> Journal:
    """Record that ``step`` is done."""
    assert journal.doc is not None, "journal not started"
    journal.step = step
    journal.history.append([step, time.time()])
    try:
        journal.doc = store.replace(journal.doc, journal.source())
    except StaleWrite:
        raise ConflictError(
            f"the journal of {journal.key} was changed by another run (qidf recover?) while "
            "this one was working; stopping") from None
    return journal


def finish(store: StateStore, journal: Journal) -> None:
    """The operation is complete (or rolled back): nothing left to recover."""
    if journal.doc is not None:
        store.delete(journal.doc)
        journal.doc = None
