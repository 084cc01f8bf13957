"""A plan's items and the plan itself: plain data that prints, saves as JSON and loads
back, so a saved plan can be applied later exactly as it was reviewed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.desired.kinds import (  # noqa: F401  (re-exported: the plan's words)
    CREATE,
    DATA_STREAM,
    INDEX,
    NONE,
    PLAN_FORMAT,
    REVERT,
    ROLLOVER,
    UPDATE,
)
from qidf_ctl.desired.templates import COMPONENT_TEMPLATE, INDEX_TEMPLATE
from qidf_ctl.errors import UsageError
from qidf_ctl.install import SimilarityState
from qidf_ctl.install.pipeline import SETTING as SEARCH_PIPELINE
from qidf_ctl.similarity import QlogParams


def fingerprint(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class PlanItem:
    """One index, template or data stream: what it has, what it will have, and how."""

    cluster: str | None
    kind: str  # index, index_template, component_template, data_stream
    name: str
    target: str  # the file's target that reaches it
    action: str  # none, update, create, rollover, revert
    strategy: str  # close, clone or reopen for indices; none for templates and rollovers
    mode: str
    before: str
    after: str
    reason: str = ""  # why it changes; "" when in sync
    params: dict[str, Any] | None = None  # what will be installed (None: auto not measured,
    # or nothing installed: in sync at q = 1, or a revert)
    field: str | None = None
    settings_diff: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    meta_diff: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    prediction: dict[str, Any] | None = None  # auto: the record apply writes, statistics too
    body: dict[str, Any] | None = None  # templates: the body apply PUTs
    fingerprint: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    stats: str = ""  # indices: index, snapshot or shard, what apply gives it ("" before 0.3)
    stats_before: str = ""
    stats_only: bool = False  # only the default search pipeline and the record change

    @property
    def changes(self) -> bool:
        return self.action != NONE

    @property
    def key(self) -> tuple[str | None, str, str]:
        return (self.cluster, self.kind, self.name)

    def qlog_params(self) -> QlogParams:
        if self.params is None:
            raise UsageError(f"{self.kind} {self.name}: q was not predicted in this plan "
                             "(made by check?): run qidf plan")
        return QlogParams(**self.params)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Plan:
    """Every item the file reaches, in the order apply takes them."""

    source: str
    sha256: str
    items: list[PlanItem]
    profiles: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    clusters: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)
    created_at: str = ""
    qidf_version: str = __version__
    measured: bool = True

    @property
    def changes(self) -> list[PlanItem]:
        return [i for i in self.items if i.changes]

    def summary(self) -> dict[str, int]:
        changes = self.changes
        return {
            "items": len(self.items),
            "in_sync": len(self.items) - len(changes),
            "to_change": len(changes),
            "close": sum(1 for i in changes if i.kind == INDEX and i.strategy == "close"
                       and not i.stats_only),
            "clone": sum(1 for i in changes if i.kind == INDEX and i.strategy == "clone"
                       and not i.stats_only),
            "reopen": sum(1 for i in changes if i.kind == INDEX and i.strategy == "reopen"
                       and not i.stats_only),
            "pipelines": sum(1 for i in changes if i.stats_only),
            "templates": sum(1 for i in changes if i.kind in (INDEX_TEMPLATE,
                                                             COMPONENT_TEMPLATE)),
            "rollovers": sum(1 for i in changes if i.action == ROLLOVER),
        }

    def as_dict(self) -> dict[str, Any]:
        return {"format": PLAN_FORMAT, "source": self.source, "sha256": self.sha256,
                "created_at": self.created_at, "qidf_version": self.qidf_version,
                "measured": self.measured, "profiles": self.profiles,
                "clusters": self.clusters, "notes": self.notes, "summary": self.summary(),
                "items": [i.as_dict() for i in self.items]}


def index_fingerprint(state: SimilarityState) -> str:
    found = {"index": state.index, "status": state.status, "settings": state.similarity_flat,
             "record": state.record}
    pipeline = state.description.settings.get(SEARCH_PIPELINE)
    if pipeline is not None:
        found["search_pipeline"] = pipeline
    return fingerprint(found)
