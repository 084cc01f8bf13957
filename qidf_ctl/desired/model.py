"""The desired state once validated: connection profiles, and targets with the similarity
each must have. Plain values, so a plan can carry them and a test can build them by hand."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl.cluster import ConnectionSettings
from qidf_ctl.errors import UsageError
from qidf_ctl.similarity import QlogParams

COMMAND_LINE = "(command line)"  # the cluster of targets that name no profile


@dataclass(frozen=True)
class Profile:
    """A ``[clusters.NAME]`` table: where a cluster is and where its secrets are read from.
    Paths are absolute (resolved against the file's folder when loaded)."""

    name: str
    url: str | None = None
    url_env: str | None = None
    user: str | None = None
    user_env: str | None = None
    password_env: str | None = None
    password_file: str | None = None
    api_key_env: str | None = None
    api_key_file: str | None = None
    ca_certs: str | None = None
    insecure: bool = False

    def _env(self, variable: str | None, what: str) -> str | None:
        if variable is None:
            return None
        value = os.environ.get(variable)
        if not value:
            raise UsageError(f"cluster profile {self.name!r} reads its {what} from the "
                             f"environment variable {variable}, which is not set")
        return value

    def settings(self) -> ConnectionSettings:
        """Connection settings, secrets read now (from the environment or files)."""
        url = self.url or self._env(self.url_env, "URL")
        if not url:
            raise UsageError(f"cluster profile {self.name!r} has no url (give url or url_env)")
        return ConnectionSettings.from_options(
            url, self.user or self._env(self.user_env, "user"),
            self._env(self.password_env, "password"), self.password_file,
            self._env(self.api_key_env, "API key"), self.api_key_file, self.ca_certs,
            self.insecure)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, False)}


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
    stats: str = "auto"

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
        return (f"q={q} form={self.form} k1={self.k1:g} b={self.b:g} mode={self.mode} "
                f"stats={self.stats}")

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


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
