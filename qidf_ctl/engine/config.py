"""The local engine's settings: every default version, port and environment variable, once.

Each setting has an environment variable for scripts and CI; options given on the command
line win over them. Everything of one node lives in one folder: ``<home>/node-<port>/``
holds ``data/``, ``logs/``, ``config/`` and ``node.json`` (pid, url, version).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.errors import EngineError, UsageError

DEFAULT_VERSION = "2.19.6"  # OpenSearch: the tested default
DEFAULT_ES_VERSION = "8.19.21"  # Elasticsearch (integ-test distribution: plugin path only)
DEFAULT_PORT = 9200
DEFAULT_HEAP = "1g"
RUN_AS_WHEN_ROOT = "nobody"
FLAVOR_NAMES = ("opensearch", "elasticsearch")

# Environment variables, option -> variable (also shown in --help).
ENV_HOME = "QIDF_HOME"
ENV_PORT = "QIDF_ENGINE_PORT"
ENV_VERSION = "QIDF_ENGINE_VERSION"  # older spelling of QIDF_ENGINE (OpenSearch version)
ENV_HEAP = "QIDF_ENGINE_HEAP"
ENV_JAVA_HOME = "QIDF_JAVA_HOME"
ENV_DISTRIBUTION = "QIDF_ENGINE_DISTRIBUTION"  # older spelling of QIDF_ENGINE
ENV_ENGINE = "QIDF_ENGINE"  # opensearch-2.19.6, elasticsearch-8.19.21
ENV_JAVA_OPTS = "QIDF_ENGINE_JAVA_OPTS"


def parse_engine(text: str) -> tuple[str, str]:
    """``opensearch-2.19.6`` -> ("opensearch", "2.19.6"); ``os-``/``es-`` short forms; a bare
    name means that engine's default version."""
    name, _, version = text.strip().lower().partition("-")
    name = {"os": "opensearch", "es": "elasticsearch"}.get(name, name)
    if name not in FLAVOR_NAMES:
        raise UsageError(f"an engine is written opensearch-VERSION or elasticsearch-VERSION "
                         f"(e.g. opensearch-{DEFAULT_VERSION}), got {text!r}")
    version = version or (DEFAULT_VERSION if name == "opensearch" else DEFAULT_ES_VERSION)
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise UsageError(f"engine version must look like {DEFAULT_VERSION}, got {text!r}")
    return name, version


def home_dir() -> Path:
    """QIDF_HOME, else a folder the unprivileged node user can read when we are root."""
    if os.environ.get(ENV_HOME):
        return Path(os.environ[ENV_HOME]).expanduser()
    if os.geteuid() == 0:
        return Path("/var/lib/qidf")
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "qidf"


def download_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qidf" / "downloads"


@dataclass(frozen=True)
class Flavor:
    """What differs between the two engines' distributions."""

    name: str
    title: str
    main_class: str
    launcher: str
    plugin_tool: str
    env_java: str
    env_conf: str
    env_opts: str
    extra_settings: tuple[str, ...] = ()


FLAVORS = {
    "opensearch": Flavor("opensearch", "OpenSearch", "org.opensearch.bootstrap.OpenSearch",
                         "opensearch", "opensearch-plugin", "OPENSEARCH_JAVA_HOME",
                         "OPENSEARCH_PATH_CONF", "OPENSEARCH_JAVA_OPTS"),
    "elasticsearch": Flavor("elasticsearch", "Elasticsearch",
                            "org.elasticsearch.bootstrap.Elasticsearch", "elasticsearch",
                            "elasticsearch-plugin", "ES_JAVA_HOME", "ES_PATH_CONF",
                            "ES_JAVA_OPTS", ("-Expack.security.enabled=false",)),
}


@dataclass
class EngineConfig:
    """Settings of the local node; each has an environment variable for scripts and CI."""

    version: str = DEFAULT_VERSION
    port: int = DEFAULT_PORT
    heap: str = DEFAULT_HEAP
    java_home: str | None = None
    home: Path | None = None
    distribution: str = "opensearch"

    @property
    def flavor(self) -> Flavor:
        return FLAVORS[self.distribution]

    @classmethod
    def from_env(cls, engine: str | None = None, **overrides: object) -> EngineConfig:
        """Defaults, then the environment, then ``engine`` (``opensearch-2.19.6``) and the
        other overrides (None leaves a setting alone)."""
        env_engine = os.environ.get(ENV_ENGINE)
        if engine is None and env_engine:
            engine = env_engine
        if engine is not None:
            distribution, version = parse_engine(engine)
        else:
            distribution = str(overrides.get("distribution") or
                               os.environ.get(ENV_DISTRIBUTION, "opensearch"))
            if distribution not in FLAVORS:
                raise EngineError("engine distribution must be opensearch or elasticsearch, "
                                  f"got {distribution!r}")
            version = (os.environ.get(ENV_VERSION, DEFAULT_VERSION)
                       if distribution == "opensearch" else DEFAULT_ES_VERSION)
        cfg = cls(
            distribution=distribution,
            version=version,
            port=int(os.environ.get(ENV_PORT, DEFAULT_PORT)),
            heap=os.environ.get(ENV_HEAP, DEFAULT_HEAP),
            java_home=os.environ.get(ENV_JAVA_HOME) or None,
        )
        for key, value in overrides.items():
            if value is not None and key != "distribution":
                setattr(cfg, key, value)
        if not re.fullmatch(r"\d+\.\d+\.\d+", cfg.version):
            raise EngineError(f"engine version must look like 2.19.6, got {cfg.version!r}")
        if not re.fullmatch(r"\d+[mg]", cfg.heap):
            raise EngineError(f"heap must look like 512m or 1g, got {cfg.heap!r}")
        if not 1024 <= cfg.port <= 65535:
            raise EngineError(f"port must be in 1024-65535, got {cfg.port}")
        return cfg

    @property
    def spelling(self) -> str:
        """``opensearch-2.19.6``: how every command writes an engine."""
        return f"{self.distribution}-{self.version}"

    @property
    def root(self) -> Path:
        return self.home or home_dir()

    @property
    def dist(self) -> Path:
        return self.root / "dist" / f"{self.distribution}-{self.version}"

    @property
    def node_dir(self) -> Path:
        return self.root / f"node-{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class NodeRecord:
    pid: int
    port: int
    version: str
    url: str
    node_dir: str
    started_at: float
