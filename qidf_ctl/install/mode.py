"""Painless or the native plugin: which one an index gets when the user asks for ``auto``.

An index whose similarity type is missing on a node fails there ("Unknown Similarity type"),
so ``auto`` picks the plugin only when every data node has it.
"""

from __future__ import annotations

from dataclasses import dataclass

from qidf_ctl.cluster import Cluster, capabilities
from qidf_ctl.errors import ClusterError, QidfError, UsageError
from qidf_ctl.similarity import Mode

PLUGIN_NAME = "qidf-qlog-similarity"
MODES = ("auto", "script", "plugin")


@dataclass(frozen=True)
class PluginPresence:
    data_nodes: list[str]
    missing_on: list[str]

    @property
    def everywhere(self) -> bool:
        return bool(self.data_nodes) and not self.missing_on


def presence(cluster: Cluster) -> PluginPresence:
    """Which data nodes lack the plugin (GET _nodes/plugins)."""
    nodes = cluster.request("GET", "/_nodes/plugins")["nodes"]
    data, missing = [], []
    for node_id, node in sorted(nodes.items()):
        roles = node.get("roles", [])
        if not any(r == "data" or r.startswith("data_") for r in roles):
            continue
        name = node.get("name", node_id)
        data.append(name)
        if PLUGIN_NAME not in {p.get("name") for p in node.get("plugins", [])}:
            missing.append(name)
    return PluginPresence(data, missing)


def check_mode(requested: str) -> str:
    if requested not in MODES:
        raise UsageError(f"--mode must be auto, script or plugin, got {requested!r}")
    return requested


def choose_mode(cluster: Cluster, requested: str) -> tuple[Mode, str]:
    """Resolve ``auto``/``script``/``plugin`` to a mode and a one-line reason.

    A user who may not list the nodes' plugins (``cluster:monitor/nodes/info``) still gets
    ``auto``: Painless, with a warning in the reason. A Serverless collection is refused
    here, before anything changes (it cannot close or clone an index).
    """
    check_mode(requested)
    capabilities.check_serverless(getattr(cluster, "serverless", False))
    if requested == "script":
        return Mode.SCRIPT, "Painless scripted similarity (asked for)"
    try:
        found = presence(cluster)
    except ClusterError as exc:
        if requested == "auto" and exc.status in (401, 403):
            return Mode.SCRIPT, (
                "Painless scripted similarity (warning: this user may not list the nodes' "
                "plugins, GET _nodes/plugins needs cluster:monitor/nodes/info; --mode script "
                "skips this check, --mode plugin if you know the plugin is on every data "
                "node)")
        raise
    if found.everywhere:
        return Mode.PLUGIN, f"native plugin ({PLUGIN_NAME} is on all {len(found.data_nodes)} " \
            "data nodes)"
    if requested == "plugin":
        where = ", ".join(found.missing_on) or "the cluster (no data nodes)"
        raise QidfError(
            f"plugin {PLUGIN_NAME} is missing on {where}: install it on every data node "
            "(locally: qidf plugin install) or use --mode script"
        )
    return Mode.SCRIPT, script_reason(found)


def script_reason(found: PluginPresence) -> str:
    """Why ``auto`` chose Painless, as information: Painless is the path that needs nothing
    on the nodes; the plugin is the optional, faster one (a partial install is named, since
    an index would fail on the nodes without it)."""
    if found.data_nodes and len(found.missing_on) < len(found.data_nodes):
        have = len(found.data_nodes) - len(found.missing_on)
        return (f"Painless scripted similarity: the {PLUGIN_NAME} plugin is on {have} of "
                f"{len(found.data_nodes)} data nodes, and is chosen once it is on all of them")
    return ("Painless scripted similarity, which needs nothing installed on the nodes (the "
            f"optional {PLUGIN_NAME} plugin, faster, is chosen where every data node has it)")
