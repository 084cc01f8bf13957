"""The desired state once validated: connection profiles (``cluster/profiles.py``, shared
with the user's config file), and targets with the similarity each must have. Plain values,
so a plan can carry them and a test can build them by hand."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl.cluster.profiles import Profile
from qidf_ctl.similarity import QlogParams
from qidf_ctl.similarity.params import form_note

COMMAND_LINE = "(command line)"  # the cluster of targets that name no profile

__all__ = ["COMMAND_LINE", "DesiredState", "Profile", "Similarity", "Target"]


@dataclass(frozen=True)
class Similarity:
    """The similarity a target asks for; ``q is None`` means auto (with ``predictor``)."""

    q: float | None
    predictor: str | None = None
    k1: float = 1.2
    b: float = 0.75
    form: str = "lucene"
    mode: str = "auto"
    strategy: str = "close"
    field: str | None = None
    sample: int | None = None
    queries_are: str | None = None  # auto: "code" or "text", stated in the file
    stats: str = "auto"
    judgments: str | None = None  # auto: the judged queries that decide (a path or ubi:)
    fields: tuple[tuple[str, float], ...] = ()  # templates: a q of their own for these fields

    @property
    def field_qs(self) -> dict[str, float]:
        return dict(self.fields)

    @property
    def auto(self) -> bool:
        return self.q is None

    def params(self, q: float | None = None) -> QlogParams:
        """The parameters with ``q`` (the predicted one when auto)."""
        chosen = self.q if q is None else q
        if chosen is None:
            raise ValueError("auto similarity needs the predicted q")
        return QlogParams(chosen, self.k1, self.b, self.form)  # type: ignore[arg-type]

    def describe(self) -> str:
        q = f"auto ({self.predictor})" if self.auto else f"{self.q:g}"
        if self.queries_are:
            q += f" queries_are={self.queries_are}"
        if self.judgments:
            q += f" judgments={self.judgments}"
        own = "".join(f" {f}={v:g}" for f, v in self.fields)
        return (f"q={q} k1={self.k1:g} b={self.b:g}{form_note(self.form)} mode={self.mode} "
                f"stats={self.stats}" + (f" fields:{own}" if own else ""))

    def as_dict(self) -> dict[str, Any]:
        found = {k: v for k, v in asdict(self).items() if v is not None}
        found["fields"] = self.field_qs or None
        return {k: v for k, v in found.items() if v is not None}


@dataclass(frozen=True)
class Target:
    """One ``[[target]]``: what it names and the similarity it must have."""

    number: int  # 1-based position in the file, for messages and the plan's order
    kind: str  # one of spec.SELECTORS
    name: str
    similarity: Similarity
    cluster: str | None = None
    existing: bool = True
    rollover: bool = False
    patterns: tuple[str, ...] = ()
    priority: int = 100
    data_stream: bool = False

    @property
    def label(self) -> str:
        return f"target {self.number} ({self.kind} {self.name})"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["similarity"] = self.similarity.as_dict()
        data["patterns"] = list(self.patterns)
        return data


@dataclass(frozen=True)
class DesiredState:
    """A validated desired-state file."""

    source: str  # the file's path ("" when built in code)
    sha256: str
    targets: tuple[Target, ...]
    profiles: dict[str, Profile] = field(default_factory=dict)

    @property
    def base_dir(self) -> Path:
        return Path(self.source).parent if self.source else Path.cwd()

    def clusters(self) -> list[str | None]:
        """The clusters the targets use, in first-use order (None: the command line's)."""
        seen: list[str | None] = []
        for target in self.targets:
            if target.cluster not in seen:
                seen.append(target.cluster)
        return seen
