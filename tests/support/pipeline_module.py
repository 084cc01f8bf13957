"""OpenSearch's built-in search processors (``filter_query``, ``rename_field``, ...) on a
test node, so that "an index with its own default pipeline keeps its processors working" is
tested with real processors of a real pipeline.

Every OpenSearch distribution ships them in the ``search-pipeline-common`` module; the
integ-test zip the local engine is assembled from does not. Maven Central publishes the
module's jar, so it is written as a module folder into the node's own distribution copy
(never the shared one) and the node restarted once.
"""

from __future__ import annotations

import shutil
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.engine.artifacts import Coordinate, fetch
from qidf_ctl.engine.config import EngineConfig, download_dir
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.engine.rolling import restart_each
from qidf_ctl.progress import Progress

MODULE = "search-pipeline-common"
PLUGIN_CLASS = "org.opensearch.search.pipeline.common.SearchPipelineCommonModulePlugin"


def has_common_processors(cluster: Cluster) -> bool:
    nodes = cluster.request("GET", "/_nodes/search_pipelines")["nodes"]
    return all("filter_query" in {p["type"] for p in n["search_pipelines"]["request_processors"]}
               for n in nodes.values())


def _descriptor(version: str) -> str:
    return (f"description=Built-in search pipeline processors\nversion={version}\n"
            f"name={MODULE}\nclassname={PLUGIN_CLASS}\njava.version=11\n"
            f"opensearch.version={version}\ncustom.foldername=\nextended.plugins=\n"
            "has.native.controller=false\n")


def add_module(cfg: EngineConfig) -> list[dict[str, Any]]:
    """Put the module into every local node's distribution and restart each."""
    (jar,) = fetch([Coordinate("org.opensearch.plugin", MODULE, cfg.version)],
                   download_dir() / cfg.version)

    def change(spec: NodeSpec, progress: Progress) -> None:
        folder = spec.dist / "modules" / MODULE
        if folder.exists():
            return
        folder.mkdir(parents=True)
        shutil.copy2(jar, folder / jar.name)
        (folder / "plugin-descriptor.properties").write_text(_descriptor(cfg.version))

    return restart_each(cfg, change)
