"""qidf's record in the mapping's ``_meta``: what was there before its first apply (so that
``revert`` restores it exactly) and what it installed (so that ``show`` can say how)."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError
from qidf_ctl.install.state import META_KEY, SimilarityState
from qidf_ctl.similarity import Mode, QlogParams


def installed_record(state: SimilarityState, params: QlogParams, mode: Mode, legacy: bool,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record after an apply: the settings before qidf's first apply are kept."""
    earlier = state.record or {"previous": state.similarity_flat}
    return {
        "previous": earlier.get("previous", {}),
        "installed": {
            **params.as_dict(), "mode": mode.value, "legacy_factor": legacy,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "by": f"qidf {__version__}", **(extra or {}),
        },
    }


def put_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> None:
    cluster.request("PUT", index_path(index, "_mapping"), {"_meta": meta})


def restore_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> None:
    with contextlib.suppress(ClusterError):
        put_meta(cluster, index, meta)


def without_record(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k != META_KEY}
