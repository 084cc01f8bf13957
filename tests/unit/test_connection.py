"""Connection settings: options, environment variables and files, checked before any network
call; the client built from them (classes, TLS, proxies, headers); the query encoder."""

from __future__ import annotations

import base64

import pytest

from qidf_ctl.cluster import auth, build, proxies, query
from qidf_ctl.cluster.connection import ENV, ConnectionSettings, cloud_id_url
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.tls import normalise_fingerprint
from qidf_ctl.errors import UsageError

FP = "AB:" * 31 + "CD"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in [*ENV.values(), "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy",
                 "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"]:
        monkeypatch.delenv(name, raising=False)


def settings(**kw) -> ConnectionSettings:
    return ConnectionSettings.from_options(**kw)


def test_defaults():
    s = settings()
    assert (s.url, s.timeout, s.retries, s.proxy) == ("http://127.0.0.1:9200", 60.0, 3, None)


def test_environment_is_read_for_every_option(monkeypatch, tmp_path):
    token = tmp_path / "t"
    token.write_text("tok-en.1\n")
    monkeypatch.setenv("QIDF_URL", "https://h:9243")
    monkeypatch.setenv("QIDF_BEARER_TOKEN_FILE", str(token))
    monkeypatch.setenv("QIDF_TIMEOUT", "5")
    monkeypatch.setenv("QIDF_RETRIES", "0")
    monkeypatch.setenv("QIDF_SSL_ASSERT_FINGERPRINT", FP)
    s = settings()
    assert (s.url, s.bearer_token, s.timeout, s.retries) == ("https://h:9243", "tok-en.1", 5, 0)
    assert s.ssl_assert_fingerprint == "ab" * 31 + "cd"


def test_option_wins_over_environment(monkeypatch):
    monkeypatch.setenv("QIDF_URL", "http://env:1")
    assert settings(url="http://opt:2").url == "http://opt:2"


def test_credentials_in_the_url_are_taken_out_of_it():
    s = settings(url="https://alice:p%23ss%2Fw%40rd@h:9200")
    assert (s.url, s.username, s.password) == ("https://h:9200", "alice", "p#ss/w@rd")
    assert "p#ss/w@rd" not in redact("boom p#ss/w@rd")


def test_cloud_id_decodes_like_elasticsearch_py():
    encoded = base64.b64encode(b"eu-west-1.aws.found.io:9243$abc123$kib").decode()
    assert cloud_id_url(f"my-deploy:{encoded}") == "https://abc123.eu-west-1.aws.found.io:9243"
    no_port = base64.b64encode(b"us.es.io$es1$").decode()
    assert settings(cloud_id=f"x:{no_port}").url == "https://es1.us.es.io:443"


@pytest.mark.parametrize("bad", ["", "nocolon", "x:%%%", "x:" + base64.b64encode(b"host").decode(),
                                 "x:" + base64.b64encode(b"host:port$es").decode()])
def test_bad_cloud_id_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="Cloud ID"):
        cloud_id_url(bad)


def test_url_and_cloud_id_together_are_refused():
    encoded = base64.b64encode(b"h.io$es$").decode()
    with pytest.raises(UsageError, match="not both"):
        settings(url="http://x:1", cloud_id=f"c:{encoded}")


@pytest.mark.parametrize("kw, fragment", [
    ({"username": "u", "password": "p1", "api_key": "k1"}, "one way"),
    ({"api_key": "k1", "bearer_token": "t1"}, "one way"),
    ({"bearer_token": "t1", "aws_region": "eu-west-1"}, "one way"),
    ({"password": "p1"}, "without a user"),
    ({"username": "u"}, "without a password"),
    ({"aws_region": "eu-west-1", "aws_service": "s3"}, "es or aoss"),
    ({"ca_certs": __file__}, "https"),
    ({"url": "https://h:1", "client_key": __file__}, "--client-cert"),
    ({"url": "https://h:1", "ssl_assert_fingerprint": "zz"}, "SHA-256"),
    ({"url": "https://h:1", "ssl_assert_fingerprint": FP, "insecure": True}, "one of them"),
    ({"url": "https://h:1", "ssl_assert_fingerprint": FP, "proxy": "http://p:3128"}, "proxy"),
    ({"timeout": "0"}, "--timeout"), ({"timeout": "nan"}, "--timeout"),
    ({"timeout": "abc"}, "--timeout"), ({"retries": "-1"}, "--retries"),
    ({"retries": "1.5"}, "--retries"), ({"retries": "99"}, "--retries"),
    ({"proxy": "socks5://p:1"}, "proxy"),
    ({"password": "p1", "password_file": __file__, "username": "u"}, "not both"),
])
def test_bad_combinations_are_usage_errors(kw, fragment):
    with pytest.raises(UsageError, match=fragment):
        settings(**kw)


def test_a_missing_ca_bundle_is_not_found_like_every_missing_file():
    from qidf_ctl.errors import NotFoundError

    with pytest.raises(NotFoundError, match=r"PEM file /nonexistent.pem \(--ca-certs\) not found"):
        settings(url="https://h:1", ca_certs="/nonexistent.pem")


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty"), (b"\n", "empty"), (b"   \n", "empty"), (b"line1\nline2\n", "more than one"),
    (b"a\tb", "control"), (b"\xff\xfe\x00", "UTF-8"),
])
def test_bad_secret_files_are_errors_not_no_credentials(tmp_path, content, fragment):
    path = tmp_path / "secret"
    path.write_bytes(content)
    for kw in ({"username": "u", "password_file": str(path)}, {"api_key_file": str(path)},
               {"bearer_token_file": str(path)}):
        with pytest.raises(UsageError, match=fragment) as info:
            settings(**kw)
        assert "line1" not in str(info.value)


def test_a_secret_file_keeps_everything_but_its_final_line_break(tmp_path):
    path = tmp_path / "pw"
    path.write_text("  пароль #/@% \r\n", encoding="utf-8")
    assert settings(username="u", password_file=str(path)).password == "  пароль #/@% "


def test_basic_header_is_utf8():
    header = auth.basic("ü", "пароль")
    assert base64.b64decode(header.split()[1]).decode() == "ü:пароль"


@pytest.mark.parametrize("bad", ["ab\ncd-efgh", "ключ-ключ", "a b c d", "x\x00yzzz"])
def test_tokens_a_header_cannot_carry_are_refused_without_echo(bad):
    for make in (auth.api_key, auth.bearer):
        with pytest.raises(UsageError) as info:
            make(bad)
        assert bad not in str(info.value) and "cd-efgh" not in str(info.value)


def test_api_key_pair_is_encoded_and_bearer_prefix_dropped():
    assert auth.api_key("id:key") == "ApiKey " + base64.b64encode(b"id:key").decode()
    assert auth.bearer("Bearer abc.def.ghi") == "Bearer abc.def.ghi"


def test_fingerprint_forms():
    assert normalise_fingerprint(FP.lower()) == normalise_fingerprint(FP.replace(":", " "))
    assert normalise_fingerprint("sha256=" + "0" * 64) == "0" * 64


def test_proxies_follow_the_standard_variables(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example,127.0.0.1")
    assert proxies.proxy_for("https://search.example:9200") == "http://proxy:3128"
    assert proxies.proxy_for("https://internal.example:9200") is None
    assert proxies.proxy_for("http://127.0.0.1:9200") is None  # no HTTP_PROXY either
    assert proxies.proxy_for("https://search.example:9200", "none") is None
    assert proxies.proxy_for("https://x:1", "http://other:8080") == "http://other:8080"


def test_proxy_password_is_a_secret(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://u:pr0xy-pw@proxy:3128")
    settings(url="https://h:9200")
    assert "pr0xy-pw" not in redact("Cannot connect to proxy u:pr0xy-pw@proxy")


def test_query_is_encoded_once_canonically():
    assert query.target("/i/_search", {"q": "t:héllo wörld", "h": "a,b"}) == \
        "/i/_search?q=t%3Ah%C3%A9llo%20w%C3%B6rld&h=a%2Cb"
    assert query.target("/_cluster/health/i?wait_for_status=yellow", {"timeout": "5s"}) == \
        "/_cluster/health/i?wait_for_status=yellow&timeout=5s"
    assert query.target("/x", {"flag": True, "skip": None}) == "/x?flag=true"
    url = "http://h/p?q=a%20b&h=a%2Cb"
    assert query.canonical_url(url) == url


def test_default_client_is_urllib3_with_qidf_tls(tmp_path):
    import opensearchpy

    s = settings(url="https://h:9200", ssl_assert_fingerprint=FP, username="u", password="pw1")
    client = build.opensearch_client(s)
    conn = client.transport.get_connection()
    assert isinstance(conn, opensearchpy.Urllib3HttpConnection)
    assert conn.headers["authorization"].startswith("Basic ")
    assert conn.pool.assert_fingerprint == s.ssl_assert_fingerprint


def test_proxy_client_ignores_requests_environment(monkeypatch):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/nonexistent/bundle.pem")
    s = settings(url="https://h:9200", proxy="http://proxy:3128", insecure=True)
    conn = build.opensearch_client(s).transport.get_connection()
    assert conn.session.trust_env is False
    assert conn.session.proxies == {"http": "http://proxy:3128", "https": "http://proxy:3128"}


def test_settings_repr_shows_no_secret():
    s = settings(username="u", password="hunter2-pw")
    assert "hunter2" not in repr(s)


def test_ipv6_url_keeps_its_brackets_when_credentials_are_taken_out():
    assert settings(url="http://u:pw12@[::1]:9200").url == "http://[::1]:9200"
