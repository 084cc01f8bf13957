"""Talking to a cluster: connection settings (options, environment, files), the one place
that builds the opensearch-py / elasticsearch-py client (TLS, proxies, SigV4, headers), the
transport behind one call signature with every failure as one line, engine detection,
exact index names, the privileges qidf needs, and one reader of an index's description."""

from qidf_ctl.cluster.client import Cluster
from qidf_ctl.cluster.connection import DEFAULT_URL, ConnectionSettings
from qidf_ctl.cluster.engine_info import EngineInfo
from qidf_ctl.cluster.index import FieldInfo, IndexDescription, describe_index
from qidf_ctl.cluster.names import check_name, index_path, segment
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.responses import close_failure
from qidf_ctl.cluster.transport import Transport

__all__ = ["DEFAULT_URL", "Cluster", "ConnectionSettings", "EngineInfo", "FieldInfo",
           "IndexDescription", "Transport", "check_name", "close_failure", "describe_index",
           "index_path", "redact", "segment"]
