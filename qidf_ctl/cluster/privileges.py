"""A refused request, read as "which privilege is missing" and "what to grant", in one line.

The engines name the missing action in their 403s:
- OpenSearch security: ``no permissions for [indices:admin/close] and User [name=bob,
  backend_roles=[], requestedTenant=null]`` (several actions come comma-separated; a second
  one can hide in ``root_cause[0].suppressed``); the index is not named.
- Elasticsearch: ``action [indices:admin/close] is unauthorized for user [bob] with
  effective roles [r] on indices [code], this action is granted by the index privileges
  [manage,all]``.
The hint quotes the role JSON that grants it, so the admin can paste it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from qidf_ctl.cluster.roles import COMPANIONS, is_cluster_action

_OPENSEARCH = re.compile(r"no permissions for \[(.*?)\] and User \[name=([^,\]]*)")
_ELASTIC = re.compile(r"action \[([^\]]+)\] is unauthorized for (?:user|API key id) \[([^\]]*)\]")
_ES_INDICES = re.compile(r"on indices \[([^\]]*)\]")
_ES_GRANTED = re.compile(r"granted by the (cluster|index) privileges \[([^\]]*)\]")
DOCS = "docs/how-to/privileges.md"


@dataclass
class Refusal:
    """What a 403 says is missing."""

    actions: list[str]
    user: str | None = None
    indices: list[str] = field(default_factory=list)
    level: str = ""  # Elasticsearch: "cluster" or "index"
    privileges: list[str] = field(default_factory=list)  # Elasticsearch's named ones


def _reasons(info: Any) -> list[str]:
    """Every ``reason`` in an error body, root causes and suppressed ones included."""
    out: list[str] = []

    def walk(node: Any, depth: int) -> None:
        if depth > 10:
            return
        if isinstance(node, dict):
            if isinstance(node.get("reason"), str):
                out.append(node["reason"])
            for value in node.values():
                if isinstance(value, (dict, list)):
                    walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)
        elif isinstance(node, str):
            out.append(node)

    walk(info, 0)
    return out


def parse(info: Any) -> Refusal | None:
    """The missing actions (and user) an error body names; None when it names none."""
    found = Refusal([])
    for reason in _reasons(info):
        for match in _OPENSEARCH.finditer(reason):
            found.user = found.user or match.group(2)
            found.actions += [a.strip() for a in match.group(1).split(",") if a.strip()]
        es = _ELASTIC.search(reason)
        if es:
            found.user = found.user or es.group(2)
            found.actions.append(es.group(1))
            indices = _ES_INDICES.search(reason)
            if indices:
                found.indices = [i.strip() for i in indices.group(1).split(",") if i.strip()]
            granted = _ES_GRANTED.search(reason)
            if granted:
                found.level = granted.group(1)
                found.privileges = [p.strip() for p in granted.group(2).split(",")
                                    if p.strip() and p.strip() != "all"]
    found.actions = list(dict.fromkeys(found.actions))
    return found if found.actions else None


# APIs whose index comes after two words: /_cat/indices/<index>, /_cluster/health/<index>.
_TWO_WORD_APIS = ("_cat", "_cluster", "_resolve")


def index_of(path: str) -> str | None:
    """The index a request path addresses, if any."""
    parts = [p for p in path.partition("?")[0].strip("/").split("/") if p]
    if parts and parts[0] in _TWO_WORD_APIS:
        return unquote(parts[2]) if len(parts) > 2 else None
    return unquote(parts[0]) if parts and not parts[0].startswith("_") else None


def opensearch_grant(actions: list[str], index: str | None) -> dict[str, Any]:
    """The role fragment that grants ``actions`` (with their sub-actions) on ``index``."""
    wanted = list(dict.fromkeys(a for x in actions for a in (x, COMPANIONS.get(x)) if a))
    cluster = [a for a in wanted if is_cluster_action(a)]
    on_index = [a for a in wanted if not is_cluster_action(a)]
    grant: dict[str, Any] = {}
    if cluster:
        grant["cluster_permissions"] = cluster
    if on_index:
        grant["index_permissions"] = [{"index_patterns": [index or "<your index>"],
                                       "allowed_actions": on_index}]
    return grant


def elasticsearch_grant(refusal: Refusal, index: str | None) -> dict[str, Any]:
    privileges = refusal.privileges[:1] or ["<see the message>"]
    if refusal.level == "cluster":
        return {"cluster": privileges}
    names = refusal.indices or [index or "<your index>"]
    return {"indices": [{"names": names, "privileges": privileges}]}


def message(refusal: Refusal, path: str, distribution: str = "opensearch") -> str:
    """One line: who lacks what, and the role JSON that grants it."""
    index = index_of(path)
    who = f"user {refusal.user!r}" if refusal.user else "this user"
    what = ", ".join(refusal.actions)
    if refusal.privileges or distribution == "elasticsearch":
        grant = elasticsearch_grant(refusal, index)
        how = "add to one of its roles (PUT _security/role/<role>)"
    else:
        grant = opensearch_grant(refusal.actions, index)
        how = "add to one of its roles (PUT _plugins/_security/api/roles/<role>)"
    where = f" on {index}" if index and not all(is_cluster_action(a) for a in
                                                 refusal.actions) else ""
    return (f"permission denied: {who} lacks {what}{where}; {how}: "
            f"{json.dumps(grant, separators=(', ', ': '))} ({DOCS} lists what each command "
            "needs)")
