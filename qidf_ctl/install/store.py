"""qidf's state in the cluster itself: one small hidden index holding a lease document per
index being changed and a journal document per operation in flight.

State lives in the cluster because CI runners are ephemeral: the run that recovers an
interrupted apply is usually on another machine than the run that was killed. Every write is
conditional (``op_type=create``, or ``if_seq_no`` / ``if_primary_term``), so the engine, not
qidf, decides who wins a race.

The index is qidf's by ``ownership``'s rules: qidf writes an owner document into it when it
creates it, and writes nothing into an index of that name without one (an earlier qidf's,
recognised by its settings, gets the document; anyone else's is refused).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, index_path, segment
from qidf_ctl.cluster.names import STATE_INDEX
from qidf_ctl.errors import ClusterError
from qidf_ctl.install import ownership

# Variable content (settings, user _meta, aliases) sits under ``body``, which the engine
# stores but never parses into the mapping: any key a user's _meta holds is safe there.
STATE_MAPPING = {
    "dynamic": False,
    "properties": {
        "kind": {"type": "keyword"},
        "key": {"type": "keyword"},
        "run_id": {"type": "keyword"},
        "expires_at": {"type": "double"},
        "body": {"type": "object", "enabled": False},
    },
}
STATE_SETTINGS = {"index": {"number_of_shards": 1, "auto_expand_replicas": "0-1",
                            "hidden": True}}


OWNER_DOC = "owner:qidf-state"  # the marker: qidf made this index (ownership.py)
OWNER_SOURCE = {"kind": "owner", "key": "qidf", "body": {
    "owner": "qidf", "holds": "leases and journals of qidf's changes to indices"}}


class StaleWrite(Exception):
    """A conditional write lost: the document changed (or vanished) since it was read."""


@dataclass
class Doc:
    id: str
    source: dict[str, Any]
    seq_no: int
    primary_term: int


class StateStore:
    """Conditional reads and writes of qidf's state documents."""

    def __init__(self, cluster: Cluster, index: str = STATE_INDEX) -> None:
        self.cluster = cluster
        self.index = index

    def _doc_path(self, api: str, doc_id: str) -> str:
        return index_path(self.index, api, segment(doc_id))

    def exists(self) -> bool:
        try:
            self.cluster.request("GET", index_path(self.index, "_settings", "index.uuid"),
                                 params={"expand_wildcards": "all"})
        except ClusterError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def ensure(self) -> None:
        """Create the state index if it is missing (a concurrent creator is fine), marked as
        qidf's; refuse one of that name that is not qidf's (``ConflictError``)."""
        try:
            if self.get(OWNER_DOC) is not None:
                return
        except ClusterError as exc:
            if exc.status not in (401, 403):
                raise
        if not self.exists():
            try:
                self.cluster.request("PUT", index_path(self.index),
                                     {"settings": STATE_SETTINGS, "mappings": STATE_MAPPING})
            except ClusterError as exc:
                if "already_exists" not in exc.error_type:
                    raise
        elif not self._made_by_qidf():
            ownership.check_owner("state index", self.index, None, "qidf",
                                  "qidf keeps its leases and journals there: rename or delete "
                                  "that index (or move it away with _clone and an alias)")
        with contextlib.suppress(StaleWrite):
            self.create(OWNER_DOC, OWNER_SOURCE)

    def _made_by_qidf(self) -> bool:
        """An index of this name without the owner document: qidf's own (made before the
        document existed) when its mapping and settings are the ones qidf creates."""
        try:
            found: dict[str, Any] = self.cluster.request("GET", index_path(self.index,
                                                                        "_settings"),
                                         params={"flat_settings": "true",
                                                 "expand_wildcards": "all"})
        except ClusterError as exc:
            if exc.status in (401, 403):
                return True  # cannot tell: as before ownership markers (the lease is refused)
            raise
        body: dict[str, Any] = next(iter((found or {}).values()), {}) or {}
        flat = body.get("settings") or {}
        return (str(flat.get("index.hidden")).lower() == "true"
                and str(flat.get("index.number_of_shards")) == "1"
                and str(flat.get("index.auto_expand_replicas")) == "0-1")

    def get(self, doc_id: str) -> Doc | None:
        """The document, or None when it (or the whole state index) does not exist."""
        try:
            resp = self.cluster.request("GET", self._doc_path("_doc", doc_id))
        except ClusterError as exc:
            if exc.status == 404:
                return None
            raise
        if not resp.get("found"):
            return None
        return Doc(doc_id, resp["_source"], int(resp["_seq_no"]), int(resp["_primary_term"]))

    def create(self, doc_id: str, source: dict[str, Any]) -> Doc:
        """Create the document; StaleWrite when one with this id exists already."""
        try:
            resp = self.cluster.request("PUT", self._doc_path("_create", doc_id), source)
        except ClusterError as exc:
            if exc.status == 409:
                raise StaleWrite(doc_id) from None
            raise
        return Doc(doc_id, source, int(resp["_seq_no"]), int(resp["_primary_term"]))

    def replace(self, doc: Doc, source: dict[str, Any]) -> Doc:
        """Overwrite ``doc`` if nobody changed it since it was read; else StaleWrite."""
        try:
            resp = self.cluster.request(
                "PUT", self._doc_path("_doc", doc.id), source,
                {"if_seq_no": str(doc.seq_no), "if_primary_term": str(doc.primary_term)})
        except ClusterError as exc:
            if exc.status in (404, 409):
                raise StaleWrite(doc.id) from None
            raise
        return Doc(doc.id, source, int(resp["_seq_no"]), int(resp["_primary_term"]))

    def delete(self, doc: Doc) -> bool:
        """Delete ``doc`` if it is still the version read; False when it changed or is gone."""
        try:
            self.cluster.request(
                "DELETE", self._doc_path("_doc", doc.id), None,
                {"if_seq_no": str(doc.seq_no), "if_primary_term": str(doc.primary_term)})
        except ClusterError as exc:
            if exc.status in (404, 409):
                return False
            raise
        return True
