"""Where the cluster is and how to reach it, from options, environment and files: checked
here, before any network call, so that bad input gets one line and nothing is sent.

The CLI options (``cli/options.py``) and the Python API both end in ``from_options``; the
client is built from the result in one place (``cluster/build.py``). Secrets live only here
and in the client objects: ``repr`` never shows them, and every one is registered with
``redact``.
"""

from __future__ import annotations

import binascii
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qidf_ctl.cluster import secrets
from qidf_ctl.cluster.proxies import proxy_for
from qidf_ctl.cluster.redact import redact, register_basic
from qidf_ctl.cluster.sigv4 import SERVICES
from qidf_ctl.cluster.tls import check_file, normalise_fingerprint
from qidf_ctl.cluster.url import parse_url
from qidf_ctl.errors import UsageError

if TYPE_CHECKING:
    from qidf_ctl.cluster.requestlog import RequestLog

DEFAULT_URL = "http://127.0.0.1:9200"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 3
MAX_RETRIES = 10
MAX_TIMEOUT_S = 86400.0

# Every connection option's environment variable, once (the CLI shows them in --help).
ENV = {
    "url": "QIDF_URL", "cloud_id": "QIDF_CLOUD_ID",
    "username": "QIDF_USER", "password": "QIDF_PASSWORD", "password_file": "QIDF_PASSWORD_FILE",
    "api_key": "QIDF_API_KEY", "api_key_file": "QIDF_API_KEY_FILE",
    "bearer_token": "QIDF_BEARER_TOKEN", "bearer_token_file": "QIDF_BEARER_TOKEN_FILE",
    "aws_region": "QIDF_AWS_REGION", "aws_service": "QIDF_AWS_SERVICE",
    "ca_certs": "QIDF_CA_CERTS", "client_cert": "QIDF_CLIENT_CERT",
    "client_key": "QIDF_CLIENT_KEY", "ssl_assert_fingerprint": "QIDF_SSL_ASSERT_FINGERPRINT",
    "insecure": "QIDF_INSECURE", "proxy": "QIDF_PROXY", "timeout": "QIDF_TIMEOUT",
    "retries": "QIDF_RETRIES",
}


def _env(name: str) -> str | None:
    value = os.environ.get(ENV[name]) or None
    if value and not _is_text(value):
        raise UsageError(f"{ENV[name]} holds bytes that are not UTF-8 text: set it again")
    return value


def _is_text(value: str) -> bool:
    """False for the lone surrogates Python makes of bytes that are not UTF-8."""
    return not any("\ud800" <= ch <= "\udfff" for ch in value)


def cloud_id_url(cloud_id: str) -> str:
    """The Elasticsearch URL an Elastic Cloud ID encodes (``name:base64(host[:port]$es$kb)``
    -> ``https://es.host:port``), decoded the way elasticsearch-py does."""
    _, _, encoded = cloud_id.strip().partition(":")
    try:
        parts = binascii.a2b_base64(encoded.encode("ascii")).decode("ascii")
    except (ValueError, UnicodeError, binascii.Error):
        parts = ""
    host, _, rest = parts.partition("$")
    es_uuid = rest.partition("$")[0]
    host, _, port = host.rpartition(":") if ":" in host else (host, "", "443")
    if not host or not es_uuid or not port.isdigit():
        raise UsageError("--cloud-id is not an Elastic Cloud ID (name:base64 text, as shown "
                         "on the deployment's page)")
    return f"https://{es_uuid}.{host}:{port}"


def _check_url(url: str) -> tuple[str, str | None, str | None]:
    """``url`` canonical and without user:password (returned apart, percent-decoded); else
    a usage error that never echoes the credentials."""
    parsed = parse_url(url, "--url")
    return parsed.url, parsed.username, parsed.password


def _number(value: str | float | int | None, option: str, kind: type, low: float,
            high: float | None = None) -> float | int | None:
    if value is None or value == "":
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or number < low or (high is not None
                                                               and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise UsageError(f"{option} must be a number {bound}, got {value!r}")
    return number


def _retries(value: int | str | None) -> int:
    number = _number(value, "--retries", int, 0, MAX_RETRIES)
    return DEFAULT_RETRIES if number is None else int(number)


@dataclass
class ConnectionSettings:
    """Where the cluster is and how to authenticate; secrets are never rendered by repr."""

    url: str = DEFAULT_URL
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    bearer_token: str | None = field(default=None, repr=False)
    ca_certs: str | None = None
    insecure: bool = False
    client_cert: str | None = None
    client_key: str | None = None
    ssl_assert_fingerprint: str | None = None
    aws_region: str | None = None
    aws_service: str = "es"
    proxy: str | None = None  # resolved: None connects directly
    timeout: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES
    cloud_id: str | None = None
    # Where each request is written (--verbose, --trace); not a connection setting proper,
    # but it must be there while connecting: engine detection sends requests too.
    request_log: RequestLog | None = field(default=None, repr=False, compare=False)

    @property
    def https(self) -> bool:
        return self.url.startswith("https://")

    @property
    def serverless(self) -> bool:
        """An OpenSearch Serverless collection (SigV4 service ``aoss``)."""
        return self.aws_region is not None and self.aws_service == "aoss"

    @classmethod
    def from_options(
        cls,
        url: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_file: str | None = None,
        api_key: str | None = None,
        api_key_file: str | None = None,
        ca_certs: str | None = None,
        insecure: bool = False,
        *,
        bearer_token: str | None = None,
        bearer_token_file: str | None = None,
        cloud_id: str | None = None,
        aws_region: str | None = None,
        aws_service: str | None = None,
        client_cert: str | None = None,
        client_key: str | None = None,
        ssl_assert_fingerprint: str | None = None,
        proxy: str | None = None,
        timeout: float | str | None = None,
        retries: int | str | None = None,
    ) -> ConnectionSettings:
        """Options first, then the QIDF_* environment variables (``ENV``), then defaults;
        everything checked, nothing sent."""
        given = {"url": url, "username": username, "password": password,
                 "password_file": password_file, "api_key": api_key,
                 "api_key_file": api_key_file, "ca_certs": ca_certs,
                 "bearer_token": bearer_token, "bearer_token_file": bearer_token_file,
                 "cloud_id": cloud_id, "aws_region": aws_region, "aws_service": aws_service,
                 "client_cert": client_cert, "client_key": client_key, "proxy": proxy,
                 "ssl_assert_fingerprint": ssl_assert_fingerprint}
        for name, value in given.items():
            if isinstance(value, str) and not _is_text(value):  # typer read it from ENV too
                raise UsageError(f"--{name.replace('_', '-').replace('username', 'user')} "
                                 f"(or {ENV[name]}) holds bytes that are not UTF-8 text")
        url = url or _env("url")
        cloud_id = cloud_id or _env("cloud_id")
        if url and cloud_id:
            raise UsageError("give --url or --cloud-id (QIDF_URL or QIDF_CLOUD_ID), not both")
        url, url_user, url_password = _check_url(cloud_id_url(cloud_id) if cloud_id else
                                                 url or DEFAULT_URL)
        username = username or _env("username") or url_user
        password = secrets.read_secret(
            "password", password if password is not None else _env("password"),
            password_file or _env("password_file"), "--password", "--password-file"
        ) or url_password
        api_key = secrets.read_secret(
            "API key", api_key if api_key is not None else _env("api_key"),
            api_key_file or _env("api_key_file"), "--api-key", "--api-key-file")
        bearer_token = secrets.read_secret(
            "bearer token", bearer_token if bearer_token is not None else _env("bearer_token"),
            bearer_token_file or _env("bearer_token_file"), "--bearer-token",
            "--bearer-token-file")
        if username and password:  # "user:password" and its base64 before any message
            register_basic(username, password)
        aws_region = (aws_region or _env("aws_region") or "").strip() or None
        aws_service = (aws_service or _env("aws_service") or "es").strip().lower()
        _check_auth(username, password, api_key, bearer_token, aws_region, aws_service)
        insecure = insecure or (_env("insecure") or "").lower() in ("1", "true", "yes")
        ca_certs = ca_certs or _env("ca_certs")
        client_cert = client_cert or _env("client_cert")
        client_key = client_key or _env("client_key")
        fingerprint = ssl_assert_fingerprint or _env("ssl_assert_fingerprint")
        settings = cls(
            url=url, username=username, password=password, api_key=api_key,
            bearer_token=bearer_token,
            ca_certs=check_file(ca_certs, "--ca-certs") if ca_certs else None,
            insecure=insecure,
            client_cert=check_file(client_cert, "--client-cert") if client_cert else None,
            client_key=check_file(client_key, "--client-key") if client_key else None,
            ssl_assert_fingerprint=normalise_fingerprint(fingerprint) if fingerprint else None,
            aws_region=aws_region, aws_service=aws_service,
            proxy=proxy_for(url, proxy if proxy is not None else _env("proxy")),
            timeout=float(_number(timeout if timeout is not None else _env("timeout"),
                                  "--timeout", float, 0.001, MAX_TIMEOUT_S)
                          or DEFAULT_TIMEOUT_S),
            retries=_retries(retries if retries is not None else _env("retries")),
            cloud_id=cloud_id,
        )
        _check_tls(settings)
        return settings


def _check_auth(username: str | None, password: str | None, api_key: str | None,
                bearer_token: str | None, aws_region: str | None, aws_service: str) -> None:
    if password and not username:
        raise UsageError("a password was given without a user name: add --user")
    if username and password is None:
        raise UsageError(f"--user {username!r} was given without a password: add "
                         "--password-file (or QIDF_PASSWORD)")
    if aws_service not in SERVICES:
        raise UsageError(f"--aws-service must be es or aoss, got {aws_service!r}")
    ways = [name for name, given in (("--user/--password", username), ("--api-key", api_key),
                                     ("--bearer-token", bearer_token),
                                     ("--aws-region (SigV4)", aws_region)) if given]
    if len(ways) > 1:
        raise UsageError(f"choose one way to authenticate, got {' and '.join(ways)}")


def _check_tls(s: ConnectionSettings) -> None:
    tls_options = [o for o, v in (("--ca-certs", s.ca_certs), ("--client-cert", s.client_cert),
                                  ("--ssl-assert-fingerprint", s.ssl_assert_fingerprint))
                   if v]
    if tls_options and not s.https:
        raise UsageError(f"{tls_options[0]} needs an https:// URL, got {redact(s.url)}")
    if s.client_key and not s.client_cert:
        raise UsageError("--client-key needs --client-cert")
    if s.insecure and s.ssl_assert_fingerprint:
        raise UsageError("--insecure turns verification off; --ssl-assert-fingerprint pins "
                         "the certificate instead: give one of them")
    if s.ssl_assert_fingerprint and s.proxy:
        raise UsageError(
            "--ssl-assert-fingerprint cannot be checked through a proxy (the proxy-capable "
            "connection would silently skip it): connect directly (--proxy none, or add the "
            "host to NO_PROXY), or use --ca-certs")
