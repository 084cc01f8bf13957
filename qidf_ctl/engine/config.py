"""The local engine's settings: every default version, port and environment variable, once.

Each setting has an environment variable for scripts and CI; options given on the command
line win over them. Everything of one node lives in one folder: ``<home>/node-<port>/``
holds ``data/``, ``logs/``, ``config/``, ``dist/`` (the node's own copy of the distribution,
hard-linked, so that each node has its own plugins) and ``node.json`` (pid, url, version,
the ports of every node of its cluster). A cluster of N nodes takes N consecutive HTTP ports
from ``port``; each node's transport port is its HTTP port + TRANSPORT_OFFSET.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.errors import EngineError, UsageError

DEFAULT_VERSION = "2.19.6"  # OpenSearch: the tested default
DEFAULT_ES_VERSION = "8.19.21"  # Elasticsearch (integ-test distribution: plugin path only)
DEFAULT_PORT = 9200
DEFAULT_HEAP = "1g"
# Per node when a cluster has several: three nodes take about 2.5 GiB of memory in all
# (heap plus the JVM's own), which leaves room on a shared 2-core, 24 GiB machine.
DEFAULT_CLUSTER_HEAP = "512m"
MAX_NODES = 9
TRANSPORT_OFFSET = 100
CLUSTER_NAME = "qidf-local"  # a cluster of several nodes: qidf-local-<first port>
# Node attribute naming each node of a multi-node OpenSearch cluster, used as an awareness
# attribute so that a rolling restart can weigh one node away from search traffic.
NODE_ATTRIBUTE = "qidf_node"
# Waits: a node's start (plus this much per extra node starting with it), the cluster's
# return to green after a node restart, and a node's last searches before it stops.
START_TIMEOUT_S = 180.0
EXTRA_START_TIMEOUT_PER_NODE_S = 60.0
GREEN_TIMEOUT_S = 300
DRAIN_TIMEOUT_S = 60
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
ENV_NODES = "QIDF_ENGINE_NODES"


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
    initial_managers: str  # the setting that names the nodes of a new cluster's first vote
    extra_settings: tuple[str, ...] = ()


FLAVORS = {
    "opensearch": Flavor("opensearch", "OpenSearch", "org.opensearch.bootstrap.OpenSearch",
                         "opensearch", "opensearch-plugin", "OPENSEARCH_JAVA_HOME",
                         "OPENSEARCH_PATH_CONF", "OPENSEARCH_JAVA_OPTS",
                         "cluster.initial_cluster_manager_nodes"),
    "elasticsearch": Flavor("elasticsearch", "Elasticsearch",
                            "org.elasticsearch.bootstrap.Elasticsearch", "elasticsearch",
                            "elasticsearch-plugin", "ES_JAVA_HOME", "ES_PATH_CONF",
                            "ES_JAVA_OPTS", "cluster.initial_master_nodes",
                            ("-Expack.security.enabled=false",)),
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
    nodes: int = 1

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
        try:
            cfg = cls(
                distribution=distribution,
                version=version,
                port=int(os.environ.get(ENV_PORT, DEFAULT_PORT)),
                java_home=os.environ.get(ENV_JAVA_HOME) or None,
                nodes=int(os.environ.get(ENV_NODES, 1)),
            )
        except ValueError:
            raise EngineError(f"{ENV_PORT} and {ENV_NODES} must be whole numbers") from None
        for key, value in overrides.items():
            if value is not None and key != "distribution":
                setattr(cfg, key, value)
        if overrides.get("heap") is None:
            cfg.heap = os.environ.get(ENV_HEAP) or (
                DEFAULT_HEAP if cfg.nodes == 1 else DEFAULT_CLUSTER_HEAP)
        if not 1 <= cfg.nodes <= MAX_NODES:
            raise EngineError(f"nodes must be 1-{MAX_NODES}, got {cfg.nodes}")
        if not re.fullmatch(r"\d+\.\d+\.\d+", cfg.version):
            raise EngineError(f"engine version must look like 2.19.6, got {cfg.version!r}")
        if not re.fullmatch(r"\d+[mg]", cfg.heap):
            raise EngineError(f"heap must look like 512m or 1g, got {cfg.heap!r}")
        last = cfg.port + cfg.nodes - 1 + TRANSPORT_OFFSET
        if cfg.port < 1024 or last > 65535:
            raise EngineError(f"port must be in 1024-{65535 - TRANSPORT_OFFSET} (its "
                              f"transport port is +{TRANSPORT_OFFSET}), got {cfg.port}"
                              if cfg.nodes == 1 else
                              f"ports {cfg.port}-{cfg.port + cfg.nodes - 1} (and their "
                              f"transport ports +{TRANSPORT_OFFSET}) must be in 1024-65535")
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

    @property
    def ports(self) -> tuple[int, ...]:
        """HTTP ports of the nodes ``start`` would run: ``nodes`` consecutive ones."""
        return tuple(range(self.port, self.port + self.nodes))

    def for_port(self, port: int) -> EngineConfig:
        """The same settings, addressed at the node on ``port`` (its folder, its URL)."""
        return dataclasses.replace(self, port=port)


def distribution_of_version(version: str) -> str:
    """OpenSearch's majors are 1-3 and Elasticsearch's 7 and up: a version alone says which."""
    major = version.split(".")[0]
    return "elasticsearch" if major.isdigit() and int(major) >= 5 else "opensearch"


@dataclass
class NodeRecord:
    """``node.json``: what runs in a node folder, written at each start."""

    pid: int
    port: int
    version: str
    url: str
    node_dir: str
    started_at: float
    distribution: str = "opensearch"
    # HTTP ports of every node of its cluster (just this one for a single node).
    cluster_ports: list[int] = dataclasses.field(default_factory=list)
    heap: str = ""

    @property
    def spelling(self) -> str:
        return f"{self.distribution}-{self.version}"

    @property
    def members(self) -> tuple[int, ...]:
        return tuple(self.cluster_ports) or (self.port,)
