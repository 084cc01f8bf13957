"""What qidf creates outside the index it was told to change, and how it knows what is its own.

A change to one index may need objects beside it. Each has a **name** that says it is
qidf's and a **marker** stored in the object itself that says which index owns it (the
name alone is not proof: anyone can create ``qidf-stats-code``, and ``_clone`` or a
snapshot restore copies an index's settings and ``_meta``, so a second index may name the
first one's object):

==============================  ==================================  =======================
object                          name                                marker (owner)
==============================  ==================================  =======================
search pipeline (``--stats``)   ``qidf-stats-<key>``                its ``description``
                                                                    begins ``qidf: scoring
                                                                    searches of <key> use``
state index (leases, journals)  ``qidf-state``                      the document
                                                                    ``owner:qidf-state``
clone of ``--strategy clone``   ``<key>-qidf-<8 hex>``              the engine's own
                                                                    ``index.resize.source.
                                                                    uuid``: the journaled
                                                                    source's uuid
alias replacing an index        ``<key>`` on the clone              the clone's
(``--strategy clone``)                                              ``_meta.qidf`` record
==============================  ==================================  =======================

``<key>`` is the name clients use (the lease key: an index, or the alias a clone serves).
The rules, for every object qidf writes or deletes:

1. **Check before writing.** An object that exists is overwritten only when its marker
   names the same owner; one owned by another index, or with no qidf marker, is refused
   before anything changes: ``ConflictError`` (exit 6), one line naming the object and whose
   it is. (A recovery finding the same refusal settles the operation back.)
2. **Delete only what is unused.** An object is deleted only when its marker names the
   index being changed *and* no other index uses it (for a pipeline: no index names it in
   ``index.search.default_pipeline``, which a ``_clone`` copies). Otherwise it is kept, and
   the change says which index uses it. When the other indices' settings cannot be read (a
   403), it is kept too, and the change says so: a pipeline left behind costs nothing, a
   pipeline deleted under an index makes every search of that index fail.
3. **Another index's object is never changed.** An index that names an object owned by
   another index (it was cloned or restored from that index) gets its own object when qidf
   changes it; ``revert`` points it back at what its record says it had, and leaves the
   other index's object alone.

New objects (a statistics snapshot, say) follow the same three rules: a name with
``qidf``'s prefix and the owner's key, a marker inside the object naming the owner, and the
``check_owner`` / ``users`` calls below before writing and before deleting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError, ConflictError

PIPELINE_MARK = "qidf: scoring searches of {key} use index-wide term statistics"
_PIPELINE_OWNER = re.compile(r"^qidf: scoring searches of (\S+) use index-wide term statistics")
NOT_QIDF = None  # the owner of an object without qidf's marker


def pipeline_owner(body: dict[str, Any] | None) -> str | None:
    """The key a qidf statistics pipeline belongs to, from its description; None for a
    pipeline qidf did not make (or none at all)."""
    description = (body or {}).get("description")
    if not isinstance(description, str):
        return NOT_QIDF
    match = _PIPELINE_OWNER.match(description)
    return match.group(1) if match else NOT_QIDF


def whose(owner: str | None) -> str:
    return "not qidf's (it has no qidf marker)" if owner is None else \
        f"qidf's object for the index {owner!r}"


def check_owner(what: str, name: str, owner: str | None, key: str, fix: str) -> None:
    """Rule 1: refuse to write ``name`` (an existing ``what``) unless it is ``key``'s."""
    if owner == key:
        return
    raise ConflictError(f"the {what} {name!r} exists and is {whose(owner)}: qidf does not "
                        f"overwrite it for {key!r}; {fix}")


def users(cluster: Cluster, setting: str, value: str, besides: Iterable[str] = ()
          ) -> list[str] | None:
    """Rule 2: the indices (other than ``besides``) whose ``setting`` is ``value``; None when
    the settings of every index cannot be read (then nobody may be assumed not to use it)."""
    try:
        found = cluster.request("GET", f"/_all/_settings/{setting}",
                                params={"flat_settings": "true", "expand_wildcards": "all"})
    except ClusterError as exc:
        if exc.status in (401, 403):
            return None
        if exc.status == 404:
            return []
        raise
    skip = set(besides)
    return sorted(index for index, body in (found or {}).items()
                  if index not in skip
                  and ((body or {}).get("settings") or {}).get(setting) == value)


def kept_line(what: str, name: str, using: list[str] | None) -> str:
    """What a change says when rule 2 kept an object it would have deleted."""
    if using is None:
        return (f"kept the {what} {name}: this user may not read every index's settings, so "
                f"whether another index still uses it is unknown; delete it (DELETE "
                f"_search/pipeline/{name}) once no index names it")
    shown = ", ".join(using[:5]) + (f" and {len(using) - 5} more" if len(using) > 5 else "")
    return (f"kept the {what} {name}: {shown} still use{'s' if len(using) == 1 else ''} it "
            "(a _clone or a restore copies index.search.default_pipeline); delete it (DELETE "
            f"_search/pipeline/{name}) once no index names it")
