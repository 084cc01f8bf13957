"""apply / revert / show: changing the similarity of an existing index without losing it.

Changing ``index.similarity.default`` needs the index closed. The sequence here validates
everything it can while the index is still open, records what was there in the mapping's
``_meta`` (so ``revert`` can restore it exactly), and reopens the index whatever fails after
the close: with the new settings if they were accepted, with the old ones otherwise.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from . import __version__
from .cluster import Cluster
from .errors import ClusterError, QidfError
from .progress import Progress, quiet
from .similarity import (
    SIMILARITY_NAME,
    Installed,
    Mode,
    QlogParams,
    flatten,
    parse,
    render,
)

PREFIX = f"index.similarity.{SIMILARITY_NAME}."
META_KEY = "qidf"



@dataclass
class IndexState:
    """What qidf reads of an index before touching it."""

    index: str
    status: str
    similarity_flat: dict[str, Any]
    meta: dict[str, Any]
    own_similarity_fields: dict[str, str]
    text_fields: list[str]

    @property
    def similarity(self) -> dict[str, Any]:
        return _unflatten(self.similarity_flat)

    @property
    def record(self) -> dict[str, Any] | None:
        rec = self.meta.get(META_KEY)
        return rec if isinstance(rec, dict) else None


@dataclass
class ChangeResult:
    """What apply or revert did, for humans and for ``--json``."""

    index: str
    action: str
    changed: bool
    message: str
    before: str = ""
    after: str = ""
    warnings: list[str] = field(default_factory=list)
    settings_body: dict[str, Any] = field(default_factory=dict)
    closed_seconds: float = 0.0
    dry_run: bool = False
    mode_reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for key, value in flat.items():
        node = tree
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return tree


def _walk_fields(props: dict[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for name, spec in props.items():
        path = f"{prefix}{name}"
        out.append((path, spec))
        if "properties" in spec:
            out.extend(_walk_fields(spec["properties"], path + "."))
        if "fields" in spec:
            out.extend(_walk_fields(spec["fields"], path + "."))
    return out


def read_state(cluster: Cluster, name: str) -> IndexState:
    """Resolve ``name`` and read its similarity settings, ``_meta`` and text fields."""
    index = cluster.resolve_index(name)
    status = cluster.index_state(index)
    settings = cluster.request(
        "GET", f"/{index}/_settings", params={"flat_settings": "true", "expand_wildcards": "all"}
    )[index]["settings"]
    sim_flat = {k[len(PREFIX):]: v for k, v in settings.items() if k.startswith(PREFIX)}
    meta: dict[str, Any] = {}
    own: dict[str, str] = {}
    text_fields: list[str] = []
    if status == "open":
        mapping = cluster.request("GET", f"/{index}/_mapping")[index]["mappings"]
        meta = dict(mapping.get("_meta") or {})
        for path, spec in _walk_fields(mapping.get("properties", {})):
            if spec.get("type") in ("text", "match_only_text"):
                text_fields.append(path)
                if spec.get("similarity") and spec["similarity"] != SIMILARITY_NAME:
                    own[path] = str(spec["similarity"])
    return IndexState(index, status, sim_flat, meta, own, text_fields)


def show(cluster: Cluster, name: str) -> dict[str, Any]:
    """The installed similarity of an index, plus what qidf recorded when it installed it."""
    state = read_state(cluster, name)
    installed = parse(state.similarity or None)
    return {
        "index": state.index,
        "status": state.status,
        "engine": str(cluster.engine),
        "similarity": installed.describe(),
        "kind": installed.kind,
        "mode": installed.mode.value if installed.mode else None,
        "params": installed.params.as_dict() if installed.params else None,
        "record": state.record,
        "fields_with_own_similarity": state.own_similarity_fields,
    }


def _require_open(state: IndexState) -> None:
    if state.status != "open":
        raise QidfError(
            f"index {state.index!r} is closed: qidf only changes open indices, so nothing was "
            f"done; open it (POST {state.index}/_open) and run again"
        )


def _check_field(state: IndexState, field_name: str | None) -> None:
    if field_name is None:
        return
    if field_name in state.own_similarity_fields:
        raise QidfError(
            f"field {field_name!r} names its own similarity "
            f"({state.own_similarity_fields[field_name]!r}) in its mapping, which cannot change "
            "on an existing field: reindex into a mapping without it, or pick another field"
        )
    if field_name not in state.text_fields:
        raise QidfError(
            f"field {field_name!r} is not a text field of {state.index!r} "
            f"(text fields: {', '.join(state.text_fields) or 'none'})"
        )


def _update_body(current_flat: dict[str, Any], target_flat: dict[str, Any]) -> dict[str, Any]:
    """Null every current key the target lacks (engines keep stale keys), set the target's."""
    body: dict[str, Any] = {PREFIX + k: None for k in current_flat if k not in target_flat}
    body.update({PREFIX + k: v for k, v in target_flat.items()})
    return body


def _same(current_flat: dict[str, Any], target_flat: dict[str, Any]) -> bool:
    norm = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in target_flat.items()}
    return {k: str(v) for k, v in current_flat.items()} == norm


def validate_on_scratch_index(cluster: Cluster, similarity: dict[str, Any]) -> None:
    """Build the similarity on a throwaway index and score one query with it.

    The engine compiles the scripts and checks the similarity on synthetic statistics when
    an index is created; a query proves scoring works. Failing here costs nothing: the
    user's index has not been touched yet.
    """
    scratch = f"qidf-validate-{secrets.token_hex(4)}"
    body = {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0,
                               "similarity": {SIMILARITY_NAME: similarity}}},
        "mappings": {"properties": {"text": {"type": "text"}}},
    }
    try:
        cluster.request("PUT", f"/{scratch}", body)
        cluster.request("PUT", f"/{scratch}/_doc/1", {"text": "validate qidf similarity"},
                        {"refresh": "true"})
        cluster.request("POST", f"/{scratch}/_search", {"query": {"match": {"text": "qidf"}}})
    except ClusterError as exc:
        raise QidfError(
            f"the engine rejected the similarity, so the index was not touched: {exc}"
        ) from None
    finally:
        with contextlib.suppress(ClusterError):
            cluster.request("DELETE", f"/{scratch}", None, {"ignore_unavailable": "true"})


def _wait_searchable(cluster: Cluster, index: str, timeout_s: int = 60) -> None:
    # The query string is in the path: opensearch-py would take a "timeout" param as its own.
    health = cluster.request(
        "GET", f"/_cluster/health/{index}?wait_for_status=yellow&timeout={timeout_s}s"
    )
    if health.get("timed_out") or health.get("status") == "red":
        raise ClusterError(
            f"index {index!r} was reopened but is {health.get('status')} after {timeout_s}s: "
            f"check GET _cluster/allocation/explain"
        )


def _open(cluster: Cluster, index: str) -> None:
    last: Exception | None = None
    for _ in range(3):
        try:
            cluster.request("POST", f"/{index}/_open")
            _wait_searchable(cluster, index)
            return
        except ClusterError as exc:
            last = exc
            time.sleep(1)
    raise ClusterError(f"could not reopen index {index!r}: {last}")


def _swap_settings(
    cluster: Cluster, state: IndexState, target_flat: dict[str, Any], progress: Progress
) -> float:
    """close -> update to ``target_flat`` -> open; reopen with the old settings whatever
    fails. Returns seconds the index was closed."""
    body = _update_body(state.similarity_flat, target_flat)
    progress(f"closing {state.index}")
    started = time.monotonic()
    cluster.request("POST", f"/{state.index}/_close")
    update_error: ClusterError | None = None
    try:
        progress("updating similarity settings")
        cluster.request("PUT", f"/{state.index}/_settings", body)
    except ClusterError as exc:
        update_error = exc
    finally:
        progress(f"reopening {state.index}")
        try:
            _open(cluster, state.index)
        except ClusterError:
            if update_error is not None:
                raise
            # The new settings went in but the index will not open: put the old ones back.
            restore = _update_body(target_flat, state.similarity_flat)
            cluster.request("POST", f"/{state.index}/_close")
            cluster.request("PUT", f"/{state.index}/_settings", restore)
            _open(cluster, state.index)
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


def _put_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> None:
    cluster.request("PUT", f"/{index}/_mapping", {"_meta": meta})


def apply(
    cluster: Cluster,
    name: str,
    params: QlogParams,
    *,
    mode: Mode = Mode.SCRIPT,
    field_name: str | None = None,
    dry_run: bool = False,
    extra_record: dict[str, Any] | None = None,
    progress: Progress = quiet,
) -> ChangeResult:
    """Install the q-log similarity as the index's default similarity."""
    state = read_state(cluster, name)
    _require_open(state)
    _check_field(state, field_name)
    legacy = cluster.engine.default_is_legacy_bm25
    target = render(params, mode, legacy)["index"]["similarity"][SIMILARITY_NAME]
    target_flat = flatten(target)
    before = parse(state.similarity or None)
    warnings = [
        f"field {f!r} names its own similarity {s!r} and keeps it (mappings cannot change it)"
        for f, s in sorted(state.own_similarity_fields.items())
    ]
    body = _update_body(state.similarity_flat, target_flat)
    result = ChangeResult(
        state.index, "apply", False, "", before.describe(), Installed(
            "qlog", mode, params, legacy).describe(), warnings, body, dry_run=dry_run)
    if _same(state.similarity_flat, target_flat):
        result.message = f"{state.index}: already {result.after}; nothing changed"
        return result
    if dry_run:
        result.message = f"{state.index}: would install {result.after} (dry run: nothing changed)"
        return result

    progress("validating the similarity on a scratch index")
    validate_on_scratch_index(cluster, target)
    record = state.record or {"previous": state.similarity_flat}
    record = {
        "previous": record.get("previous", {}),
        "installed": {
            **params.as_dict(), "mode": mode.value, "legacy_factor": legacy,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "by": f"qidf {__version__}", **(extra_record or {}),
        },
    }
    original_meta = dict(state.meta)
    _put_meta(cluster, state.index, {**state.meta, META_KEY: record})
    try:
        result.closed_seconds = _swap_settings(cluster, state, target_flat, progress)
    except QidfError:
        _restore_meta(cluster, state.index, original_meta)
        raise
    result.changed = True
    result.message = f"{state.index}: installed {result.after} (was: {result.before})"
    return result


def _restore_meta(cluster: Cluster, index: str, meta: dict[str, Any]) -> None:
    with contextlib.suppress(ClusterError):
        _put_meta(cluster, index, meta)


def revert(
    cluster: Cluster, name: str, *, dry_run: bool = False, progress: Progress = quiet
) -> ChangeResult:
    """Restore the similarity settings recorded before qidf's first apply."""
    state = read_state(cluster, name)
    _require_open(state)
    current = parse(state.similarity or None)
    record = state.record
    if record is None and current.kind != "qlog":
        return ChangeResult(state.index, "revert", False,
                            f"{state.index}: no qidf similarity installed; nothing changed",
                            current.describe(), current.describe(), dry_run=dry_run)
    previous = dict(record.get("previous", {})) if record else {}
    body = _update_body(state.similarity_flat, previous)
    after = parse(_unflatten(previous) or None).describe()
    result = ChangeResult(state.index, "revert", False, "", current.describe(), after,
                          settings_body=body, dry_run=dry_run)
    if dry_run:
        result.message = f"{state.index}: would restore {after} (dry run: nothing changed)"
        return result
    if not _same(state.similarity_flat, previous):
        result.closed_seconds = _swap_settings(cluster, state, previous, progress)
    meta = {k: v for k, v in state.meta.items() if k != META_KEY}
    _put_meta(cluster, state.index, meta)
    result.changed = True
    result.message = f"{state.index}: restored {after}"
    return result
