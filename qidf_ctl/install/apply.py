"""apply and revert: changing the similarity of an existing index without losing it.

Everything that can be validated is validated while the index is still open (parameters,
the field, the similarity itself on a scratch index); what was there is recorded in the
mapping's ``_meta`` before the change, so ``revert`` can restore it exactly.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import QidfError
from qidf_ctl.install.close_swap import swap_settings
from qidf_ctl.install.record import installed_record, put_meta, restore_meta, without_record
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.state import SimilarityState, read_state
from qidf_ctl.install.validate import validate_on_scratch_index
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import (
    Installed,
    Mode,
    QlogParams,
    flatten,
    parse,
    same_settings,
    similarity_value,
    unflatten,
    update_body,
)


def _check_field(state: SimilarityState, field_name: str | None) -> None:
    if field_name is None:
        return
    if field_name in state.own_similarity_fields:
        raise QidfError(
            f"field {field_name!r} names its own similarity "
            f"({state.own_similarity_fields[field_name]!r}) in its mapping, which cannot change "
            "on an existing field: reindex into a mapping without it, or pick another field"
        )
    state.description.check_text_field(field_name)


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
    state.description.require_open("change its similarity")
    _check_field(state, field_name)
    legacy = cluster.engine.default_is_legacy_bm25
    target = similarity_value(params, mode, legacy)
    target_flat = flatten(target)
    warnings = [
        f"field {f!r} names its own similarity {s!r} and keeps it (mappings cannot change it)"
        for f, s in sorted(state.own_similarity_fields.items())
    ]
    result = ChangeResult(
        state.index, "apply", False, "", state.installed.describe(),
        Installed("qlog", mode, params, legacy).describe(), warnings,
        update_body(state.similarity_flat, target_flat), dry_run=dry_run)
    if same_settings(state.similarity_flat, target_flat):
        result.message = f"{state.index}: already {result.after}; nothing changed"
        return result
    if dry_run:
        result.message = f"{state.index}: would install {result.after} (dry run: nothing changed)"
        return result

    progress("validating the similarity on a scratch index")
    validate_on_scratch_index(cluster, target)
    original_meta = dict(state.meta)
    record = installed_record(state, params, mode, legacy, extra_record)
    put_meta(cluster, state.index, {**state.meta, "qidf": record})
    try:
        result.closed_seconds = swap_settings(cluster, state, target_flat, progress)
    except QidfError:
        restore_meta(cluster, state.index, original_meta)
        raise
    result.changed = True
    result.message = f"{state.index}: installed {result.after} (was: {result.before})"
    return result


def revert(
    cluster: Cluster, name: str, *, dry_run: bool = False, progress: Progress = quiet
) -> ChangeResult:
    """Restore the similarity settings recorded before qidf's first apply."""
    state = read_state(cluster, name)
    state.description.require_open("revert its similarity")
    current = state.installed
    record = state.record
    if record is None and current.kind != "qlog":
        return ChangeResult(state.index, "revert", False,
                            f"{state.index}: no qidf similarity installed; nothing changed",
                            current.describe(), current.describe(), dry_run=dry_run)
    previous = dict(record.get("previous", {})) if record else {}
    after = parse(unflatten(previous) or None).describe()
    result = ChangeResult(state.index, "revert", False, "", current.describe(), after,
                          settings_body=update_body(state.similarity_flat, previous),
                          dry_run=dry_run)
    if dry_run:
        result.message = f"{state.index}: would restore {after} (dry run: nothing changed)"
        return result
    if not same_settings(state.similarity_flat, previous):
        result.closed_seconds = swap_settings(cluster, state, previous, progress)
    put_meta(cluster, state.index, without_record(state.meta))
    result.changed = True
    result.message = f"{state.index}: restored {after}"
    return result
