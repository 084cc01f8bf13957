"""One node of a local engine: its folder, its own copy of the distribution, its settings.

Every node gets a copy of the assembled distribution made of hard links (``node-<port>/dist``):
engines read plugins only from ``<home>/plugins`` next to their launcher, so a node can have
plugins of its own (a rolling plugin install, a cluster where only some nodes have one) only
with a home of its own. Hard links make the copy cost a second and no disk.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.engine.config import CLUSTER_NAME, NODE_ATTRIBUTE, TRANSPORT_OFFSET, EngineConfig

LOOPBACK = "127.0.0.1"
_DIST_MARK = ".qidf-node-dist"


def node_name(port: int) -> str:
    return f"qidf-{port}"


@dataclass(frozen=True)
class NodeSpec:
    """One node of a local cluster whose nodes listen on the HTTP ports ``members``."""

    cfg: EngineConfig  # addressed at this node's port
    members: tuple[int, ...]

    @property
    def port(self) -> int:
        return self.cfg.port

    @property
    def name(self) -> str:
        return node_name(self.port)

    @property
    def url(self) -> str:
        return self.cfg.url

    @property
    def transport_port(self) -> int:
        return self.port + TRANSPORT_OFFSET

    @property
    def node_dir(self) -> Path:
        return self.cfg.node_dir

    @property
    def dist(self) -> Path:
        """This node's own distribution (bin, lib, modules, plugins)."""
        return self.node_dir / "dist"

    @property
    def config(self) -> Path:
        return self.node_dir / "config"

    @property
    def cluster_name(self) -> str:
        if len(self.members) == 1:
            return CLUSTER_NAME
        return f"{CLUSTER_NAME}-{self.members[0]}"

    def settings(self) -> dict[str, str]:
        """The ``-E`` settings of this node: loopback only, its own folders, and discovery
        among the cluster's nodes only (their transport ports are listed, nothing else is
        probed), or single-node discovery for a cluster of one."""
        out = {
            "network.host": LOOPBACK,
            "http.port": str(self.port),
            "transport.port": str(self.transport_port),
            "path.data": str(self.node_dir / "data"),
            "path.logs": str(self.node_dir / "logs"),
            "node.name": self.name,
            "cluster.name": self.cluster_name,
            "action.auto_create_index": "true",
        }
        if len(self.members) == 1:
            out["discovery.type"] = "single-node"
        else:
            out["discovery.seed_hosts"] = ",".join(
                f"{LOOPBACK}:{p + TRANSPORT_OFFSET}" for p in self.members)
            # Read only when the cluster first forms; ignored once it has a state.
            out[self.cfg.flavor.initial_managers] = ",".join(node_name(p) for p in self.members)
            if self.can_drain:
                out[f"node.attr.{NODE_ATTRIBUTE}"] = self.name
                out["cluster.routing.allocation.awareness.attributes"] = NODE_ATTRIBUTE
        return out

    @property
    def can_drain(self) -> bool:
        """Weighted search routing (OpenSearch 2.4+) can move search traffic off one node."""
        major, minor = (int(x) for x in self.cfg.version.split(".")[:2])
        return self.cfg.distribution == "opensearch" and (major, minor) >= (2, 4)


def ensure_node_dist(spec: NodeSpec, shared: Path) -> Path:
    """Give the node its copy of ``shared`` (hard links; plugins left out: each node installs
    its own), unless it already has one of the same engine."""
    want = spec.cfg.spelling
    mark = spec.dist / _DIST_MARK
    if mark.is_file() and mark.read_text().strip() == want:
        return spec.dist
    staging = spec.node_dir / ".dist-staging"
    shutil.rmtree(staging, ignore_errors=True)
    _link_tree(shared, staging, skip={"plugins"})
    (staging / "plugins").mkdir(exist_ok=True)
    (staging / _DIST_MARK).write_text(want + "\n")
    shutil.rmtree(spec.dist, ignore_errors=True)
    staging.rename(spec.dist)
    return spec.dist


def _link_tree(src: Path, dst: Path, skip: set[str]) -> None:
    """Copy the tree ``src`` to ``dst`` as hard links (real copies across file systems),
    leaving out the contents of the top-level folders in ``skip``."""
    for root, dirs, files in os.walk(src):
        rel = Path(root).relative_to(src)
        target = dst / rel
        target.mkdir(parents=True, exist_ok=True)
        if rel == Path(".") and skip:
            for name in [d for d in dirs if d in skip]:
                (target / name).mkdir(exist_ok=True)
                dirs.remove(name)
        for name in files:
            try:
                os.link(Path(root) / name, target / name, follow_symlinks=False)
            except OSError:
                shutil.copy2(Path(root) / name, target / name, follow_symlinks=False)


def point_jvm_files_at(jvm_options: Path, node: Path) -> None:
    """The stock jvm.options writes GC logs, heap dumps and crash files relative to the
    distribution; send them to this node's folder, which the node user can write."""
    text = jvm_options.read_text()
    text = text.replace("file=logs/", f"file={node}/logs/")
    text = text.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={node}/logs/")
    text = text.replace("-XX:HeapDumpPath=data", f"-XX:HeapDumpPath={node}/data")
    jvm_options.write_text(text)
