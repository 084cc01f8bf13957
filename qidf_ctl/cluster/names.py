"""Index and alias names as they reach a URL: validated, then percent-encoded as one segment.

A name is spliced into request paths, where ``#`` would start a fragment, ``?`` a query
string, ``/`` another segment and ``*`` or ``,`` a wildcard or a list: ``code-idx#zzz``
would silently address ``code-idx``. So every name a user gives is checked against the
engines' own rules before any request, and encoded when it is used.
"""

from __future__ import annotations

from urllib.parse import quote

from qidf_ctl.errors import UsageError

MAX_NAME_BYTES = 255
# Refused by the engines themselves (MetadataCreateIndexService) or meaningful in a URL path.
_FORBIDDEN = set('\\/*?"<>|, #:')


def check_name(name: str, what: str = "index") -> str:
    """Return ``name`` if it can name exactly one index or alias; else UsageError saying why."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"give the {what} name (it is empty)")
    bad = sorted({ch for ch in name if ch in _FORBIDDEN or ch.isspace() or ord(ch) < 32})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise UsageError(
            f"{what} name {name!r} contains {shown}: give one exact {what} name "
            "(no wildcards, lists, spaces, '#', '?', '/' or ':')")
    if name in (".", "..") or name.startswith(("_", "-", "+")):
        raise UsageError(f"{what} name {name!r} cannot start with '_', '-' or '+', or be "
                         "'.' or '..'")
    if name != name.lower():
        raise UsageError(f"{what} name {name!r} has upper-case letters, which index and alias "
                         "names cannot have: check the spelling")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise UsageError(f"{what} name is longer than {MAX_NAME_BYTES} bytes")
    return name


def segment(name: str) -> str:
    """``name`` percent-encoded as one URL path segment (nothing left that a URL reads)."""
    return quote(name, safe="")


def index_path(index: str, *rest: str) -> str:
    """``/<index>/<rest...>`` with the index name encoded; ``rest`` are fixed API words."""
    tail = "/".join(rest)
    return f"/{segment(index)}" + (f"/{tail}" if tail else "")
