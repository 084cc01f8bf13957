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
from qidf_ctl.cluster.redact import redact_external, redact_tree
from qidf_ctl.errors import ClusterError

# Subtrees that hold documents or index definitions, never the engine's own errors.
_DATA = frozenset({"_source", "hits", "fields", "term_vectors", "aggregations", "_meta",
                   "mappings", "settings", "docs_found", "highlight", "suggest"})


def _is_refusal(error: Any, status: Any = None) -> bool:
    if not isinstance(error, dict):
        return False
    kinds = {error.get("type")} | {c.get("type") for c in error.get("root_cause", [])
                                   if isinstance(c, dict)}
    return "security_exception" in kinds or status in (401, 403, "FORBIDDEN")


def _refusals(node: Any, depth: int = 0) -> list[Any]:
    """Every refused item or shard in an answer, whatever its shape: ``docs[i].error``,
    ``responses[i].error``, ``items[i].<op>.error``, ``indices.<i>.failedShards`` (close),
    ``indices[i].failed_shards`` (block), ``_shards.failures``."""
    found: list[Any] = []
    if depth > 8:
        return found
    if isinstance(node, dict):
        for key in ("error", "reason"):
            if _is_refusal(node.get(key), node.get("status")):
                found.append(node[key])
        for key, value in node.items():
            if key not in _DATA and key not in ("error", "reason"):
                found += _refusals(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            found += _refusals(item, depth + 1)
    return found


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
    parts = [p for p in path.partition("?")[0].strip("/").split("/") if p.startswith("_")]
    return parts[-1] if parts else "the request"


def refusal(path: str, resp: Any, distribution: str = "opensearch") -> ClusterError | None:
    """A 403-equivalent error if ``resp`` (a 2xx answer to ``path``) hides a refusal."""
    refused = _refusals(resp) if isinstance(resp, (dict, list)) else []
    if not refused:
        return None
    refused = redact_tree(refused)  # a server may echo the credentials it decoded
    found = privileges.parse(refused)
    text = (privileges.message(found, path, distribution) if found else
            f"permission denied inside the answer to {_api(path)}: "
            f"{refused[0].get('reason', '')}")
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
    reasons = [redact_external(str((f.get("reason") or {}).get("reason", ""))) for f in
               _shard_failures(resp if isinstance(resp, dict) else {})]
    detail = f": {reasons[0]}" if reasons and reasons[0] else ""
    return ClusterError(f"the engine did not acknowledge closing {index!r}{detail}",
                        error_type="close_not_acknowledged", retryable=True)
