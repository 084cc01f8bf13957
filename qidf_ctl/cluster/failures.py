"""Every way a request can fail, as one line that says what to do, and an exit code.

Below HTTP (no answer): refused, DNS, TLS, timeout, proxy, reset. The clients wrap these in
their own exception classes several layers deep (elasticsearch-py keeps the cause only in
``errors``/``__cause__``), so the class is read from the whole chain, TLS first: an
``SSLError`` is also a ``ConnectionError``, and "cannot reach the cluster" was the wrong
advice for a certificate the client does not trust.

With an answer: 401, 403 (the missing privilege, see ``privileges``), 404, 429/5xx, and
answers that are not a search engine's JSON at all (an HTML login page, a proxy's error).
"""

from __future__ import annotations

import re
from typing import Any

from qidf_ctl.cluster import privileges
from qidf_ctl.cluster.redact import redact, redact_external, redact_tree
from qidf_ctl.errors import ClusterError

MAX_DETAIL = 160


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and everything it wraps (causes, contexts, ``errors``, ``info``, ``args``)."""
    seen: list[BaseException] = []
    todo: list[Any] = [exc]
    while todo and len(seen) < 50:
        item = todo.pop(0)
        if not isinstance(item, BaseException) or any(item is s for s in seen):
            continue
        seen.append(item)
        wrapped = _attr(item, "errors") or ()
        todo += [item.__cause__, item.__context__, *wrapped, _attr(item, "info"),
                 _attr(item, "reason"), *item.args]
    return seen


def _attr(item: BaseException, name: str) -> Any:
    """An attribute that may be a property failing on a short ``args`` (opensearch-py's)."""
    try:
        return getattr(item, name, None)
    except (IndexError, AttributeError):
        return None


def _str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a client's __str__ that trips on its own args
        return " ".join(str(a) for a in exc.args)


def _text(chain: list[BaseException]) -> str:
    return " | ".join(f"{type(e).__name__}: {_str(e)}" for e in chain)


def short(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` on one line, at most ``limit`` characters, cut at a word boundary."""
    text = redact_external(" ".join(str(text).split()))
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:(")
    return cut + "..."


def _tls(url: str, text: str) -> ClusterError | None:
    low = text.lower()
    if not any(k in low for k in ("ssl", "tls", "certificate", "fingerprint")):
        return None
    if "fingerprints did not match" in low or ("fingerprint" in low and "match" in low):
        got = re.search(r'got "?([0-9a-f]{64})', text)
        seen = f" (the server's is {got.group(1)})" if got else ""
        msg = (f"TLS: the certificate of {url} does not match --ssl-assert-fingerprint{seen}: "
               "refusing to connect")
    elif "hostname mismatch" in low or "doesn't match" in low or "not valid for" in low:
        msg = (f"TLS: the certificate of {url} is not valid for that host name: connect with "
               "a name it lists, or pin it with --ssl-assert-fingerprint")
    elif "certificate_verify_failed" in low or "certificate verify failed" in low:
        msg = (f"TLS: the certificate of {url} is not trusted (self-signed or an unknown CA): "
               "pass the CA with --ca-certs FILE (or QIDF_CA_CERTS), or pin the server "
               "certificate with --ssl-assert-fingerprint")
    elif "wrong_version_number" in low or "record layer failure" in low or "unknown protocol" \
            in low:
        msg = (f"TLS: {url} does not speak TLS on that port: use http:// in --url, or the "
               "cluster's https port")
    elif "alert" in low or "certificate_unknown" in low or "certificate required" in low:
        msg = (f"TLS: {url} refused the handshake (its client-certificate check failed): "
               "check --client-cert / --client-key and that the cluster trusts their CA")
    else:
        return None
    return ClusterError(msg, error_type="tls_error")


def from_exception(exc: BaseException, url: str, timeout: float) -> ClusterError:
    """A failure with no HTTP answer, as one line and an exit code."""
    url = redact(url)
    chain = _chain(exc)
    text = _text(chain)
    names = {type(e).__name__ for e in chain}
    low = text.lower()
    tls = _tls(url, text) if names & {"SSLError", "TlsError", "SSLCertVerificationError",
                                       "CertificateError"} or "ssl" in low else None
    if tls is not None:
        return tls
    if names & {"ConnectionTimeout", "ReadTimeoutError", "ConnectTimeoutError", "Timeout",
                "ReadTimeout", "ConnectTimeout", "TimeoutError", "timeout"} \
            or "timed out" in low:
        return ClusterError(
            f"no answer from {url} within {timeout:g}s: the cluster is slow or unreachable; "
            "retry, or raise --timeout", error_type="timeout", retryable=True)
    if "proxy" in low and ("proxyerror" in low or "tunnel" in low or "407" in low):
        return ClusterError(
            f"the proxy on the way to {url} failed ({short(_proxy_reason(text), 80)}): check "
            "--proxy / HTTPS_PROXY, or add the host to NO_PROXY", error_type="proxy_error",
            retryable=True)
    if "name or service not known" in low or "nodename nor servname" in low or \
            "failed to resolve" in low or "temporary failure in name resolution" in low or \
            "gaierror" in low or "no address associated" in low:
        return ClusterError(f"cannot reach {url}: its host name does not resolve; check "
                            "the name in --url",
                            error_type="dns_error", retryable=True)
    if "refused" in low:
        return ClusterError(
            f"cannot reach {url}: connection refused; is the cluster running there? Start the "
            "local one "
            "with `qidf engine start`, or set --url / QIDF_URL", error_type="connection_error",
            retryable=True)
    if "remotedisconnected" in low or "connection aborted" in low or "reset by peer" in low \
            or "badstatusline" in low or "protocolerror" in low:
        hint = " (is it an https port? try https://)" if url.startswith("http://") else ""
        return ClusterError(f"cannot reach {url}: it closed the connection without "
                            f"answering{hint}",
                            error_type="connection_error", retryable=True)
    detail = short(_str(chain[-1]) if chain else text)
    return ClusterError(f"cannot reach {url} ({detail})", error_type="connection_error",
                        retryable=True)


def _proxy_reason(text: str) -> str:
    match = re.search(r"(Tunnel connection failed: [^')\"]*|Cannot connect to proxy[^')\"]*)",
                      text)
    return match.group(1) if match else "proxy error"


def _looks_like_html(info: Any) -> bool:
    return isinstance(info, str) and info.lstrip()[:1] == "<"


def from_status(status: int, info: Any, url: str, path: str = "",
                distribution: str = "opensearch") -> ClusterError:
    """One line from an HTTP error answer: its cause, and what to do about it. The answer
    is redacted before any part of it is read: a server (or a proxy) may echo the
    credentials it decoded."""
    url = redact(url)
    info = redact_tree(info)
    error_type, reason = "", ""
    if isinstance(info, dict):
        err = info.get("error")
        if isinstance(err, dict):
            root = (err.get("root_cause") or [err])[0]
            error_type = root.get("type", "") or err.get("type", "")
            reason = root.get("reason", "") or err.get("reason", "")
        elif isinstance(err, str):
            reason = err
        elif isinstance(info.get("message") or info.get("Message"), str):  # AWS gateways
            reason = str(info.get("message") or info.get("Message"))
            error_type = "aws_signature" if "signature" in reason.lower() else "aws_error"
    elif _looks_like_html(info):
        return ClusterError(
            f"{url} answered HTTP {status} with an HTML page, not a search engine's JSON: "
            "is --url the cluster's address (not a login page or a dashboard)?",
            status=status if status >= 429 else None, error_type="not_a_search_engine")
    elif info:
        reason = str(info)
    if status == 401:
        return ClusterError(
            f"authentication failed at {url} (HTTP 401): the user and password, API key or "
            "token were refused; check --user/--password(-file), --api-key or --bearer-token",
            status=status, error_type="security_exception")
    if status == 403:
        return _forbidden(info, reason, error_type, url, path, distribution)
    if status == 503 and "security not initialized" in reason.lower():
        return ClusterError(f"{url}: the security plugin is not initialised yet (HTTP 503); "
                            "retry in a minute", status=status, retryable=True)
    text = f"{error_type}: {reason}" if error_type else (reason or f"HTTP {status}")
    return ClusterError(short(text, 400), status=status, error_type=error_type)


def _forbidden(info: Any, reason: str, error_type: str, url: str, path: str,
               distribution: str) -> ClusterError:
    if error_type == "aws_signature":
        return ClusterError(
            f"AWS refused the request signature at {url} (HTTP 403: {short(reason, 100)}): "
            "check the AWS credentials, --aws-region and --aws-service (aoss for Serverless)",
            status=403, error_type="aws_signature")
    if error_type == "cluster_block_exception":
        return ClusterError(f"blocked: {short(reason, 300)}", status=403,
                            error_type=error_type)
    found = privileges.parse(info)
    if found is not None:
        return ClusterError(privileges.message(found, path, distribution), status=403,
                            error_type="security_exception")
    if error_type == "aws_error":
        return ClusterError(
            f"AWS refused the request at {url} (HTTP 403: {short(reason, 160)}): check the "
            "access policy of the domain or collection", status=403, error_type="aws_error")
    return ClusterError(
        f"permission denied at {url} (HTTP 403: {short(reason, 200) or 'no reason given'})",
        status=403, error_type=error_type or "security_exception")


def redirected(status: int, location: str | None, url: str) -> ClusterError:
    """A 3xx answer: where it points (no query string: a login redirect carries session
    tokens there) and what to do. qidf follows no redirect: its credentials would go along."""
    url = redact(url)
    where = "no Location"
    if location:
        shown = redact_external(location.split("?", 1)[0].split("#", 1)[0])
        where = f"Location: {shown}"
    return ClusterError(
        f"{url} answered HTTP {status}, a redirect ({where}); qidf follows no redirect (the "
        "credentials would go along): if that is the cluster's address, give it with --url; "
        "a login or dashboard page means --url is not the cluster's API address",
        status=status, error_type="redirect")


def not_a_search_engine(url: str, what: str) -> ClusterError:
    return ClusterError(
        f"{redact(url)} {what}, not like Elasticsearch or OpenSearch: is --url the cluster's "
        "address?", error_type="not_a_search_engine")
