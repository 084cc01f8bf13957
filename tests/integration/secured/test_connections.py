"""Every way to reach a cluster, against the real secured node: TLS (and its failures),
fingerprint pinning (works, and fails closed), mutual TLS, bearer tokens (JWT), a UTF-8
password, Elastic Cloud IDs, HTTP(S) proxies and NO_PROXY, timeouts and retries, and a client
object the caller configured."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import opensearchpy

from qidf_ctl import install
from qidf_ctl.cluster import Cluster
from qidf_ctl.engine.certificates import CertificateAuthority
from qidf_ctl.errors import EXIT_AUTH, EXIT_UNAVAILABLE
from tests.support import fast_cli, jwt, netstubs
from tests.unit.test_cli import run

from .conftest import CLOUD_HOST, INDEX, JWT_ROLE, MTLS_USER, UTF8_PASSWORD, read


def show(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    return run(["show", INDEX, "--json", *argv], capsys, monkeypatch)


def test_tls_failure_suggests_ca_certs(secured, no_proxy_env, capsys, monkeypatch):
    code, _out, err = show(["--url", secured.url, "--user", "qidf_op", "--password-file",
                            secured.password_file("qidf_op")], capsys, monkeypatch)
    assert code == EXIT_AUTH and "--ca-certs" in err and "not trusted" in err


def test_tls_verification_uses_ca_certs_only(secured, no_proxy_env, capsys, monkeypatch,
                                             tmp_path):
    """REQUESTS_CA_BUNDLE (set on many machines) must not override --ca-certs."""
    other = CertificateAuthority(tmp_path / "other")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(other.path))
    monkeypatch.setenv("SSL_CERT_FILE", str(other.path))
    code, _out, err = show(secured.args("qidf_op"), capsys, monkeypatch)
    assert code == 0, err
    code, _out, err = show(["--url", secured.url, "--ca-certs", str(other.path), "--user",
                            "qidf_op", "--password-file", secured.password_file("qidf_op")],
                           capsys, monkeypatch)
    assert code == EXIT_AUTH and "--ca-certs" in err


def test_fingerprint_pinning_works_and_fails_closed(secured, no_proxy_env, capsys, monkeypatch):
    user = ["--user", "qidf_op", "--password-file", secured.password_file("qidf_op")]
    pin = secured.access.node_sha256
    colons = ":".join(pin[i:i + 2] for i in range(0, 64, 2)).upper()
    code, _out, err = show(["--url", secured.url, "--ssl-assert-fingerprint", colons, *user],
                           capsys, monkeypatch)
    assert code == 0, err  # pinned: no CA needed
    wrong = ("0" if pin[0] != "0" else "1") + pin[1:]
    code, out, err = show(["--url", secured.url, "--ssl-assert-fingerprint", wrong, *user],
                          capsys, monkeypatch)
    assert code == EXIT_AUTH and "does not match --ssl-assert-fingerprint" in err
    assert pin in err and json.loads(out)["error"]["exit_code"] == EXIT_AUTH
    code, _out, err = show(["--url", secured.url, "--ssl-assert-fingerprint", wrong,
                            "--ca-certs", secured.access.ca_certs, *user], capsys, monkeypatch)
    assert code == EXIT_AUTH  # a trusted CA does not excuse a wrong pin


def test_mutual_tls(secured, no_proxy_env, capsys, monkeypatch, tmp_path):
    access = secured.access
    code, out, err = show(["--url", secured.url, "--ca-certs", access.ca_certs,
                           "--client-cert", access.client_cert, "--client-key",
                           access.client_key], capsys, monkeypatch)
    assert code == 0, err  # logged in as the certificate's CN, no password
    assert json.loads(out)["index"] == INDEX
    stranger = CertificateAuthority(tmp_path / "stranger").issue("c", MTLS_USER)
    code, _out, err = show(["--url", secured.url, "--ca-certs", access.ca_certs,
                            "--client-cert", str(stranger.cert), "--client-key",
                            str(stranger.key)], capsys, monkeypatch)
    assert code == EXIT_AUTH and "--client-cert" in err, err


def test_bearer_token(secured, no_proxy_env, capsys, monkeypatch, tmp_path):
    key = base64.b64decode(read(secured.access.jwt_key_file))
    token_file = tmp_path / "jwt"
    token_file.write_text(jwt.token(key, "qidf-jwt-user", [JWT_ROLE]) + "\n")
    base = ["--url", secured.url, "--ca-certs", secured.access.ca_certs]
    code, _out, err = show([*base, "--bearer-token-file", str(token_file)], capsys, monkeypatch)
    assert code == 0, err
    forged = jwt.token(b"x" * 32, "qidf-jwt-user", [JWT_ROLE])
    code, out, err = show([*base, "--bearer-token", forged], capsys, monkeypatch)
    assert code == EXIT_AUTH and "HTTP 401" in err and forged not in out + err
    expired = jwt.token(key, "qidf-jwt-user", [JWT_ROLE], ttl_s=-3600)
    monkeypatch.setenv("QIDF_BEARER_TOKEN", expired)
    code, _out, err = show(base, capsys, monkeypatch)
    assert code == EXIT_AUTH


def test_api_keys_are_refused_by_opensearch_2(secured, no_proxy_env, capsys, monkeypatch):
    code, out, err = show(["--url", secured.url, "--ca-certs", secured.access.ca_certs,
                           "--api-key", "aWQ6a2V5LXZhbHVl"], capsys, monkeypatch)
    assert code == EXIT_AUTH and "aWQ6a2V5LXZhbHVl" not in out + err


def test_a_utf8_password_through_every_channel(secured, no_proxy_env, capsys, monkeypatch,
                                               tmp_path):
    pw_file = tmp_path / "pw"
    pw_file.write_text(UTF8_PASSWORD + "\n", encoding="utf-8")
    base = ["--url", secured.url, "--ca-certs", secured.access.ca_certs, "--user", "qidf_utf8"]
    for extra, env in ((["--password", UTF8_PASSWORD], {}),
                       (["--password-file", str(pw_file)], {}),
                       ([], {"QIDF_PASSWORD": UTF8_PASSWORD}),
                       ([], {"QIDF_PASSWORD_FILE": str(pw_file)})):
        with monkeypatch.context() as m:
            for k, v in env.items():
                m.setenv(k, v)
            code, out, err = show([*base, *extra], capsys, m)
        assert code == 0, err
        assert UTF8_PASSWORD not in out + err


def test_proxies_are_honoured_and_no_proxy_too(secured, no_proxy_env, capsys, monkeypatch,
                                               tmp_path):
    fast_cli.install(monkeypatch)
    proxy = netstubs.ForwardProxy()
    other = CertificateAuthority(tmp_path / "other")
    try:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        # The proxy-capable (requests) connection must not trade --ca-certs for this.
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(other.path))
        code, _out, err = show(secured.args("qidf_op"), capsys, monkeypatch)
        assert code == 0, err
        assert proxy.take()[:1] == [f"CONNECT 127.0.0.1:{secured.url.rsplit(':', 1)[1]}"]
        monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        code, _out, err = show(secured.args("qidf_op"), capsys, monkeypatch)
        assert code == 0 and proxy.take() == []
        code, _out, err = show([*secured.args("qidf_op"), "--proxy", proxy.url], capsys,
                               monkeypatch)
        assert code == 0 and proxy.take() != []  # --proxy beats NO_PROXY
    finally:
        proxy.shutdown()


def test_cloud_id(secured, no_proxy_env, capsys, monkeypatch):
    """An Elastic Cloud ID is a URL in disguise: ``qidf-es.localhost:<port>`` reached through
    a proxy that resolves the name (no DNS for it here), TLS verified for that name."""
    port = secured.url.rsplit(":", 1)[1]
    cloud_id = "qidf-test:" + base64.b64encode(
        f"localhost:{port}${CLOUD_HOST.split('.')[0]}$kibana".encode()).decode()
    proxy = netstubs.ForwardProxy({CLOUD_HOST: "127.0.0.1"})
    try:
        code, _out, err = show(["--cloud-id", cloud_id, "--ca-certs", secured.access.ca_certs,
                                "--proxy", proxy.url, "--user", "qidf_op",
                                "--password-file", secured.password_file("qidf_op")],
                               capsys, monkeypatch)
        assert code == 0, err
        assert proxy.take() == [f"CONNECT {CLOUD_HOST}:{port}"]
    finally:
        proxy.shutdown()


def test_timeout_and_retries(secured, no_proxy_env, capsys, monkeypatch):
    code, _out, err = show([*secured.args("qidf_op"), "--timeout", "30", "--retries", "5"],
                           capsys, monkeypatch)
    assert code == 0, err
    busy = netstubs.Canned(503, b'{"error":"busy"}', "application/json")
    hole = netstubs.BlackHole()
    try:
        code, _out, err = show(["--url", busy.url, "--retries", "2"], capsys, monkeypatch)
        assert code == EXIT_UNAVAILABLE and len(busy.take()) == 3  # 1 + 2 retries
        code, _out, err = show(["--url", hole.url, "--timeout", "0.5", "--retries", "3"],
                               capsys, monkeypatch)
        assert code == EXIT_UNAVAILABLE and "within 0.5s" in err  # no retry after a timeout
    finally:
        busy.shutdown()
        hole.close()


def test_a_client_the_caller_configured(secured, no_proxy_env):
    client = opensearchpy.OpenSearch(
        hosts=[secured.url], http_auth=("qidf_op", read(secured.password_file("qidf_op"))),
        use_ssl=True, verify_certs=True, ca_certs=secured.access.ca_certs)
    cluster = Cluster.connect(client)
    assert cluster.engine.version == "2.19.1"
    assert install.show(cluster, INDEX)["index"] == INDEX


def test_secrets_files_are_private(secured):
    for path in (*secured.access.password_files.values(), secured.access.jwt_key_file):
        assert Path(path).stat().st_mode & 0o077 == 0


def test_exit_codes_tell_failures_apart(secured, no_proxy_env, capsys, monkeypatch):
    """usage 2, auth 4, not found 5, conflict 6, retryable 7: all on the real node."""
    from qidf_ctl.errors import EXIT_CONFLICT, EXIT_NOT_FOUND, EXIT_USAGE

    admin = secured.cluster("admin")
    admin.request("PUT", "/code-closed", {"settings": {"number_of_replicas": 0}})
    admin.request("POST", "/code-closed/_close")
    op = secured.args("qidf_op")
    try:
        cases = [(["show", INDEX, *op, "--timeout", "zero"], EXIT_USAGE),
                 (["show", INDEX, "--url", secured.url, "--ca-certs", secured.access.ca_certs,
                   "--user", "qidf_op", "--password", "wrong-one"], EXIT_AUTH),
                 (["show", "code-missing", *op], EXIT_NOT_FOUND),
                 (["apply", "code-closed", "--q", "0.3", "--mode", "script", *op],
                  EXIT_CONFLICT),
                 (["show", INDEX, "--url", "https://127.0.0.1:1", "--retries", "0"],
                  EXIT_UNAVAILABLE)]
        for argv, expected in cases:
            code, out, err = run([*argv, "--json"], capsys, monkeypatch)
            assert code == expected, (argv, err)
            assert json.loads(out)["error"]["exit_code"] == expected
    finally:
        admin.request("DELETE", "/code-closed", None, {"ignore_unavailable": True})
