"""AWS SigV4 request signing for Amazon OpenSearch Service (``es``) and Serverless (``aoss``).

Credentials come from boto3's default chain (environment, ``AWS_PROFILE`` / ``~/.aws``,
container or instance role), so qidf needs no AWS option of its own beyond the region.

The signer does what opensearch-py's ``Urllib3AWSV4SignerAuth`` does (botocore's
``SigV4Auth`` over method, URL and body, plus a signed ``x-amz-content-sha256``, which
Serverless requires), with one difference that matters: it signs the query in the canonical
form that ``query.target`` also puts on the wire. opensearch-py's signer re-encodes the
query with ``urlencode`` (a space as ``+``), and AWS answers 403 to every query with a space
in it (checked against a verifying proxy, ``tests/support/sigv4_proxy.py``). Only
``content-type``/``content-length`` are left unsigned, so a proxy that rewrites them does
not break the signature.

One object serves both connection styles: the urllib3 connection calls it with
``(method, url, body)`` and merges the headers it returns; the requests connection calls it
with a prepared request (requests' ``AuthBase`` protocol).
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster.query import canonical_url
from qidf_ctl.cluster.redact import register_secret
from qidf_ctl.errors import UsageError, missing_extra

SERVICES = ("es", "aoss")


def default_credentials() -> Any:
    """boto3's default credential chain; a one-line error when it finds nothing."""
    try:
        import boto3
    except ImportError:
        raise missing_extra("AWS SigV4 signing (--aws-region)", "aws", "boto3") from None
    try:
        credentials = boto3.Session().get_credentials()
    except Exception as exc:  # botocore's profile and config errors
        raise UsageError(f"cannot load AWS credentials: {type(exc).__name__}: {exc}") from None
    if credentials is None:
        raise UsageError(
            "no AWS credentials found (looked at AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, "
            "AWS_PROFILE and ~/.aws, and the instance or container role): configure one "
            "of them")
    frozen = credentials.get_frozen_credentials()
    register_secret(frozen.secret_key)
    register_secret(frozen.token)
    return credentials


class SigV4Auth:
    """Signs each request for ``service`` in ``region`` with ``credentials`` (refreshed by
    botocore when they are temporary)."""

    def __init__(self, credentials: Any, region: str, service: str = "es") -> None:
        if service not in SERVICES:
            raise UsageError(f"--aws-service must be es or aoss, got {service!r}")
        self.credentials = credentials
        self.region = region
        self.service = service

    def headers(self, method: str, url: str, body: Any) -> dict[str, str]:
        """The ``Authorization``, ``X-Amz-Date``, ``X-Amz-Content-SHA256`` (and
        ``X-Amz-Security-Token``) headers for one request."""
        from botocore.auth import SigV4Auth as BotoSigner
        from botocore.awsrequest import AWSRequest

        if isinstance(body, str):
            body = body.encode("utf-8")
        frozen = self.credentials.get_frozen_credentials()
        request = AWSRequest(method=method.upper(), url=canonical_url(url), data=body)
        signer = BotoSigner(frozen, self.service, self.region)
        request.headers["X-Amz-Content-SHA256"] = signer.payload(request)
        signer.add_auth(request)
        return {k: v for k, v in request.headers.items() if k.lower() != "host"}

    def __call__(self, *args: Any) -> Any:
        if len(args) == 1:  # requests: a PreparedRequest, returned signed
            prepared = args[0]
            prepared.headers.update(self.headers(prepared.method, prepared.url, prepared.body))
            return prepared
        method, url, body = args[:3]  # urllib3 connection: (method, url, body[, headers])
        return self.headers(method, url, body)
