"""Prove the engine accepts a similarity before the user's index is touched."""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.cluster.names import SCRATCH_PREFIX
from qidf_ctl.errors import ClusterError, QidfError
from qidf_ctl.install import faults
from qidf_ctl.similarity import SIMILARITY_NAME


def validate_on_scratch_index(cluster: Cluster, similarity: dict[str, Any],
                              name: str | None = None,
                              meta: dict[str, Any] | None = None) -> None:
    """Build the similarity on a throwaway index and score one query with it.

    The engine compiles the scripts and checks the similarity on synthetic statistics when
    an index is created; a query proves scoring works. Failing here costs nothing: the
    user's index has not been touched yet. ``meta`` names the lease of the run that made the
    scratch index, so that a later run can tell a leftover (its run is gone) from one in use.
    """
    scratch = name or f"{SCRATCH_PREFIX}{secrets.token_hex(4)}"
    body = {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0,
                               "similarity": {SIMILARITY_NAME: similarity}}},
        "mappings": {"_meta": meta or {}, "properties": {"text": {"type": "text"}}},
    }
    try:
        cluster.request("PUT", index_path(scratch), body)
        faults.at("scratch")
        cluster.request("PUT", index_path(scratch, "_doc", "1"),
                        {"text": "validate qidf similarity"}, {"refresh": "true"})
        cluster.request("POST", index_path(scratch, "_search"),
                        {"query": {"match": {"text": "qidf"}}})
    except ClusterError as exc:
        raise QidfError(
            f"the engine rejected the similarity, so the index was not touched: {exc}"
        ) from None
    finally:
        with contextlib.suppress(ClusterError):
            cluster.request("DELETE", index_path(scratch), None, {"ignore_unavailable": "true"})
