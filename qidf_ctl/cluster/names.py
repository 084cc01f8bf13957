"""Index and alias names as they reach a URL: validated, then percent-encoded as one segment.

A name is spliced into request paths, where ``#`` would start a fragment, ``?`` a query
string, ``/`` another segment and ``*`` or ``,`` a wildcard or a list: ``code-idx#zzz``
would silently address ``code-idx``. So every name a user gives is checked against the
engines' own rules before any request, and encoded when it is used. The names qidf makes
itself (its state index, scratch indices, clones, state document ids) are derived here too,
so that one module decides what a name may be.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from qidf_ctl.errors import UsageError

MAX_NAME_BYTES = 255
# Refused by the engines themselves (MetadataCreateIndexService) or meaningful in a URL path.
_FORBIDDEN = set('\\/*?"<>|, #:')

# Indices qidf owns: its lease and journal store, and the scratch indices of validation.
STATE_INDEX = "qidf-state"
SCRATCH_PREFIX = "qidf-validate-"
# The default search pipeline of an index whose scoring searches use index-wide statistics.
STATS_PIPELINE_PREFIX = "qidf-stats-"
# The plugin's index of statistics snapshots (``--stats snapshot``).
SNAPSHOT_INDEX = "qidf-snapshots"
# A clone made by ``--strategy clone`` is ``<public name>-qidf-<8 hex>``.
CLONE_MARK = "-qidf-"
_CLONE_TOKEN = re.compile(r"-qidf-([0-9a-f]{8})$")


def check_name(name: str, what: str = "index") -> str:
    """Return ``name`` if it can name exactly one index or alias; else UsageError saying why."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"give the {what} name (it is empty)")
    bad = sorted({ch for ch in name if ch in _FORBIDDEN or ch.isspace() or ord(ch) < 32
                  or 0xD800 <= ord(ch) <= 0xDFFF})
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


def is_hidden_name(name: str) -> bool:
    """Dot-prefixed names are hidden or system indices by the engines' convention."""
    return name.startswith(".")


def is_qidf_owned(name: str) -> bool:
    """qidf's own indices, which no similarity command may change."""
    return name in (STATE_INDEX, SNAPSHOT_INDEX) or name.startswith(SCRATCH_PREFIX)


def _fit(prefix: str, suffix: str) -> str:
    """``prefix + suffix`` cut (at a character boundary of ``prefix``) to the byte limit."""
    room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    raw = prefix.encode("utf-8")[:room]
    return raw.decode("utf-8", errors="ignore") + suffix


def clone_name(public: str, token: str) -> str:
    """The index a clone swap creates for ``public`` (the name clients use): at most 255
    bytes, however long ``public`` is, and recognisable by ``clone_public_name``."""
    if not re.fullmatch(r"[0-9a-f]{8}", token):
        raise ValueError(f"clone token must be 8 hex digits, got {token!r}")
    return _fit(public, f"{CLONE_MARK}{token}")


def clone_public_name(index: str, aliases: list[str]) -> str | None:
    """The public name a qidf clone serves: the alias ``a`` of ``index`` for which
    ``index == clone_name(a, token)``; None when ``index`` is not a qidf clone."""
    match = _CLONE_TOKEN.search(index)
    if not match:
        return None
    for alias in sorted(aliases):
        if clone_name(alias, match.group(1)) == index:
            return alias
    return None


def scratch_name(run_id: str) -> str:
    """A validation index of one run: its run id says whose it is."""
    return f"{SCRATCH_PREFIX}{run_id}"


def scratch_run_id(index: str) -> str | None:
    return index[len(SCRATCH_PREFIX):] if index.startswith(SCRATCH_PREFIX) else None


def stats_pipeline_id(key: str) -> str:
    """The search pipeline ``apply --stats index`` makes for the index clients call ``key``
    (one per index, so that ``revert`` deletes only what this index used)."""
    return f"{STATS_PIPELINE_PREFIX}{key}"


def state_doc_id(kind: str, key: str) -> str:
    """Id of a lease or journal document; ``key`` is a checked index name (<= 255 bytes),
    so the id stays under the engines' 512-byte limit."""
    return f"{kind}:{key}"
