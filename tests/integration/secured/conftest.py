"""A real secured cluster for the session: OpenSearch 2.19.1 with the security plugin
2.19.1.0, both from Maven Central, TLS from a CA made for the session, and users whose roles
hold exactly what docs/how-to/privileges.md documents (qidf_ctl/cluster/roles.py).

Started once (``qidf_ctl.engine.security.start``, the code behind ``qidf engine start
--security``) on ``QIDF_TEST_SECURED_PORT`` (default 9260) in a fresh node folder, and
stopped and deleted afterwards. Starting costs 40-120 s (JVM plus the plugin's
initialisation on two cores), so the tests share it and keep to quick calls.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from qidf_ctl import demo
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.engine import process, security
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.evaluation import files, indexing

SECURED_PORT = int(os.environ.get("QIDF_TEST_SECURED_PORT", "9260"))
INDEX = "code-go"
UTF8_PASSWORD = "пароль#/@%:é-ü x"
AGENT_PASSWORD = "агент#/@%:é-ü 7"  # qidf mcp's user: grepped for in every result and log
MTLS_USER = "qidf-mtls-user"
JWT_ROLE = "qidf_jwt"
EMPTY_ROLE = "qidf_grant_role"
CLOUD_HOST = "qidf-es.localhost"
OPERATOR = ["qidf_operator"]
HALF_CLOSE = "qidf_close_without_shards"

USERS = [
    security.User("admin", ["all_access"]),
    security.User("qidf_op", OPERATOR),  # no nodes/info: --mode auto falls back
    security.User("qidf_clone_op", ["qidf_operator", "qidf_clone"]),
    security.User("qidf_search", ["qidf_search"]),
    security.User("qidf_qt", ["qidf_query_time"]),
    security.User("qidf_agent", ["qidf_agent"], AGENT_PASSWORD),
    security.User("qidf_nobody", []),
    security.User("qidf_grant", [EMPTY_ROLE]),
    security.User("qidf_utf8", OPERATOR, UTF8_PASSWORD),
    security.User("qidf_halfclose", [HALF_CLOSE]),
]


@dataclass
class Secured:
    """The running node and how to reach it as each user."""

    url: str
    access: security.Access
    queries: str
    qrels: str
    start_seconds: float

    def password_file(self, user: str) -> str:
        return self.access.password_files[user]

    def args(self, user: str | None = None) -> list[str]:
        """CLI options to connect as ``user`` (TLS verified against the session's CA)."""
        out = ["--url", self.url, "--ca-certs", self.access.ca_certs, "--retries", "0"]
        return out + (["--user", user, "--password-file", self.password_file(user)]
                      if user else [])

    def cluster(self, user: str = "admin") -> Cluster:
        return Cluster.connect(ConnectionSettings.from_options(
            url=self.url, ca_certs=self.access.ca_certs, username=user,
            password_file=self.password_file(user), retries=0))


def _spec() -> security.SecuritySpec:
    return security.SecuritySpec(
        USERS, index_patterns=["code-*"], cert_users={MTLS_USER: OPERATOR},
        jwt_roles={JWT_ROLE: OPERATOR}, host_names=(CLOUD_HOST,),
        extra_roles={
            EMPTY_ROLE: {"description": "grown by a test, one hint at a time",
                         "cluster_permissions": []},
            HALF_CLOSE: {"description": "close without its per-shard action",
                         "cluster_permissions": ["cluster:monitor/main"],
                         "index_permissions": [{"index_patterns": ["code-*"],
                                                "allowed_actions": ["indices:admin/close"]}]}},
        bcrypt_rounds=10)


@pytest.fixture(scope="session")
def secured(tmp_path_factory) -> Secured:
    cfg = EngineConfig.from_env(engine=f"opensearch-{security.SECURITY_VERSION}",
                                port=SECURED_PORT, heap="512m")
    process.stop(cfg)
    shutil.rmtree(cfg.node_dir, ignore_errors=True)
    started = time.monotonic()
    try:
        _, access = security.start(cfg, _spec(), timeout_s=600)
        seconds = time.monotonic() - started
        (cfg.root / "secured-fixture-timings.jsonl").open("a").write(
            json.dumps({"at": time.time(), "start_s": round(seconds, 1),
                        "load": os.getloadavg()[0]}) + "\n")
        tmp = tmp_path_factory.mktemp("secured")
        node = Secured(access.url, access, str(tmp / "q.jsonl"), str(tmp / "qrels.tsv"),
                       seconds)
        _load_data(node)
        yield node
    finally:
        process.stop(cfg)
        shutil.rmtree(cfg.node_dir, ignore_errors=True)


def _load_data(node: Secured) -> None:
    """As admin: ``code-go`` with real Go docstrings (the judged ones for 100 code queries,
    then more up to 2,000), and the queries and judgements for eval."""
    task = demo.load_task(max_queries=100, seed=7)
    judged = {d for q in task.qrels.values() for d in q}
    docs = {d: task.corpus[d] for d in sorted(judged)}
    for doc_id in sorted(task.corpus):
        if len(docs) >= 2000:
            break
        docs.setdefault(doc_id, task.corpus[doc_id])
    admin = node.cluster("admin")
    indexing.create_index(admin, INDEX, analyzer="standard", shards=1)
    indexing.bulk_index(admin, INDEX, docs)
    files.write_queries(task.queries, node.queries)
    files.write_qrels(task.qrels, node.qrels)


@pytest.fixture
def no_proxy_env(monkeypatch):
    """Nothing from the machine's environment decides where requests go."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY",
                 "all_proxy", "NO_PROXY", "no_proxy", "QIDF_URL", "QIDF_USER", "QIDF_PASSWORD",
                 "QIDF_CA_CERTS", "QIDF_PROXY"):
        monkeypatch.delenv(name, raising=False)


def read(path: str) -> str:
    return Path(path).read_text(encoding="utf-8").rstrip("\n")
