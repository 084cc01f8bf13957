"""A client the caller configured is used as it is: its hosts, TLS and credentials."""

from __future__ import annotations

import json

import elasticsearch
import opensearchpy
import pytest

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from tests.support import netstubs

ES_ROOT = {"version": {"number": "8.19.21", "build_flavor": "default"},
           "tagline": "You Know, for Search"}
OS_ROOT = {"version": {"number": "2.19.1", "distribution": "opensearch"}}


@pytest.fixture
def server():
    def make(root: dict) -> netstubs.Canned:
        return netstubs.Canned(200, json.dumps(root).encode(), "application/json",
                               {"X-Elastic-Product": "Elasticsearch"})
    made: list[netstubs.Canned] = []
    yield lambda root: made.append(make(root)) or made[-1]
    for srv in made:
        srv.shutdown()


def test_an_elasticsearch_client_keeps_its_credentials(server):
    srv = server(ES_ROOT)
    client = elasticsearch.Elasticsearch(srv.url, api_key="aWQ6c2VjcmV0")
    cluster = Cluster.connect(client)
    assert (cluster.engine.distribution, cluster.engine.version) == ("elasticsearch", "8.19.21")
    assert srv.last_headers.get("authorization") == "ApiKey aWQ6c2VjcmV0"
    assert srv.last_headers.get("accept") == "application/json"  # plain JSON, any client major


def test_an_opensearch_client_is_used_as_it_is(server):
    srv = server(OS_ROOT)
    client = opensearchpy.OpenSearch(hosts=[srv.url], http_auth=("u", "pw-1234"))
    cluster = Cluster.connect(client)
    assert cluster.engine.version == "2.19.1" and cluster.url.startswith("http://127.0.0.1")
    assert srv.last_headers.get("authorization", "").startswith("Basic ")


def test_anything_else_is_refused():
    with pytest.raises(UsageError, match=r"opensearchpy\.OpenSearch"):
        Cluster.connect(object())


def test_qidf_built_elasticsearch_client_goes_through_the_proxy(server, monkeypatch):
    from qidf_ctl.cluster import ConnectionSettings
    from qidf_ctl.cluster.transport import elasticsearch_transport

    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY",
                 "no_proxy", "QIDF_PROXY"):
        monkeypatch.delenv(name, raising=False)
    srv = server(ES_ROOT)
    proxy = netstubs.ForwardProxy()
    try:
        settings = ConnectionSettings.from_options(url=srv.url, proxy=proxy.url,
                                                   api_key="aWQ6c2VjcmV0", retries=0)
        assert elasticsearch_transport(settings)("GET", "/", None, None)["version"]
        assert proxy.take() == [f"GET {srv.url}/"]
        assert srv.last_headers.get("authorization") == "ApiKey aWQ6c2VjcmV0"
    finally:
        proxy.shutdown()
