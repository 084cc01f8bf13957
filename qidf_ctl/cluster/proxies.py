"""Which HTTP proxy a cluster URL goes through: ``--proxy``, else the standard variables.

The clients' default (urllib3) connections ignore ``HTTPS_PROXY``, so a user behind a
corporate proxy saw qidf connect directly and time out. qidf resolves the proxy itself, once,
the way curl and requests do (``HTTPS_PROXY`` / ``HTTP_PROXY`` by the URL's scheme, lower or
upper case, ``NO_PROXY`` exempting hosts), and hands the result to the client explicitly.
"""

from __future__ import annotations

import urllib.request
from urllib.parse import quote, urlsplit

from qidf_ctl.cluster.url import parse_url

NO_PROXY_VALUES = ("", "none", "direct")


def check_proxy(proxy: str) -> str:
    """A proxy URL qidf can use: http(s)://host:port, parsed as strictly as a cluster URL
    (its password is registered secret; the canonical URL keeps it for the client)."""
    parsed = parse_url(proxy, "--proxy (or HTTPS_PROXY / HTTP_PROXY)")
    if parsed.username is None:
        return parsed.url
    netloc_user = quote(parsed.username, safe="")
    netloc_password = f":{quote(parsed.password, safe='')}" if parsed.password else ""
    scheme, rest = parsed.url.split("://", 1)
    return f"{scheme}://{netloc_user}{netloc_password}@{rest}"


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
