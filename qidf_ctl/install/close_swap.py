"""The close strategy: close -> update ``index.similarity.default`` -> open.

The engines change a similarity only on a closed index, so search on it fails while it is
closed (a fraction of a second on one node). Whatever fails after the close, the index is
reopened: with the new settings if they were accepted, with the old ones otherwise.
"""

from __future__ import annotations

import time
from typing import Any

from qidf_ctl.cluster import Cluster, index_path, segment
from qidf_ctl.errors import ClusterError, QidfError
from qidf_ctl.install.state import SimilarityState
from qidf_ctl.progress import Progress
from qidf_ctl.similarity import update_body


def wait_searchable(cluster: Cluster, index: str, timeout_s: int = 60) -> None:
    # The query string is in the path: opensearch-py would take a "timeout" param as its own.
    health = cluster.request(
        "GET", f"/_cluster/health/{segment(index)}?wait_for_status=yellow&timeout={timeout_s}s"
    )
    if health.get("timed_out") or health.get("status") == "red":
        raise ClusterError(
            f"index {index!r} was reopened but is {health.get('status')} after {timeout_s}s: "
            f"check GET _cluster/allocation/explain"
        )


def open_index(cluster: Cluster, index: str) -> None:
    last: Exception | None = None
    for _ in range(3):
        try:
            cluster.request("POST", index_path(index, "_open"))
            wait_searchable(cluster, index)
            return
        except ClusterError as exc:
            last = exc
            time.sleep(1)
    raise ClusterError(f"could not reopen index {index!r}: {last}")


def swap_settings(
    cluster: Cluster, state: SimilarityState, target_flat: dict[str, Any], progress: Progress
) -> float:
    """close -> update to ``target_flat`` -> open; reopen with the old settings whatever
    fails. Returns seconds the index was closed."""
    body = update_body(state.similarity_flat, target_flat)
    progress(f"closing {state.index}")
    started = time.monotonic()
    cluster.request("POST", index_path(state.index, "_close"))
    update_error: ClusterError | None = None
    try:
        progress("updating similarity settings")
        cluster.request("PUT", index_path(state.index, "_settings"), body)
    except ClusterError as exc:
        update_error = exc
    finally:
        progress(f"reopening {state.index}")
        try:
            open_index(cluster, state.index)
        except ClusterError:
            if update_error is not None:
                raise
            # The new settings went in but the index will not open: put the old ones back.
            restore = update_body(target_flat, state.similarity_flat)
            cluster.request("POST", index_path(state.index, "_close"))
            cluster.request("PUT", index_path(state.index, "_settings"), restore)
            open_index(cluster, state.index)
            raise QidfError(
                f"index {state.index!r} would not open with the new similarity; "
                "the previous settings were restored and it is open again"
            ) from None
    if update_error is not None:
        raise QidfError(
            f"the engine refused the settings update ({update_error}); "
            f"index {state.index!r} is open again with its previous settings"
        )
    return time.monotonic() - started
