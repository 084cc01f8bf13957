"""AWS SigV4 proven against a verifier: every request qidf sends for ``es`` (Amazon OpenSearch
Service) and ``aoss`` (Serverless) goes through a loopback proxy that recomputes its
signature with botocore and the known test credentials (tests/support/sigv4_proxy.py),
rejects any mismatch like AWS does, and forwards the rest to the session's real node.
Covered: bodies (JSON, ndjson), query strings with spaces, commas, ``:`` and unicode, a query
written into the path, percent-encoded index names and document ids, and the real commands.
"""

from __future__ import annotations

import json

import pytest
from botocore.credentials import Credentials

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path, segment
from qidf_ctl.errors import EXIT_AUTH, EXIT_CONFLICT, ClusterError, ConflictError
from qidf_ctl.evaluation import indexing
from tests.support import fast_cli, netstubs, sigv4_proxy
from tests.unit.test_cli import run

REGION = "eu-west-1"
# Made up for the test: no AWS account behind them.
ACCESS = "AKIAQIDFTESTONLY0000"
SECRET = "qidf/test+secret/0000000000000000000000"
TOKEN = "qidf-test-session-token"
INDEX = "sig-ünï+x"
DOC_ID = "a/b#c ü+d"


@pytest.fixture
def aws_env(monkeypatch):
    """boto3's default chain finds the test credentials in the environment, and nothing
    else (no profile, no instance metadata)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)
    for name, value in (("AWS_CONFIG_FILE", "/dev/null"),
                        ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null"),
                        ("AWS_EC2_METADATA_DISABLED", "true")):
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "HTTP_PROXY", "HTTPS_PROXY",
                 "http_proxy", "https_proxy", "QIDF_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def small_index(cluster, go_task) -> str:
    """1,000 real Go docstrings: enough for stats and predict, quick to index."""
    name = "sig-commands"
    indexing.create_index(cluster, name, analyzer="standard", shards=1)
    indexing.bulk_index(cluster, name, dict(sorted(go_task.corpus.items())[:1000]))
    yield name
    cluster.request("DELETE", index_path(name), None, {"ignore_unavailable": True})


@pytest.fixture(scope="module")
def proxies(engine_url):
    creds = Credentials(ACCESS, SECRET, TOKEN)
    started = {svc: sigv4_proxy.serve(engine_url, creds, REGION, svc)
               for svc in ("es", "aoss")}
    started["wire"] = sigv4_proxy.serve(engine_url, creds, REGION, "es", mode="wire")
    yield started
    for srv in started.values():
        srv.shutdown()


def signed(proxy: sigv4_proxy.Proxy, service: str) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(
        url=proxy.url, aws_region=REGION, aws_service=service, retries=0))


def requests_of_every_kind(cluster: Cluster) -> None:
    """What qidf's commands send, plus the encodings SigV4 clients get wrong."""
    cluster.request("PUT", index_path(INDEX), {"settings": {"number_of_shards": 1,
                                                            "number_of_replicas": 0}})
    try:
        cluster.request("PUT", f"{index_path(INDEX, '_doc')}/{segment(DOC_ID)}",
                        {"text": "héllo wörld code"}, {"refresh": "true"})
        lines = [json.dumps({"index": {"_index": INDEX, "_id": "2"}}),
                 json.dumps({"text": "more wörld"})]
        cluster.request("POST", "/_bulk", "\n".join(lines) + "\n", {"refresh": "true"})
        assert cluster.request("GET", index_path(INDEX, "_search"), None,
                               {"q": "text:héllo wörld"})["hits"]["total"]["value"] == 2
        rows = cluster.request("GET", f"/_cat/indices/{index_path(INDEX)[1:]}",
                               params={"format": "json", "h": "index,status"})
        assert rows[0]["index"] == INDEX
        health = cluster.request("GET", f"/_cluster/health/{index_path(INDEX)[1:]}"
                                 "?wait_for_status=yellow&timeout=5s")
        assert health["status"] in ("green", "yellow")
        page = cluster.request("POST", index_path(INDEX, "_search"), {"size": 1},
                               {"scroll": "1m"})
        cluster.request("POST", "/_search/scroll", {"scroll": "1m",
                                                    "scroll_id": page["_scroll_id"]})
        cluster.request("DELETE", "/_search/scroll", {"scroll_id": [page["_scroll_id"]]})
        msearch = "\n".join([json.dumps({"index": INDEX}), json.dumps({"size": 1})]) + "\n"
        assert "error" not in cluster.request("POST", "/_msearch", msearch)["responses"][0]
        assert cluster.request("POST", index_path(INDEX, "_mget"), {"ids": ["2"]},
                               {"_source_includes": "text,x"})["docs"][0]["found"]
        assert cluster.request("GET", "/sig-*/_count")["count"] >= 2
    finally:
        cluster.request("DELETE", index_path(INDEX), None, {"ignore_unavailable": True})


@pytest.mark.parametrize("service", ["es", "aoss", "wire"])
def test_every_kind_of_request_passes_the_verifier(aws_env, proxies, service):
    proxy = proxies[service]
    proxy.take()
    requests_of_every_kind(signed(proxy, "es" if service == "wire" else service))
    log = proxy.take()
    assert len(log) >= 12
    assert [e for e in log if not e["ok"]] == []
    assert all(set(e["matched"]) == {"wire", "aws"} for e in log)  # byte-exact too


def test_commands_through_the_verifier(aws_env, proxies, small_index, capsys, monkeypatch):
    """show, stats, predict and apply/revert (es); show and stats on Serverless (aoss), whose
    apply is refused before anything changes."""
    fast_cli.install(monkeypatch)
    es, aoss = proxies["es"], proxies["aoss"]
    es.take()
    base = ["--aws-region", REGION, "--retries", "0"]
    for argv in (["show", small_index], ["stats", small_index],
                 ["predict", small_index],
                 ["apply", small_index, "--q", "0.5", "--mode", "script"],
                 ["revert", small_index]):
        code, _out, err = run([*argv, "--url", es.url, *base], capsys, monkeypatch)
        assert code == 0, err
    assert [e for e in es.take() if not e["ok"]] == []
    for argv in (["show", small_index], ["stats", small_index]):
        code, _out, err = run([*argv, "--url", aoss.url, *base, "--aws-service", "aoss"],
                             capsys, monkeypatch)
        assert code == 0, err
    aoss.take()
    code, _out, err = run(["apply", small_index, "--q", "0.5", "--url", aoss.url, *base,
                          "--aws-service", "aoss"], capsys, monkeypatch)
    assert code == EXIT_CONFLICT and "Serverless" in err and err.count("\n") == 1
    writes = [e for e in aoss.take() if e["method"] != "GET"]
    assert writes == []  # refused before anything changed


def test_serverless_refusal_in_the_library(aws_env, proxies):
    cluster = signed(proxies["aoss"], "aoss")
    assert cluster.serverless
    with pytest.raises(ConflictError, match="Serverless"):
        install.choose_mode(cluster, "script")


def test_a_wrong_secret_is_refused_in_one_line(aws_env, proxies, capsys, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-at-all")
    code, out, err = run(["show", "x", "--url", proxies["es"].url, "--aws-region", REGION],
                         capsys, monkeypatch)
    assert code == EXIT_AUTH and "signature" in err and err.count("\n") == 1
    assert "not-the-secret" not in out + err and SECRET not in out + err
    with pytest.raises(ClusterError):
        signed(proxies["es"], "aoss")  # signed for aoss, sent to es: another scope


def test_stock_signer_breaks_where_qidf_does_not(aws_env, proxies):
    """The reason qidf signs itself: opensearch-py's own signer fails on a space."""
    import boto3
    import opensearchpy

    client = opensearchpy.OpenSearch(
        hosts=[proxies["es"].url], max_retries=0,
        http_auth=opensearchpy.Urllib3AWSV4SignerAuth(boto3.Session().get_credentials(),
                                                      REGION, "es"))
    with pytest.raises(opensearchpy.AuthorizationException):
        client.search(index="sig-*", q="text:a b")


def test_signed_requests_through_an_http_proxy(aws_env, proxies, monkeypatch):
    """Behind a corporate proxy the requests-based connection signs (its signature covers
    host, path, query, body and x-amz-* only, so the proxy's hop cannot break it)."""
    forward = netstubs.ForwardProxy()
    try:
        monkeypatch.setenv("HTTP_PROXY", forward.url)
        proxies["aoss"].take()
        requests_of_every_kind(signed(proxies["aoss"], "aoss"))
        assert len(forward.take()) >= 12
        assert [e for e in proxies["aoss"].take() if not e["ok"]] == []
    finally:
        forward.shutdown()
