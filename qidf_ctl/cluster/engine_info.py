"""Which engine and version a cluster runs, and what that means for BM25's default."""

from __future__ import annotations

from dataclasses import dataclass

from qidf_ctl.engine.config import parse_engine


@dataclass(frozen=True)
class EngineInfo:
    """Which engine and version answered, from ``GET /``."""

    distribution: str  # "opensearch" or "elasticsearch"
    version: str

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def default_is_legacy_bm25(self) -> bool:
        """Elasticsearch and OpenSearch < 3 score with Lucene BM25 times (k1 + 1)."""
        return not (self.distribution == "opensearch" and self.major >= 3)

    def __str__(self) -> str:
        name = "OpenSearch" if self.distribution == "opensearch" else "Elasticsearch"
        return f"{name} {self.version}"

    @property
    def spelling(self) -> str:
        """The one way commands write an engine: ``opensearch-2.19.6``."""
        return f"{self.distribution}-{self.version}"

    @classmethod
    def parse(cls, text: str) -> EngineInfo:
        """``opensearch-2.19.6`` / ``elasticsearch-8.19.21`` (also ``os-``/``es-``; a bare
        name means that engine's default version)."""
        return cls(*parse_engine(text))
