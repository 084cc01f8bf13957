"""Similarity parameters -> the index settings that install them, and the flat form in which
settings are compared and updated. Pure functions: nothing here talks to a cluster."""

from __future__ import annotations

from typing import Any

from qidf_ctl.similarity.painless import scripted_similarity
from qidf_ctl.similarity.params import Mode, QlogParams

SIMILARITY_NAME = "default"
SETTING_PREFIX = f"index.similarity.{SIMILARITY_NAME}."
PLUGIN_TYPE = "qlog_bm25"


def plugin_similarity(params: QlogParams) -> dict[str, Any]:
    """The value of ``index.similarity.default`` for the native plugin."""
    return {
        "type": PLUGIN_TYPE,
        "q": params.q,
        "k1": params.k1,
        "b": params.b,
        "form": params.form.value,
    }


def similarity_value(params: QlogParams, mode: Mode, legacy: bool) -> dict[str, Any]:
    """The value of ``index.similarity.default`` for either mode."""
    if mode is Mode.PLUGIN:
        return plugin_similarity(params)
    return scripted_similarity(params, legacy)


def render(params: QlogParams, mode: Mode, legacy: bool) -> dict[str, Any]:
    """``{"index": {"similarity": {"default": ...}}}``: what an index settings body holds."""
    return {"index": {"similarity": {SIMILARITY_NAME: similarity_value(params, mode, legacy)}}}


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}: the form in which settings are compared and updated."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, path))
        else:
            flat[path] = value
    return flat


def unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    """{"a.b": 1} -> {"a": {"b": 1}}."""
    tree: dict[str, Any] = {}
    for key, value in flat.items():
        node = tree
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return tree


def update_body(current_flat: dict[str, Any], target_flat: dict[str, Any]) -> dict[str, Any]:
    """The settings update from ``current`` to ``target`` (both relative to the similarity):
    every current key the target lacks is set to null (engines keep stale keys of the old
    type and then refuse the new one), then the target's keys."""
    body: dict[str, Any] = {SETTING_PREFIX + k: None for k in current_flat if k not in target_flat}
    body.update({SETTING_PREFIX + k: v for k, v in target_flat.items()})
    return body


def same_settings(current_flat: dict[str, Any], target_flat: dict[str, Any]) -> bool:
    """Equal as the engine stores them (it keeps every value as a string)."""
    norm = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in target_flat.items()}
    return {k: str(v) for k, v in current_flat.items()} == norm
