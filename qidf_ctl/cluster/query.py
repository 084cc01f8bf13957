"""The one encoder of query strings: every request's ``params`` go through ``target``.

AWS SigV4 signs the query in its canonical form (RFC 3986: every byte but ``A-Z a-z 0-9 - _
. ~`` as ``%XX``, a space as ``%20``). The clients put ``urlencode``'s form on the wire (a
space as ``+``, a raw ``,``), and opensearch-py's signer re-encodes what it signs, so a
query value with a space or a comma failed the signature check. Encoding every query here,
once, in the canonical form, makes the bytes on the wire and the bytes signed the same.

A query string written into a path (``/_cluster/health/x?timeout=5s``) is split off and
re-encoded the same way, so callers that do that still sign correctly. Encoding the query
into the path ourselves also keeps ``timeout`` a server parameter (opensearch-py would take
a ``timeout`` in ``params`` as its own client timeout).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote

SAFE = "-_.~"


def spell(value: Any) -> str:
    """A parameter value as the engines spell it (booleans lower-case)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(spell(v) for v in value)
    return str(value)


def encode(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{quote(k, safe=SAFE)}={quote(v, safe=SAFE)}" for k, v in pairs)


def target(path: str, params: Mapping[str, Any] | None = None) -> str:
    """``path`` with ``params`` (and any query already in ``path``) canonically encoded."""
    base, _, inline = path.partition("?")
    pairs = parse_qsl(inline, keep_blank_values=True) if inline else []
    pairs += [(str(k), spell(v)) for k, v in (params or {}).items() if v is not None]
    return f"{base}?{encode(pairs)}" if pairs else base


def canonical_url(url: str) -> str:
    """``url`` with its query re-encoded canonically: what a SigV4 signature covers."""
    base, sep, query = url.partition("?")
    if not sep:
        return url
    return f"{base}?{encode(parse_qsl(query, keep_blank_values=True))}"
