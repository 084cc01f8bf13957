"""Which HTTP proxy a cluster URL goes through: ``--proxy``, else the standard variables.

The clients' default (urllib3) connections ignore ``HTTPS_PROXY``, so a user behind a
corporate proxy saw qidf connect directly and time out. qidf resolves the proxy itself, once,
the way curl and requests do (``HTTPS_PROXY`` / ``HTTP_PROXY`` by the URL's scheme, lower or
upper case, ``NO_PROXY`` exempting hosts), and hands the result to the client explicitly.
"""

from __future__ import annotations

import urllib.request
from urllib.parse import SplitResult, urlsplit

from qidf_ctl.cluster.redact import register_secret
from qidf_ctl.errors import UsageError

NO_PROXY_VALUES = ("", "none", "direct")


def split_http_url(url: str) -> SplitResult | None:
    """``url`` split, if it is http(s)://host[:port]...; None otherwise (a port that is no
    port included). Never raises: the caller words the error, without echoing secrets."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no port
    except ValueError:
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def check_proxy(proxy: str) -> str:
    """A proxy URL qidf can use: http(s)://host:port (its password is registered secret)."""
    parts = split_http_url(proxy)
    if parts is None:
        raise UsageError("--proxy (or HTTPS_PROXY / HTTP_PROXY) must look like "
                         "http://host:port")
    register_secret(parts.password)
    return proxy.rstrip("/")


def proxy_for(url: str, explicit: str | None = None) -> str | None:
    """The proxy for ``url``: ``explicit`` if given ("none" forces a direct connection),
    else the environment's choice; None means connect directly."""
    if explicit is not None:
        return None if explicit.strip().lower() in NO_PROXY_VALUES else check_proxy(explicit)
    parts = urlsplit(url)
    host = parts.hostname or ""
    found = urllib.request.getproxies_environment()
    proxy = found.get(parts.scheme) or found.get("all")
    if not proxy:
        return None
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if bypass(host, found):
        return None
    return check_proxy(proxy)
