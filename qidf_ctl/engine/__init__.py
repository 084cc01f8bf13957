"""The embedded local engine: fetch, assemble, start, stop and inspect OpenSearch (or
Elasticsearch) nodes on 127.0.0.1 as plain Java processes, and the native plugin's build
and install. No Docker needed."""

from qidf_ctl.engine.assemble import assemble
from qidf_ctl.engine.config import (
    DEFAULT_ES_VERSION,
    DEFAULT_PORT,
    DEFAULT_VERSION,
    EngineConfig,
    home_dir,
)
from qidf_ctl.engine.java import find_java
from qidf_ctl.engine.process import start, status, stop

__all__ = ["DEFAULT_ES_VERSION", "DEFAULT_PORT", "DEFAULT_VERSION", "EngineConfig", "assemble",
           "find_java", "home_dir", "start", "status", "stop"]
