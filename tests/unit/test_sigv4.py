"""qidf's SigV4 signer against the verifier of tests/support/sigv4_proxy.py, offline: query
strings with spaces, commas and unicode, bodies, both services; tampering is caught. The
same signer goes through the proxy in front of a real node in tests/integration."""

from __future__ import annotations

from email.message import Message

import pytest
from botocore.credentials import Credentials

from qidf_ctl.cluster.query import target
from qidf_ctl.cluster.sigv4 import SigV4Auth
from tests.support.sigv4_proxy import Verifier

CREDS = Credentials("AKIAQIDFTESTONLY0000", "qidf/test+secret/000", "session-token-1")
HOST = "127.0.0.1:9272"


def headers_for(method: str, path: str, body: bytes, service: str) -> Message:
    signed = SigV4Auth(CREDS, "eu-west-1", service).headers(method, f"http://{HOST}{path}",
                                                             body)
    msg = Message()
    msg["Host"] = HOST
    for key, value in signed.items():
        msg[key] = value
    return msg


CASES = [
    ("GET", "/", b""),
    ("GET", target("/code-go/_search", {"q": "t:héllo wörld"}), b""),
    ("GET", target("/_cat/indices/code-go", {"format": "json", "h": "index,status"}), b""),
    ("GET", target("/_cluster/health/code-go?wait_for_status=yellow", {"timeout": "5s"}), b""),
    ("POST", target("/code-go/_search", {"scroll": "1m", "size": 10}), b'{"query":{}}'),
    ("PUT", "/sig-%C3%BC%2B/_doc/a%2Fb%23c%20%C3%BC%2Bd", b'{"t":"\xc3\xbc"}'),
    ("POST", "/_msearch", b'{"index":"a"}\n{"query":{"match_all":{}}}\n'),
    ("DELETE", target("/code-*", {"ignore_unavailable": True}), b""),
]


@pytest.mark.parametrize("service", ["es", "aoss"])
@pytest.mark.parametrize("method, path, body", CASES)
def test_signature_verifies_byte_for_byte_and_as_aws_reads_it(service, method, path, body):
    verdict = Verifier(CREDS, "eu-west-1", service).verify(
        method, path, headers_for(method, path, body, service), body)
    assert verdict.ok, verdict.reason
    assert set(verdict.matched) == {"wire", "aws"}


def test_tampering_is_refused():
    path = target("/i/_search", {"q": "a b"})
    msg = headers_for("POST", path, b"{}", "es")
    verifier = Verifier(CREDS, "eu-west-1", "es")
    assert not verifier.verify("POST", path, msg, b'{"x":1}').ok          # body changed
    assert not verifier.verify("POST", path + "x", msg, b"{}").ok           # query changed
    assert not Verifier(CREDS, "eu-west-1", "aoss").verify("POST", path, msg, b"{}").ok
    wrong = Credentials(CREDS.access_key, "not-the-secret", CREDS.token)
    assert not Verifier(wrong, "eu-west-1", "es").verify("POST", path, msg, b"{}").ok


def test_the_stock_encoding_of_a_space_would_fail():
    """Why qidf encodes queries itself: '+' for a space signs differently from %20."""
    path = "/i/_search?q=a+b"
    msg = headers_for("GET", "/i/_search?q=a%20b", b"", "es")
    assert not Verifier(CREDS, "eu-west-1", "es").verify("GET", path, msg, b"").ok


def test_requests_style_call_signs_a_prepared_request():
    import requests

    prepared = requests.Request("POST", f"http://{HOST}/i/_search?q=a%20b", data=b"{}").prepare()
    SigV4Auth(CREDS, "eu-west-1", "aoss")(prepared)
    msg = Message()
    msg["Host"] = HOST
    for key, value in prepared.headers.items():
        msg[key] = value
    assert Verifier(CREDS, "eu-west-1", "aoss").verify("POST", "/i/_search?q=a%20b", msg,
                                                       b"{}").ok
