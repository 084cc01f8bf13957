"""Authorization headers, built by qidf for both clients: Basic, ApiKey, Bearer.

Built here rather than by the clients because the clients get it wrong at the edges: both
encode Basic credentials as latin-1 (elasticsearch-py: ASCII), so a password like
``пароль`` raised ``UnicodeEncodeError`` with a traceback, while the security plugin and
Elasticsearch decode UTF-8. And a token with a line break in it ended in ``Invalid header
value b'ApiKey <the key>'``, printing the secret; it is refused here, without echoing it.
"""

from __future__ import annotations

import base64

from qidf_ctl.cluster.redact import (
    register_api_key,
    register_basic,
    register_secret,
    register_token,
)
from qidf_ctl.errors import UsageError


def basic(username: str, password: str) -> str:
    """``Basic base64(user:password)`` over UTF-8, as RFC 7617 recommends."""
    if ":" in username:
        raise UsageError("--user must not contain ':' (Basic authentication splits on it)")
    register_basic(username, password)
    token = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
    return f"Basic {token}"


def _token(value: str, what: str) -> str:
    """A token goes into a header as is: visible ASCII only, never echoed."""
    register_secret(value)
    if not value.isascii() or not value.isprintable() or " " in value.strip():
        raise UsageError(f"the {what} contains a character a header cannot carry (non-ASCII, "
                         "a space or a control character): check that it was copied whole")
    return value.strip()


def api_key(value: str) -> str:
    """``ApiKey <base64 id:key>`` (Elasticsearch; OpenSearch 3.7+). An ``id:key`` pair is
    encoded for the user, as elasticsearch-py does for a tuple."""
    register_api_key(value)  # both forms and both parts, before any check can fail
    key = _token(value, "API key")
    if ":" in key:
        key = base64.b64encode(key.encode()).decode("ascii")
        register_secret(key)
    return f"ApiKey {key}"


def bearer(value: str) -> str:
    """``Bearer <token>``: a JWT (OpenSearch security's jwt auth domain, Elasticsearch
    token service) or another bearer token the cluster accepts."""
    register_token(value)
    if value.strip().lower().startswith("bearer "):  # pasted with its scheme
        value = value.strip()[7:]
        register_token(value)
    return f"Bearer {_token(value, 'bearer token')}"
