"""Composable index templates, component templates and data streams as qidf reads and
writes them: the similarity inside a template's settings, the indices a template reaches,
and what a new index would get (the engine's own ``_simulate_index``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from qidf_ctl.cluster import Cluster, segment
from qidf_ctl.desired.render import field_similarity_name
from qidf_ctl.errors import ClusterError, NotFoundError
from qidf_ctl.similarity import SETTING_PREFIX, flatten, same_settings, unflatten

INDEX_TEMPLATE = "index_template"
COMPONENT_TEMPLATE = "component_template"
API = {INDEX_TEMPLATE: "_index_template", COMPONENT_TEMPLATE: "_component_template"}
# Keys that GET returns and PUT refuses (Elasticsearch 9 stamps templates).
_READ_ONLY = ("created_date", "created_date_millis", "modified_date", "modified_date_millis")
SIMULATED_INDEX = "qidf-simulated"


def template_path(kind: str, name: str) -> str:
    return f"/{API[kind]}/{segment(name)}"


def get_template(cluster: Cluster, kind: str, name: str) -> dict[str, Any] | None:
    """The template's body as PUT would take it, or None when it does not exist."""
    try:
        found = cluster.request("GET", template_path(kind, name))
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    key = "index_templates" if kind == INDEX_TEMPLATE else "component_templates"
    for entry in found.get(key, []):
        if entry.get("name") == name:
            body = dict(entry[kind])
            return {k: v for k, v in body.items() if k not in _READ_ONLY}
    return None


def put_template(cluster: Cluster, kind: str, name: str, body: dict[str, Any]) -> None:
    cluster.request("PUT", template_path(kind, name), body)


def settings_flat(body: dict[str, Any]) -> dict[str, Any]:
    """The template's settings, flat, every key with its ``index.`` prefix (engines store
    them normalised that way; a body written by hand may lack it)."""
    flat = flatten((body.get("template") or {}).get("settings") or {})
    return {k if k.startswith("index.") else f"index.{k}": v for k, v in flat.items()}


def similarity_flat(body: dict[str, Any]) -> dict[str, Any]:
    """``index.similarity.default.*`` of the template, keys relative to that prefix."""
    return {k[len(SETTING_PREFIX):]: v for k, v in settings_flat(body).items()
            if k.startswith(SETTING_PREFIX)}


NAMED = "index.similarity."  # where a field's own similarity is named
NAMED_PREFIX = NAMED + "qidf_"  # the similarities qidf writes for a field of its own q


def named_flat(body: dict[str, Any]) -> dict[str, Any]:
    """The template's ``index.similarity.qidf_*`` settings (the per-field ones qidf writes),
    keys relative to ``index.similarity.``."""
    cut = len("index.similarity.")
    return {k[cut:]: v for k, v in settings_flat(body).items() if k.startswith(NAMED_PREFIX)}


def _properties(body: dict[str, Any]) -> dict[str, Any]:
    return ((body.get("template") or {}).get("mappings") or {}).get("properties") or {}


def field_similarity_names(body: dict[str, Any], fields: list[str]) -> dict[str, str | None]:
    """The similarity the template's mapping names for each of ``fields`` (dotted paths
    through object fields), None where it names none."""
    found: dict[str, str | None] = {}
    for name in fields:
        node: Any = {"properties": _properties(body)}
        for part in name.split("."):
            node = ((node or {}).get("properties") or {}).get(part)
        found[name] = node.get("similarity") if isinstance(node, dict) else None
    return found


def fields_drift(body: dict[str, Any], fields: dict[str, float],
                 named: dict[str, Any]) -> list[str]:
    """The fields of ``fields`` whose similarity in the template is not the one wanted:
    the mapping names another, or qidf's named similarities differ from ``named``."""
    names = field_similarity_names(body, list(fields))
    if not same_settings(named_flat(body), flatten(named)):
        return sorted(fields) or sorted(k.split(".")[0] for k in named_flat(body))
    return [f for f, q in fields.items() if names[f] != field_similarity_name(f, q)]


def with_fields(body: dict[str, Any], named: dict[str, Any],
                properties: dict[str, Any]) -> dict[str, Any]:
    """``body`` with qidf's per-field similarities replaced by ``named`` and the mapping's
    fields naming them (each field's other parameters, its analyzer, kept)."""
    new = copy.deepcopy(body)
    template = new.setdefault("template", {})
    flat = {k: v for k, v in settings_flat(body).items() if not k.startswith(NAMED_PREFIX)}
    flat.update(flatten({"index": {"similarity": named}}))
    template["settings"] = unflatten(flat)
    mappings = template.setdefault("mappings", {})
    _merge_fields(mappings.setdefault("properties", {}), properties)
    return new


def _merge_fields(into: dict[str, Any], more: dict[str, Any]) -> None:
    for name, spec in more.items():
        have = into.setdefault(name, {})
        for key, value in spec.items():
            if key == "properties":
                _merge_fields(have.setdefault("properties", {}), value)
            elif key == "similarity" or key not in have:
                have[key] = value


def record(body: dict[str, Any]) -> dict[str, Any] | None:
    rec = (body.get("_meta") or {}).get("qidf")
    return rec if isinstance(rec, dict) else None


def with_similarity(body: dict[str, Any], target_flat: dict[str, Any],
                    qidf_record: dict[str, Any]) -> dict[str, Any]:
    """``body`` with its default similarity replaced by ``target_flat`` and qidf's record in
    ``_meta``; every other setting, mapping, alias and key kept as it was."""
    new = copy.deepcopy(body)
    flat = {k: v for k, v in settings_flat(body).items() if not k.startswith(SETTING_PREFIX)}
    flat.update({SETTING_PREFIX + k: v for k, v in target_flat.items()})
    new.setdefault("template", {})["settings"] = unflatten(flat)
    new["_meta"] = {**(body.get("_meta") or {}), "qidf": qidf_record}
    return new


def composing(cluster: Cluster, component: str) -> dict[str, dict[str, Any]]:
    """Index templates that list ``component`` in ``composed_of``, by name."""
    found = cluster.request("GET", "/_index_template")
    return {e["name"]: e["index_template"] for e in found.get("index_templates", [])
            if component in (e["index_template"].get("composed_of") or [])}


@dataclass
class Matches:
    """What a set of patterns reaches: plain indices (with creation time, ms) and data
    streams (with their template and backing indices, the write index last)."""

    indices: dict[str, int] = field(default_factory=dict)
    data_streams: dict[str, dict[str, Any]] = field(default_factory=dict)


def resolve(cluster: Cluster, expression: str) -> dict[str, Any]:
    """``GET _resolve/index``: indices, aliases and data streams an expression names (open
    and not hidden, as a search on it would see them); empty when nothing matches."""
    try:
        return dict(cluster.request("GET", f"/_resolve/index/{segment(expression)}",
                                    params={"expand_wildcards": "open"}))
    except ClusterError as exc:
        if exc.status == 404:
            return {"indices": [], "aliases": [], "data_streams": []}
        raise


def match(cluster: Cluster, patterns: list[str] | tuple[str, ...]) -> Matches:
    """Open plain indices and data streams matching any of ``patterns``."""
    found = Matches()
    for pattern in patterns:
        resolved = resolve(cluster, pattern)
        plain = sorted(i["name"] for i in resolved.get("indices", [])
                       if not i.get("data_stream"))
        for stream in resolved.get("data_streams", []):
            found.data_streams[stream["name"]] = stream
        if plain:
            rows = cluster.request("GET", f"/_cat/indices/{segment(pattern)}",
                                   params={"format": "json", "h": "index,creation.date",
                                           "expand_wildcards": "open"})
            created = {r["index"]: int(r["creation.date"]) for r in rows}
            found.indices.update({name: created.get(name, 0) for name in plain})
    return found


def data_stream_template(cluster: Cluster, stream: str) -> str | None:
    found = cluster.request("GET", f"/_data_stream/{segment(stream)}")
    streams = found.get("data_streams", [])
    return streams[0].get("template") if streams else None


def example_index(pattern: str) -> str:
    """A name a new index matching ``pattern`` could have, for ``_simulate_index``."""
    return pattern.replace("*", SIMULATED_INDEX)


def simulate(cluster: Cluster, index_name: str) -> tuple[dict[str, Any], list[str]]:
    """The default-similarity settings a new index named ``index_name`` would get from the
    templates as they are now, and the names of the overlapping templates that lost."""
    found = cluster.request("POST", f"/_index_template/_simulate_index/{segment(index_name)}")
    settings = flatten((found.get("template") or {}).get("settings") or {})
    settings = {k if k.startswith("index.") else f"index.{k}": v for k, v in settings.items()}
    sim = {k[len(SETTING_PREFIX):]: v for k, v in settings.items()
           if k.startswith(SETTING_PREFIX)}
    overlapping = [str(o.get("name")) for o in found.get("overlapping") or []]
    return sim, overlapping


def alias_indices(cluster: Cluster, alias: str) -> list[str]:
    """The indices an alias points at (a plan reaches each of them)."""
    try:
        found = cluster.request("GET", f"/_alias/{segment(alias)}")
    except ClusterError as exc:
        if exc.status == 404:
            raise NotFoundError(f"alias {alias!r} not found: check the name with GET "
                                "_cat/aliases") from None
        raise
    return sorted(found)
