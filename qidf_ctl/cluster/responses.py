"""Refusals hidden inside successful (HTTP 200) answers.

Multi-item APIs answer 200 and put each item's failure inside: ``_mget`` ``docs[i].error``,
``_msearch`` ``responses[i].error``, ``_mtermvectors`` ``docs[i].error``, ``_bulk``
``items[i].<op>.error``. And ``_close`` without its per-shard privilege answers 200 with
``acknowledged: false`` and a ``FORBIDDEN`` shard failure, leaving the index open: code that
only checks the status went on as if it were closed. The transport runs ``refusal`` on every
answer, so a privilege refused inside a 200 becomes the same one-line 403 as any other;
``close_failure`` is for the close path, which must also notice a close that was simply not
acknowledged.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import privileges
from qidf_ctl.errors import ClusterError

_ITEM_LISTS = {"_mget": "docs", "_mtermvectors": "docs", "_msearch": "responses",
               "_bulk": "items"}


def _is_refusal(error: Any, status: Any = None) -> bool:
    if not isinstance(error, dict):
        return False
    kinds = {error.get("type")} | {c.get("type") for c in error.get("root_cause", [])
                                   if isinstance(c, dict)}
    return "security_exception" in kinds or status in (401, 403, "FORBIDDEN")


def _item_errors(items: list[Any]) -> list[tuple[Any, Any]]:
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if "error" in item:
            out.append((item["error"], item.get("status")))
        else:  # _bulk: {"index": {"error": ..., "status": 403}}
            for op in item.values():
                if isinstance(op, dict) and "error" in op:
                    out.append((op["error"], op.get("status")))
    return out


def _shard_failures(resp: dict[str, Any]) -> list[dict[str, Any]]:
    """``indices.<name>.failedShards.<n>.failures[]`` of a ``_close`` answer."""
    out = []
    for entry in (resp.get("indices") or {}).values():
        if not isinstance(entry, dict):
            continue
        for shard in (entry.get("failedShards") or {}).values():
            out += [f for f in (shard or {}).get("failures", []) if isinstance(f, dict)]
    return out


def _api(path: str) -> str:
    return path.partition("?")[0].rstrip("/").rsplit("/", 1)[-1]


def refusal(path: str, resp: Any, distribution: str = "opensearch") -> ClusterError | None:
    """A 403-equivalent error if ``resp`` (a 200 answer to ``path``) hides a refusal."""
    if not isinstance(resp, dict):
        return None
    api = _api(path)
    errors: list[tuple[Any, Any]] = []
    if api in _ITEM_LISTS and isinstance(resp.get(_ITEM_LISTS[api]), list):
        errors = _item_errors(resp[_ITEM_LISTS[api]])
    elif api == "_close" and resp.get("acknowledged") is False:
        errors = [(f.get("reason"), f.get("status")) for f in _shard_failures(resp)]
    refused = [e for e, status in errors if _is_refusal(e, status)]
    if not refused:
        return None
    found = privileges.parse(refused)
    text = (privileges.message(found, path, distribution) if found else
            f"permission denied inside the answer to {api}: {refused[0].get('reason', '')}")
    return ClusterError(text, status=403, error_type="security_exception")


def close_failure(resp: Any, index: str) -> ClusterError | None:
    """Why a ``_close`` answered 200 but did not close ``index``; None when it closed.

    For the close path: ``acknowledged: false`` means the index may still be open (refused
    per shard, or the engine's timeout passed first); poll its state before going on.
    """
    if isinstance(resp, dict) and resp.get("acknowledged") is not False:
        entry = (resp.get("indices") or {}).get(index)
        if not isinstance(entry, dict) or entry.get("closed", True):
            return None
    denied = refusal(f"/{index}/_close", resp)
    if denied is not None:
        return denied
    reasons = [str((f.get("reason") or {}).get("reason", "")) for f in
               _shard_failures(resp if isinstance(resp, dict) else {})]
    detail = f": {reasons[0]}" if reasons and reasons[0] else ""
    return ClusterError(f"the engine did not acknowledge closing {index!r}{detail}",
                        error_type="close_not_acknowledged", retryable=True)
