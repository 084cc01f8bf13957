"""Bad connection input, and every way the network or a non-cluster can fail, through the
real CLI: one ``error:`` line, the documented exit code, never a traceback. The servers are
loopback stand-ins for the network (tests/support/netstubs.py), not for a cluster; the real
node's failures (401, TLS, roles) are in tests/integration/secured/."""

from __future__ import annotations

import json

import pytest

from qidf_ctl.cluster.connection import ENV
from qidf_ctl.engine.certificates import CertificateAuthority
from qidf_ctl.errors import (
    EXIT_AUTH,
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
)
from tests.support import fast_cli, netstubs

from .test_cli import run

FP = "ab" * 32
SECURITY_403 = {"error": {"root_cause": [{"type": "security_exception", "reason":
                "no permissions for [indices:monitor/settings/get] and User [name=u, "
                "backend_roles=[], requestedTenant=null]"}], "type": "security_exception",
                "reason": "x"}, "status": 403}


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """The stand-ins, started once: (name -> url or path)."""
    tmp = tmp_path_factory.mktemp("net")
    ca = CertificateAuthority(tmp / "ca")
    leaf = ca.issue("server", "server", server=True)
    files = {"empty": b"", "two_lines": b"key-one\nkey-two\n", "latin1": b"\xe9\xff\xfe",
             "not_pem": b"hello", "one_line": b"s3cret-value\n"}
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    servers = {
        "tls": netstubs.Canned(200, b"{}", "application/json", tls=(str(leaf.cert),
                                                                   str(leaf.key))),
        "html": netstubs.Canned(200, b"<!doctype html><title>Sign in</title>"),
        "html404": netstubs.Canned(404, b"<html>not here</html>"),
        "json_no_version": netstubs.Canned(200, b'{"ok": true}', "application/json"),
        "bad_version": netstubs.Canned(200, b'{"version": {"number": "x.y"}}',
                                       "application/json"),
        "401": netstubs.Canned(401, b"Unauthorized", "text/plain",
                               {"WWW-Authenticate": 'Basic realm="x"'}),
        "403": netstubs.Canned(403, json.dumps(SECURITY_403).encode(), "application/json"),
        "503": netstubs.Canned(503, b'{"error":"busy"}', "application/json"),
        "500": netstubs.Canned(500, b'{"error":{"type":"x","reason":"boom"}}',
                               "application/json"),
    }
    hole = netstubs.BlackHole()
    net = {name: srv.url for name, srv in servers.items()}
    net.update({f: str(tmp / f) for f in files}, ca=str(ca.path), hole=hole.url,
               refused=f"http://127.0.0.1:{netstubs.free_port()}")
    yield net
    for srv in servers.values():
        srv.shutdown()
    hole.close()


def cases(n: dict[str, str]) -> list[tuple[list[str], dict[str, str], int]]:
    """(arguments after ``show idx``, environment, expected exit code)."""
    tls, plain = n["tls"], n["html"]
    https_plain = plain.replace("http://", "https://")
    return [
        (["--url", "ftp://x"], {}, EXIT_USAGE),
        (["--url", "http://127.0.0.1:99999"], {}, EXIT_USAGE),
        (["--url", "http://"], {}, EXIT_USAGE),
        (["--url", "not a url"], {}, EXIT_USAGE),
        (["--url", "http://[::1"], {}, EXIT_USAGE),
        (["--url", "http://u:p#w@h:9200"], {}, EXIT_USAGE),
        (["--url", "http://u:pa/ss@h:9200"], {}, EXIT_USAGE),
        (["--cloud-id", "garbage"], {}, EXIT_USAGE),
        (["--cloud-id", "x:aG9zdA=="], {}, EXIT_USAGE),
        (["--url", "http://h:1", "--cloud-id", "x:aG9zdCRlcyQ="], {}, EXIT_USAGE),
        (["--user", "u"], {}, EXIT_USAGE),
        (["--password", "p1"], {}, EXIT_USAGE),
        (["--user", "u", "--password", "p1", "--api-key", "k1"], {}, EXIT_USAGE),
        (["--api-key", "k1", "--bearer-token", "t1"], {}, EXIT_USAGE),
        (["--bearer-token", "t1", "--aws-region", "eu-west-1"], {}, EXIT_USAGE),
        (["--aws-region", "eu-west-1", "--aws-service", "s3"], {}, EXIT_USAGE),
        (["--user", "u", "--password-file", "/nonexistent/pw"], {}, EXIT_NOT_FOUND),
        (["--user", "u", "--password-file", n["empty"]], {}, EXIT_USAGE),
        (["--api-key-file", n["two_lines"]], {}, EXIT_USAGE),
        (["--bearer-token-file", n["empty"]], {}, EXIT_USAGE),
        (["--api-key-file", n["latin1"]], {}, EXIT_USAGE),
        (["--api-key", "ab\ncd"], {}, EXIT_USAGE),
        (["--bearer-token", "ключ-токен"], {}, EXIT_USAGE),
        (["--user", "u", "--password", ""], {}, EXIT_USAGE),
        (["--user", "a:b", "--password", "p1"], {"QIDF_URL": n["refused"]}, EXIT_USAGE),
        (["--url", "https://h:1", "--ca-certs", "/nonexistent.pem"], {}, EXIT_NOT_FOUND),
        (["--url", "http://h:1", "--ca-certs", n["ca"]], {}, EXIT_USAGE),
        (["--url", tls, "--ca-certs", n["not_pem"]], {}, EXIT_USAGE),
        (["--url", tls, "--client-cert", n["not_pem"]], {}, EXIT_USAGE),
        (["--url", tls, "--client-key", n["ca"]], {}, EXIT_USAGE),
        (["--url", tls, "--client-cert", "/nonexistent.pem"], {}, EXIT_NOT_FOUND),
        (["--url", tls, "--ssl-assert-fingerprint", "zz"], {}, EXIT_USAGE),
        (["--url", tls, "--ssl-assert-fingerprint", FP, "--insecure"], {}, EXIT_USAGE),
        (["--url", tls, "--ssl-assert-fingerprint", FP, "--proxy", "http://p:1"], {},
         EXIT_USAGE),
        (["--timeout", "0"], {}, EXIT_USAGE),
        (["--timeout", "-1"], {}, EXIT_USAGE),
        (["--timeout", "nan"], {}, EXIT_USAGE),
        (["--timeout", "abc"], {}, EXIT_USAGE),
        (["--retries", "-1"], {}, EXIT_USAGE),
        (["--retries", "99"], {}, EXIT_USAGE),
        (["--retries", "x"], {}, EXIT_USAGE),
        (["--proxy", "socks5://x:1"], {}, EXIT_USAGE),
        (["--proxy", "http://"], {}, EXIT_USAGE),
        ([], {"QIDF_URL": "ftp://env"}, EXIT_USAGE),
        ([], {"QIDF_TIMEOUT": "never"}, EXIT_USAGE),
        ([], {"QIDF_API_KEY_FILE": n["empty"]}, EXIT_USAGE),
        ([], {"HTTPS_PROXY": "gopher://x", "QIDF_URL": tls}, EXIT_USAGE),
        (["--aws-region", "eu-west-1"], {"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
                                         "AWS_CONFIG_FILE": "/dev/null",
                                         "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                                         "AWS_EC2_METADATA_DISABLED": "true",
                                         "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
                                         "QIDF_URL": n["refused"]}, EXIT_USAGE),
        (["--url", n["refused"]], {}, EXIT_UNAVAILABLE),
        (["--url", "http://no-such-host.invalid:9200", "--retries", "0"], {},
         EXIT_UNAVAILABLE),
        (["--url", n["hole"], "--timeout", "0.5"], {}, EXIT_UNAVAILABLE),
        (["--url", tls.replace("https://", "http://"), "--retries", "0"], {},
         EXIT_UNAVAILABLE),
        (["--url", https_plain, "--retries", "0"], {}, EXIT_AUTH),
        (["--url", tls], {}, EXIT_AUTH),
        (["--url", tls, "--ssl-assert-fingerprint", FP], {}, EXIT_AUTH),
        (["--url", n["html"]], {}, EXIT_FAILED),
        (["--url", n["html404"]], {}, EXIT_FAILED),
        (["--url", n["json_no_version"]], {}, EXIT_FAILED),
        (["--url", n["bad_version"]], {}, EXIT_FAILED),
        (["--url", n["401"], "--user", "u", "--password", "пароль"], {}, EXIT_AUTH),
        (["--url", n["403"]], {}, EXIT_AUTH),
        (["--url", n["503"], "--retries", "0"], {}, EXIT_UNAVAILABLE),
        (["--url", n["500"], "--retries", "0"], {}, EXIT_UNAVAILABLE),
        (["--url", n["json_no_version"], "--proxy", n["refused"]], {}, EXIT_UNAVAILABLE),
    ]


def test_at_least_fifty_bad_inputs_each_one_line(net, capsys, monkeypatch):
    for name in ENV.values():
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    fast_cli.install(monkeypatch)
    all_cases = cases(net)
    assert len(all_cases) >= 50
    failures = []
    for extra, env, expected in all_cases:
        with monkeypatch.context() as m:
            for key, value in env.items():
                m.setenv(key, value)
            for json_flag in ([], ["--json"]):
                code, out, err = run(["show", "idx", *extra, *json_flag], capsys, m)
                lines = err.strip().splitlines()
                ok = (code == expected and code in EXIT_CODES and "Traceback" not in out + err
                      and len(lines) == 1 and lines[0].startswith("error: "))
                if json_flag and ok:
                    ok = json.loads(out)["error"]["exit_code"] == code
                if not ok:
                    failures.append((extra, env, expected, code, err.strip()[:300]))
    assert failures == [], "\n".join(map(str, failures))


def test_missing_boto3_names_the_extra(capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_boto3(name, *args, **kwargs):
        if name.split(".")[0] == "boto3":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_boto3)
    code, _out, err = run(["show", "idx", "--aws-region", "eu-west-1", "--url",
                          "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == EXIT_FAILED and "qidf[aws]" in err and err.count("\n") == 1
