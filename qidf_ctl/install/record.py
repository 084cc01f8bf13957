"""qidf's record in the mapping's ``_meta``: what was there before its first apply (so that
``revert`` restores it exactly) and what it installed (so that ``show`` can say how).

The record is written only after the settings change succeeded (and by recovery, from the
journal): engines cannot delete a ``_meta`` once it exists, so a change that fails must not
have written one where there was none.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.install.state import META_KEY, SimilarityState
from qidf_ctl.similarity import Installed, Mode, QlogParams


def installed_record(state: SimilarityState, params: QlogParams, mode: Mode, legacy: bool,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record after an apply: the settings before qidf's first apply are kept (a record
    that holds only the statistics part has no similarity to go back to yet)."""
    earlier = state.record or {}
    return {
        "previous": earlier.get("previous", state.similarity_flat),
        "installed": {
            **params.as_dict(), "mode": mode.value, "legacy_factor": legacy,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "by": f"qidf {__version__}", **(extra or {}),
        },
    }


def read_meta(cluster: Cluster, index: str) -> dict[str, Any] | None:
    """The mapping's ``_meta`` of an open index; None when the mapping has none at all."""
    mapping = cluster.request("GET", index_path(index, "_mapping"))[index]["mappings"]
    meta = mapping.get("_meta")
    return dict(meta) if isinstance(meta, dict) else None


def put_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> None:
    cluster.request("PUT", index_path(index, "_mapping"), {"_meta": meta})


def ensure_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> bool:
    """Make the mapping's ``_meta`` equal ``meta`` (idempotent). An index without ``_meta``
    gets none when ``meta`` is empty. True when it wrote."""
    current = read_meta(cluster, index)
    if (current or {}) == meta:
        return False
    put_meta(cluster, index, meta)
    return True


def without_record(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k != META_KEY}


def disagreement(installed: Installed, record: dict[str, Any] | None,
                 similarity_flat: dict[str, Any]) -> str | None:
    """Why the settings and qidf's record disagree (None when they agree): the sign of a
    change interrupted between the settings and the record, or of a hand edit."""
    if record is None:
        return None
    done = record.get("installed")
    if not isinstance(done, dict):
        return None
    if installed.kind != "qlog" or installed.params is None:
        previous = record.get("previous", {})
        same = {k: str(v) for k, v in previous.items()} == \
            {k: str(v) for k, v in similarity_flat.items()}
        where = "the settings it recorded as previous" if same else installed.describe()
        return f"_meta.qidf says q-log q={done.get('q')} is installed, but the index has {where}"
    p = installed.params
    want = (done.get("q"), done.get("k1"), done.get("b"), done.get("form"), done.get("mode"))
    have = (p.q, p.k1, p.b, p.form.value, installed.mode.value if installed.mode else None)
    if tuple(str(x) for x in want) != tuple(str(x) for x in have):
        return (f"_meta.qidf says q-log q={done.get('q')} ({done.get('mode')}) is installed, "
                f"but the settings hold {installed.describe()}")
    return None
