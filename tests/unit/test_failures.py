"""Every failure class as one line and its exit code; refusals named with the privilege and
the role JSON to grant it; refusals hidden inside 200 answers. The error bodies are the ones
the real OpenSearch 2.19.1 security plugin and the clients produced (issue 12's research)."""

from __future__ import annotations

import json
import socket
import ssl

import pytest
import urllib3.exceptions
from opensearchpy import exceptions as oe

from qidf_ctl.cluster import failures, privileges, responses
from qidf_ctl.errors import (
    EXIT_AUTH,
    EXIT_CONFLICT,
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_UNAVAILABLE,
)

URL = "https://127.0.0.1:9271"
USER = "User [name=qidf_op, backend_roles=[], requestedTenant=null]"


def denied(actions: str, suppressed: str | None = None) -> dict:
    root = {"type": "security_exception", "reason": f"no permissions for [{actions}] and {USER}"}
    if suppressed:
        root["suppressed"] = [{"type": "security_exception",
                               "reason": f"no permissions for [{suppressed}] and {USER}"}]
    return {"error": {"root_cause": [root], "type": "security_exception",
                      "reason": root["reason"]}, "status": 403}


def wrapped(exc: BaseException, outer: type = oe.ConnectionError) -> BaseException:
    return outer("N/A", f"{type(exc).__name__}({exc})", exc)


@pytest.mark.parametrize("exc, fragment, code", [
    (wrapped(ssl.SSLCertVerificationError(
        1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local "
           "issuer certificate (_ssl.c:1006)"), oe.SSLError), "--ca-certs", EXIT_AUTH),
    (oe.SSLError("N/A", 'Fingerprints did not match. Expected "00", got "' + "a1" * 32 + '".'),
     "a1a1", EXIT_AUTH),
    (wrapped(ssl.SSLError(1, "[SSL: SSLV3_ALERT_CERTIFICATE_UNKNOWN] sslv3 alert certificate "
                             "unknown"), oe.SSLError), "--client-cert", EXIT_AUTH),
    (wrapped(ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number"), oe.SSLError),
     "http://", EXIT_AUTH),
    (wrapped(ssl.SSLCertVerificationError(1, "Hostname mismatch, certificate is not valid for "
                                             "'vm'.")), "host name", EXIT_AUTH),
    (oe.ConnectionTimeout("TIMEOUT", "HTTPConnectionPool(host='127.0.0.1', port=9274): Read "
                                     "timed out. (read timeout=1)", None), "within 1s",
     EXIT_UNAVAILABLE),
    (wrapped(ConnectionRefusedError(111, "Connection refused")), "connection refused",
     EXIT_UNAVAILABLE),
    (wrapped(socket.gaierror(-2, "Name or service not known")), "does not resolve",
     EXIT_UNAVAILABLE),
    (wrapped(urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError())),
     "closed the connection", EXIT_UNAVAILABLE),
    (wrapped(urllib3.exceptions.ProxyError("Unable to connect to proxy",
                                           OSError("Tunnel connection failed: 403 Forbidden"))),
     "proxy", EXIT_UNAVAILABLE),
])
def test_failures_below_http(exc, fragment, code):
    err = failures.from_exception(exc, URL, 1.0)
    assert fragment in str(err) and err.exit_code == code
    assert "\n" not in str(err)


def test_tls_is_recognised_before_connection_errors():
    """SSLError subclasses ConnectionError: it used to say 'is the cluster running?'."""
    exc = wrapped(ssl.SSLCertVerificationError(1, "certificate verify failed"), oe.SSLError)
    assert "running" not in str(failures.from_exception(exc, URL, 60))


def test_long_details_are_cut_at_a_word_boundary():
    text = "HTTPConnection(host='127.0.0.1', port=9271): " + "word " * 80
    cut = failures.short(text, 60)
    assert cut.endswith("...") and len(cut) <= 63 and not cut[:-3].endswith("wor")


@pytest.mark.parametrize("status, info, fragment, code", [
    (401, "Unauthorized", "HTTP 401", EXIT_AUTH),
    (404, {"error": {"type": "index_not_found_exception", "reason": "no such index [x]"},
           "status": 404}, "no such index", EXIT_NOT_FOUND),
    (503, "OpenSearch Security not initialized.", "not initialised", EXIT_UNAVAILABLE),
    (502, "<html><body>Bad gateway</body></html>", "HTML page", EXIT_UNAVAILABLE),
    (200, "<!doctype html><title>Sign in</title>", "HTML page", EXIT_FAILED),
    (403, {"message": "The request signature we calculated does not match the signature you "
                      "provided."}, "--aws-region", EXIT_AUTH),
    (403, {"Message": "User: anonymous is not authorized to perform: es:ESHttpGet"},
     "access policy", EXIT_AUTH),
    (403, {"error": {"type": "cluster_block_exception", "reason": "index [x] blocked by: "
                     "[FORBIDDEN/8/index write (api)];"}, "status": 403}, "blocked",
     EXIT_CONFLICT),
    (429, {"error": {"type": "es_rejected_execution_exception", "reason": "rejected"}},
     "rejected", EXIT_UNAVAILABLE),
])
def test_http_failures(status, info, fragment, code):
    err = failures.from_status(status, info, URL, "/code-go/_settings")
    assert fragment in str(err) and err.exit_code == code


def test_missing_privilege_names_it_and_the_role_json():
    err = failures.from_status(403, denied("indices:admin/close"), URL, "/code-go/_close")
    text = str(err)
    assert err.exit_code == EXIT_AUTH
    assert "user 'qidf_op' lacks indices:admin/close on code-go" in text
    grant = json.loads(text.split(": ", 2)[2].split(" (docs/")[0])
    assert grant == {"index_permissions": [{"index_patterns": ["code-go"], "allowed_actions": [
        "indices:admin/close", "indices:admin/close[s]"]}]}


def test_cluster_level_actions_go_to_cluster_permissions():
    refusal = privileges.parse(denied("indices:data/read/scroll"))
    assert refusal is not None
    assert privileges.opensearch_grant(refusal.actions, "code-go") == {
        "cluster_permissions": ["indices:data/read/scroll"]}


def test_several_and_suppressed_actions_are_all_named():
    refusal = privileges.parse(denied("indices:admin/aliases, indices:admin/delete",
                                      "indices:monitor/stats"))
    assert refusal is not None
    assert refusal.actions == ["indices:admin/aliases", "indices:admin/delete",
                               "indices:monitor/stats"]


def test_bracketed_action_names_parse():
    refusal = privileges.parse(denied("indices:data/write/bulk[s]"))
    assert refusal is not None and refusal.actions == ["indices:data/write/bulk[s]"]


def test_elasticsearch_refusal_names_its_privilege():
    info = {"error": {"type": "security_exception", "reason":
                      "action [indices:admin/close] is unauthorized for user [bob] with "
                      "effective roles [reader] on indices [code], this action is granted by "
                      "the index privileges [manage,all]"}, "status": 403}
    text = str(failures.from_status(403, info, URL, "/code/_close", "elasticsearch"))
    assert "user 'bob' lacks indices:admin/close" in text
    assert '{"indices": [{"names": ["code"], "privileges": ["manage"]}]}' in text


CLOSE_WITHOUT_SHARD_PRIVILEGE = {
    "acknowledged": False, "shards_acknowledged": False, "indices": {"code-go": {
        "closed": False, "failedShards": {"0": {"failures": [{"status": "FORBIDDEN", "reason": {
            "type": "security_exception",
            "reason": f"no permissions for [indices:admin/close[s]] and {USER}"}}]}}}}}


def test_close_refused_per_shard_inside_a_200_is_a_403():
    err = responses.refusal("/code-go/_close", CLOSE_WITHOUT_SHARD_PRIVILEGE)
    assert err is not None and err.exit_code == EXIT_AUTH
    assert "indices:admin/close[s]" in str(err)
    assert responses.close_failure(CLOSE_WITHOUT_SHARD_PRIVILEGE, "code-go") is not None


def test_close_helper():
    assert responses.close_failure({"acknowledged": True, "indices": {"i": {"closed": True}}},
                                   "i") is None
    slow = responses.close_failure({"acknowledged": False, "indices": {"i": {"closed": False}}},
                                   "i")
    assert slow is not None and slow.retryable


@pytest.mark.parametrize("path, body", [
    ("/code-go/_mget", {"docs": [{"_id": "1", "error": {
        "type": "security_exception",
        "reason": f"no permissions for [indices:data/read/mget[shard]] and {USER}"}}]}),
    ("/_msearch", {"responses": [{"error": denied("indices:data/read/search")["error"],
                                  "status": 403}]}),
    ("/code-go/_mtermvectors", {"docs": [{"_id": "1", "error": {
        "type": "security_exception",
        "reason": f"no permissions for [indices:data/read/mtv[shard]] and {USER}"}}]}),
    ("/_bulk", {"errors": True, "items": [{"index": {"status": 403, "error": {
        "type": "security_exception",
        "reason": f"no permissions for [indices:data/write/bulk[s]] and {USER}"}}}]}),
])
def test_refusals_inside_multi_item_answers(path, body):
    err = responses.refusal(path, body)
    assert err is not None and err.status == 403 and "lacks" in str(err)


def test_other_item_errors_are_left_to_the_caller():
    body = {"docs": [{"_id": "1", "error": {"type": "document_missing_exception"}}]}
    assert responses.refusal("/i/_mtermvectors", body) is None
    assert responses.refusal("/i/_search", {"hits": {}}) is None


@pytest.mark.parametrize("path, index", [
    ("/code-go/_close", "code-go"), ("/_cat/indices/code-go?h=index", "code-go"),
    ("/_cluster/health/code%23x", "code#x"), ("/_msearch", None), ("/_cluster/settings", None),
    ("/_search/scroll", None),
])
def test_the_index_of_a_request(path, index):
    assert privileges.index_of(path) == index


BLOCK_WITHOUT_SHARD_PRIVILEGE = {
    "acknowledged": False, "shards_acknowledged": False, "indices": [{
        "name": "code-x", "failed_shards": [{"id": "0", "failures": [{
            "shard": 0, "index": "code-x", "status": "FORBIDDEN", "reason": {
                "type": "security_exception",
                "reason": f"no permissions for [indices:admin/block/add[s]] and {USER}"}}]}]}]}
REFRESH_403 = {"_shards": {"total": 1, "successful": 0, "failed": 1, "failures": [{
    "shard": 0, "index": "code-x", "status": "FORBIDDEN", "reason": {
        "type": "security_exception",
        "reason": f"no permissions for [indices:admin/refresh[s]] and {USER}"}}]}}


def test_other_shapes_of_per_shard_refusals():
    """Both found on the real plugin: a write block answers 200 with a list of indices, a
    refresh answers 403 with only _shards.failures."""
    err = responses.refusal("/code-x/_block/write", BLOCK_WITHOUT_SHARD_PRIVILEGE)
    assert err is not None and "indices:admin/block/add[s] on code-x" in str(err)
    text = str(failures.from_status(403, REFRESH_403, URL, "/code-x/_refresh"))
    assert "lacks indices:admin/refresh[s] on code-x" in text


def test_documents_that_look_like_errors_are_not_refusals():
    body = {"hits": {"hits": [{"_source": {"error": {"type": "security_exception"}}}]}}
    assert responses.refusal("/i/_search", body) is None
