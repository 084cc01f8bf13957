"""What a managed service will not do, found out before anything changes.

An index's similarity changes only on a closed index (``--strategy close``) or on a clone
(``--strategy clone``). OpenSearch Serverless offers neither ``_close`` nor ``_clone`` (its
API is a documented subset: ``docs/how-to/managed.md``), and some clusters set
``cluster.indices.close.enable: false``. Both are reported in one line, with what to do
instead, before the first write.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.errors import ClusterError, ConflictError

SERVERLESS_HOST = ".aoss.amazonaws.com"
QUERY_TIME = ("compute q-log at query time instead (boosted term queries on the unchanged "
              "index: `qidf search`, `qidf eval --query-time`), or create a new index with "
              "the settings of `qidf render` and reindex into it")


def is_serverless(url: str, aws_service: str | None) -> bool:
    """An OpenSearch Serverless collection: signed for ``aoss``, or its endpoint's name."""
    host = url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
    return aws_service == "aoss" or host.endswith(SERVERLESS_HOST)


def check_serverless(serverless: bool) -> None:
    if serverless:
        raise ConflictError(
            "OpenSearch Serverless cannot close or clone an index, and an index's similarity "
            f"changes only that way: {QUERY_TIME}")


def close_disabled(cluster: Any) -> bool | None:
    """``cluster.indices.close.enable`` is false: True; readable and not false: False; the
    user may not read cluster settings: None (the close itself will say).

    Read nested, not with ``flat_settings``: OpenSearch 2.19 applies ``filter_path`` to the
    nested form, so a flat answer filtered by it is empty and a disabled close went unseen.
    """
    try:
        resp = cluster.request("GET", "/_cluster/settings",
                               params={"include_defaults": "true",
                                       "filter_path": "*.cluster.indices.close.enable"})
    except ClusterError as exc:
        if exc.status in (401, 403, 404):
            return None
        raise
    key = "cluster.indices.close.enable"
    for part in ("transient", "persistent", "defaults"):
        tree = (resp or {}).get(part) or {}
        value = tree.get(key, tree.get("cluster", {}).get("indices", {}).get("close", {})
                         .get("enable"))
        if value is not None:
            return str(value).lower() == "false"
    return False


def check_closable(cluster: Any) -> None:
    """Refuse, before anything changes, a cluster where ``_close`` cannot work."""
    check_serverless(getattr(cluster, "serverless", False))
    if close_disabled(cluster):
        raise ConflictError(
            "this cluster forbids closing indices (cluster.indices.close.enable: false): use "
            f"--strategy clone, or {QUERY_TIME}")
