"""The cluster named or none: a URL parsed strictly by qidf, and the client handed exactly the
host and port it names (never a port the client would substitute)."""

from __future__ import annotations

import random
import string

import pytest

from qidf_ctl.cluster import build
from qidf_ctl.cluster.connection import ENV, ConnectionSettings
from qidf_ctl.cluster.redact import redact
from qidf_ctl.cluster.url import parse_url
from qidf_ctl.errors import UsageError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in [*ENV.values(), "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy",
                 "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"]:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("text, url", [
    ("http://127.0.0.1:9511", "http://127.0.0.1:9511"),
    ("HTTP://Search.Example:9200/", "http://search.example:9200"),
    ("https://search.example", "https://search.example:443"),
    ("https://[::1]:9200/es/", "https://[::1]:9200/es"),
    ("  http://h:1  ", "http://h:1"),
    ("http://h:65535", "http://h:65535"),
])
def test_good_urls_become_canonical_with_an_explicit_port(text, url):
    assert parse_url(text).url == url


@pytest.mark.parametrize("text, fragment", [
    ("http://127.0.0.1:0", "port '0'"),
    ("https://127.0.0.1:0", "port '0'"),
    ("http://h:65536", "port '65536'"),
    ("http://h:99999999999999999999", "a port is a number"),
    ("http://h:-1", "a port is a number"),
    ("http://h:92a0", "a port is a number"),
    ("http://h:\u0661\u0662", "a port is a number"),  # Arabic-Indic digits: isdigit() is True
    ("http://h", "must name its port"),
    ("http://h:", "must name its port"),
    ("ftp://h:21", "must look like"),
    ("h:9200", "must look like"),
    ("file:///etc/passwd", "must look like"),
    ("http://:9200", "names no host"),
    ("http://h_!:9200", "host name"),
    ("http://[::1:9200", "closing"),
    ("http://[zz]:9200", "not an IPv6"),
    ("http://h:9200?x=1", "query string"),
    ("http://h:9200/#x", "query string or fragment"),
    ("http://h:9200/a b", "path"),
])
def test_bad_urls_are_usage_errors(text, fragment):
    with pytest.raises(UsageError, match="--url") as caught:
        parse_url(text)
    assert fragment in str(caught.value)


@pytest.mark.parametrize("password", ["Zq pa#ss", "Zq pa/ss", "Zq pa?ss", "a#b", "x y"])
def test_a_password_that_breaks_the_url_is_refused_without_being_echoed(password):
    with pytest.raises(UsageError) as caught:
        ConnectionSettings.from_options(url=f"http://user:{password}@127.0.0.1:9511")
    message = redact(str(caught.value))
    assert password not in message and "Zq" not in message
    assert "--password-file" in message


def test_credentials_are_split_out_and_registered_before_any_message():
    s = ConnectionSettings.from_options(url="https://alice:s3cr%23t%40x@h.example:9243")
    assert (s.url, s.username, s.password) == ("https://h.example:9243", "alice", "s3cr#t@x")
    assert "s3cr#t@x" not in redact("echo s3cr#t@x and s3cr%23t%40x")
    assert "s3cr%23t%40x" not in redact("echo s3cr%23t%40x")


def test_a_raw_at_sign_in_the_password_is_read_up_to_the_last_at():
    s = ConnectionSettings.from_options(url="http://u:p@ss@h:9200")
    assert (s.url, s.password) == ("http://h:9200", "p@ss")


def test_an_unparsable_url_with_userinfo_echoes_nothing_before_its_last_at():
    with pytest.raises(UsageError) as caught:
        parse_url("gopher://bob:hunter22@h:70")
    assert "hunter22" not in redact(str(caught.value)) and "bob" not in str(caught.value)


def test_the_proxy_is_parsed_as_strictly():
    with pytest.raises(UsageError, match="--proxy"):
        ConnectionSettings.from_options(url="https://h:9200", proxy="http://proxy:0")
    s = ConnectionSettings.from_options(url="https://h:9200", proxy="http://p:s%40cret@proxy:3128")
    assert s.proxy == "http://p:s%40cret@proxy:3128"


def _reached(settings: ConnectionSettings) -> set[tuple[str, int]]:
    """The (host, port) pairs both clients would connect to."""
    reached = set()
    client = build.opensearch_client(settings)
    for connection in client.transport.connection_pool.connections:
        host_port = connection.host.split("://", 1)[1]
        host, _, port = host_port.rpartition(":")
        reached.add((host.strip("[]"), int(port)))
    es = build.elasticsearch_client(settings)
    reached.update((node.config.host, node.config.port) for node in es.transport.node_pool.all())
    return reached


_PORTS = ["0", "1", "80", "443", "9200", "65535", "65536", "99999", "", "x", "-5", "9 2", "0x50",
          "00009200", "+9200"]
_SCHEMES = ["http", "https", "HTTP", "ftp", "ws", "", "http:", "https:/"]
_HOSTS = ["127.0.0.1", "localhost", "search.example", "[::1]", "[fe80::1]", "", "h@x", "h#x"]
_USERINFO_CHARS = string.ascii_letters + string.digits + " :/?#[]@!$&'()*+,;=%-._~"


def _random_url(rng: random.Random) -> tuple[str, int | None]:
    scheme, host, port = rng.choice(_SCHEMES), rng.choice(_HOSTS), rng.choice(_PORTS)
    userinfo = ""
    if rng.random() < 0.5:
        userinfo = "".join(rng.choice(_USERINFO_CHARS) for _ in range(rng.randint(1, 12))) + "@"
    url = f"{scheme}://{userinfo}{host}" + (f":{port}" if port or rng.random() < 0.3 else "")
    if rng.random() < 0.2:
        url += rng.choice(["/", "/es", "/a?b", "#f", "/x@y"])
    wanted = int(port) if port.isdigit() and 1 <= int(port) <= 65535 else None
    return url, wanted


def test_fuzzed_urls_reach_the_port_they_name_or_nothing():
    rng = random.Random(28)
    accepted = 0
    for _ in range(3000):
        url, _wanted = _random_url(rng)
        try:
            settings = ConnectionSettings.from_options(url=url)
        except UsageError as exc:
            assert "unexpected" not in str(exc)
            continue
        accepted += 1
        parsed = parse_url(url)
        assert _reached(settings) == {(parsed.host, parsed.port)}, url
        # The port reached is the one written, or https's 443 when none was written.
        written = url.strip().split("://", 1)[1].rpartition("@")[2]
        authority = written.split("/", 1)[0]
        port_text = authority.rpartition("]")[2] if authority.startswith("[") else authority
        port_text = port_text.partition(":")[2]
        assert parsed.port == (int(port_text) if port_text else 443), url
        assert parsed.port != 0
    assert accepted > 100  # the fuzz reaches the accepting path too
