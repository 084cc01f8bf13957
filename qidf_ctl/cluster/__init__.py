"""Talking to a cluster: connection settings, the one client adapter over opensearch-py and
elasticsearch-py, engine detection, exact index names, and one reader of an index's
description (status, settings, mapping, fields)."""

from qidf_ctl.cluster.client import Cluster
from qidf_ctl.cluster.connection import DEFAULT_URL, ConnectionSettings
from qidf_ctl.cluster.engine_info import EngineInfo
from qidf_ctl.cluster.index import FieldInfo, IndexDescription, describe_index
from qidf_ctl.cluster.names import check_name, index_path, segment
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.transport import Transport

__all__ = ["DEFAULT_URL", "Cluster", "ConnectionSettings", "EngineInfo", "FieldInfo",
           "IndexDescription", "Transport", "check_name", "describe_index", "index_path",
           "redact", "segment"]
