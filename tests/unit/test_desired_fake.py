"""A fake transport that answers like a small OpenSearch 2.x cluster with several indices,
aliases, composable and component templates and data streams, recording every request, so
the desired-state unit tests can assert what plan, check and apply ask and write.

Indices created through ``create`` get their settings from the templates the way the
engine does (highest priority matching template, its components first, its own settings
last), so a template's effect on new indices is modelled, not assumed.
"""

from __future__ import annotations

import copy
import fnmatch
from typing import Any
from urllib.parse import unquote

from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError
from qidf_ctl.similarity import flatten


def _prefixed(flat: dict[str, Any]) -> dict[str, str]:
    return {(k if k.startswith("index.") else f"index.{k}"): str(v).lower()
            if isinstance(v, bool) else str(v) for k, v in flat.items()}


class FakeCluster:
    """Indices, aliases, templates and data streams in memory, behind one ``__call__``."""

    def __init__(self, plugins: tuple[str, ...] = ()) -> None:
        self.plugins = plugins
        self.indices: dict[str, dict[str, Any]] = {}
        self.aliases: dict[str, list[str]] = {}
        self.templates: dict[str, dict[str, Any]] = {}
        self.components: dict[str, dict[str, Any]] = {}
        self.streams: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, str, Any]] = []
        self.clock = 1_000
        self.fail_put_settings: set[str] = set()

    # --- building the cluster -------------------------------------------------------------

    def create(self, name: str, settings: dict[str, Any] | None = None, *,
               hidden: bool = False, stream: str | None = None) -> str:
        """Create an index as the engine would: template settings, then explicit ones."""
        self.clock += 1000
        flat = {"index.number_of_shards": "1", "index.uuid": f"u-{name}",
                "index.creation_date": str(self.clock)}
        if not hidden or stream:
            flat.update(self.simulate(stream or name))
        flat.update(_prefixed(flatten(settings or {})))
        if hidden:
            flat["index.hidden"] = "true"
        self.indices[name] = {"status": "open", "settings": flat, "hidden": hidden,
                              "stream": stream,
                              "mapping": {"properties": {"text": {"type": "text"}}}}
        return name

    def create_stream(self, name: str) -> None:
        owner = self._winner(name)
        assert owner and "data_stream" in self.templates[owner], "no data stream template"
        self.streams[name] = {"template": owner, "indices": []}
        self.rollover(name)

    def rollover(self, stream: str) -> str:
        gen = len(self.streams[stream]["indices"]) + 1
        backing = self.create(f".ds-{stream}-{gen:06d}", hidden=True, stream=stream)
        self.streams[stream]["indices"].append(backing)
        return backing

    def similarity(self, index: str) -> dict[str, str]:
        prefix = "index.similarity.default."
        return {k[len(prefix):]: v for k, v in self.indices[index]["settings"].items()
                if k.startswith(prefix)}

    def writes(self) -> list[tuple[str, str]]:
        return [(m, unquote(p.split("?")[0])) for m, p, _ in self.calls if m != "GET"
                and "_simulate_index" not in p and "qidf-validate-" not in p
                and "qidf-state" not in p]

    # --- template resolution ---------------------------------------------------------------

    def _winner(self, name: str) -> str | None:
        matching = [(t.get("priority", 0), n) for n, t in self.templates.items()
                    if any(fnmatch.fnmatchcase(name, p) for p in t["index_patterns"])]
        return max(matching)[1] if matching else None

    def simulate(self, name: str) -> dict[str, str]:
        winner = self._winner(name)
        if winner is None:
            return {}
        template = self.templates[winner]
        flat: dict[str, str] = {}
        for component in template.get("composed_of", []):
            body = self.components[component]
            flat.update(_prefixed(flatten(body.get("template", {}).get("settings", {}))))
        flat.update(_prefixed(flatten(template.get("template", {}).get("settings", {}))))
        return flat

    def _overlapping(self, name: str) -> list[dict[str, str]]:
        winner = self._winner(name)
        return [{"name": n} for n, t in self.templates.items() if n != winner
                and any(fnmatch.fnmatchcase(name, p) for p in t["index_patterns"])]

    # --- the transport ---------------------------------------------------------------------

    def _concrete(self, name: str) -> list[str]:
        if name in self.indices:
            return [name]
        if name in self.aliases:
            return list(self.aliases[name])
        if name in self.streams:
            return list(self.streams[name]["indices"])
        return []

    def _matching(self, expression: str) -> list[str]:
        return sorted(n for n, i in self.indices.items()
                      if fnmatch.fnmatchcase(n, expression) and not i["hidden"])

    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.calls.append((method, path, copy.deepcopy(body)))
        parts = [unquote(p) for p in path.split("?")[0].strip("/").split("/")]
        result = self._install_protocol(method, parts, body, path)
        if result is None:
            handler = getattr(self, f"_{method.lower()}", None)
            result = handler(parts, body) if handler else None
        if result is None:
            raise AssertionError(f"unexpected request {method} {path}")
        return result

    # --- what install.apply's lease, journal and exact-name checks ask (issue 10) ---------

    def _install_protocol(self, method: str, parts: list[str], body: Any, path: str) -> Any:
        head = parts[0]
        if head == "qidf-state":
            return self._state(method, parts, body, path)
        if method == "GET" and head == "_resolve" and "*" not in parts[2]:
            name = parts[2]  # a name given exactly: hidden indices and aliases are listed
            if name in self.aliases:
                return {"indices": [], "aliases": [{"name": name,
                                                    "indices": self.aliases[name]}],
                        "data_streams": []}
            if name in self.indices and self.indices[name]["hidden"]:
                return {"indices": [{"name": name, "attributes": ["hidden", "open"]}],
                        "aliases": [], "data_streams": []}
            return None
        if method == "GET" and parts[1:] == ["_alias"] and head in self.indices:
            return {head: {"aliases": {a: {} for a, members in self.aliases.items()
                                       if head in members}}}
        if method == "GET" and parts == ["_cluster", "settings"]:
            return {}
        if method == "GET" and parts[:2] == ["_cluster", "health"] and len(parts) == 3:
            return {"status": "green", "timed_out": False, "indices": {parts[2]: {
                "status": "green", "number_of_shards": 1, "active_primary_shards": 1}}}
        if method == "GET" and head == "qidf-validate-*":
            return {}
        return None

    def _state(self, method: str, parts: list[str], body: Any, path: str) -> Any:
        docs: dict[str, tuple[dict[str, Any], int]] = self.__dict__.setdefault("state", {})
        if len(parts) == 1 or parts[1] == "_settings":
            if method == "PUT":
                self.__dict__["state_index"] = True
                return {"acknowledged": True}
            if not self.__dict__.get("state_index"):
                raise ClusterError("no such index [qidf-state]", status=404)
            return {"qidf-state": {"settings": {"index": {"uuid": "u-state"}}}}
        doc_id, current = parts[2], docs.get(parts[2])
        seq = self.__dict__.setdefault("seq", [0])
        seq[0] += 1
        wanted = dict(p.split("=") for p in path.partition("?")[2].split("&") if "=" in p)
        if method == "GET":
            if current is None:
                raise ClusterError("not found", status=404)
            return {"found": True, "_source": copy.deepcopy(current[0]),
                    "_seq_no": current[1], "_primary_term": 1}
        if (parts[1] == "_create" and current is not None) or (
                "if_seq_no" in wanted and (current is None
                                           or str(current[1]) != wanted["if_seq_no"])):
            raise ClusterError("version_conflict_engine_exception", status=409)
        if method == "DELETE":
            docs.pop(doc_id, None)
            return {"result": "deleted"}
        docs[doc_id] = (copy.deepcopy(body), seq[0])
        return {"_seq_no": seq[0], "_primary_term": 1}

    def _get(self, parts: list[str], body: Any) -> Any:
        head = parts[0]
        if parts == ["_nodes", "plugins"]:
            return {"nodes": {"n1": {"name": "node-1", "roles": ["data"],
                                     "plugins": [{"name": p} for p in self.plugins]}}}
        if head == "_cat" and parts[1] == "indices":
            names = (self._matching(parts[2]) if "*" in parts[2]
                     else [n for n in self._concrete(parts[2]) if n in self.indices])
            return [{"index": n, "status": self.indices[n]["status"],
                     "creation.date": self.indices[n]["settings"]["index.creation_date"]}
                    for n in names]
        if head == "_resolve":
            expr = parts[2]
            names = self._matching(expr) if "*" in expr else (
                [expr] if expr in self.indices and not self.indices[expr]["hidden"] else [])
            streams = [s for s in self.streams if fnmatch.fnmatchcase(s, expr)]
            return {"indices": [{"name": n, "attributes": ["open"]} for n in names],
                    "aliases": [], "data_streams": [
                        {"name": s, "backing_indices": self.streams[s]["indices"]}
                        for s in streams]}
        if head == "_alias":
            if parts[1] not in self.aliases:
                raise ClusterError("alias missing", status=404)
            return {i: {"aliases": {parts[1]: {}}} for i in self.aliases[parts[1]]}
        if head in ("_index_template", "_component_template"):
            store = self.templates if head == "_index_template" else self.components
            key = "index_templates" if head == "_index_template" else "component_templates"
            inner = "index_template" if head == "_index_template" else "component_template"
            names = [parts[1]] if len(parts) > 1 else sorted(store)
            if len(parts) > 1 and parts[1] not in store:
                raise ClusterError("template missing", status=404)
            return {key: [{"name": n, inner: copy.deepcopy(store[n])} for n in names]}
        if head == "_data_stream":
            found = [s for s in self.streams if fnmatch.fnmatchcase(s, parts[1])]
            if not found and "*" not in parts[1]:
                raise ClusterError("no such data stream", status=404)
            return {"data_streams": [
                {"name": s, "template": self.streams[s]["template"],
                 "indices": [{"index_name": i} for i in self.streams[s]["indices"]]}
                for s in found]}
        if head == "_cluster":
            return {"status": "green", "timed_out": False}
        names = self._concrete(head)
        if not names:
            raise ClusterError(f"no such index [{head}]", status=404)
        if parts[1:] == ["_settings", "index.uuid"]:
            return {n: {"settings": {"index": {"uuid": f"u-{n}"}}} for n in names}
        if parts[1:] == ["_settings"]:
            return {n: {"settings": dict(self.indices[n]["settings"])} for n in names}
        if parts[1:] == ["_mapping"]:
            return {n: {"mappings": copy.deepcopy(self.indices[n]["mapping"])} for n in names}
        return None

    def _put(self, parts: list[str], body: Any) -> Any:
        head = parts[0]
        if head.startswith("qidf-validate-"):
            return {"acknowledged": True}
        if head in ("_index_template", "_component_template"):
            store = self.templates if head == "_index_template" else self.components
            store[parts[1]] = copy.deepcopy(body)
            return {"acknowledged": True}
        index = self.indices.get(head)
        if index is None:
            return None
        if parts[1:] == ["_mapping"]:
            index["mapping"]["_meta"] = copy.deepcopy(body["_meta"])
            return {"acknowledged": True}
        if parts[1:] == ["_settings"]:
            assert index["status"] == "close", "settings updated on an open index"
            if head in self.fail_put_settings:
                raise ClusterError("illegal_argument_exception: refused", status=400)
            for key, value in body.items():
                if value is None:
                    index["settings"].pop(key, None)
                else:
                    index["settings"][key] = str(value)
            return {"acknowledged": True}
        return None

    def _post(self, parts: list[str], body: Any) -> Any:
        head = parts[0]
        if head.startswith("qidf-validate-"):
            return {"hits": {"hits": []}}
        if head == "_index_template" and parts[1] == "_simulate_index":
            flat = self.simulate(parts[2])
            nested: dict[str, Any] = {}
            for key, value in flat.items():
                node = nested
                *path, last = key.split(".")
                for p in path:
                    node = node.setdefault(p, {})
                node[last] = value
            return ({"template": {"settings": nested, "aliases": {}},
                     "overlapping": self._overlapping(parts[2])}
                    if self._winner(parts[2]) else {})
        if head in self.streams and parts[1:] == ["_rollover"]:
            old = self.streams[head]["indices"][-1]
            return {"old_index": old, "new_index": self.rollover(head), "rolled_over": True}
        index = self.indices.get(head)
        if index is not None and parts[1:] in (["_close"], ["_open"]):
            index["status"] = "close" if parts[1] == "_close" else "open"
            return {"acknowledged": True}
        return None

    def _delete(self, parts: list[str], body: Any) -> Any:
        return {"acknowledged": True} if parts[0].startswith("qidf-validate-") else None


def cluster_of(fake: FakeCluster, version: str = "2.19.6") -> Cluster:
    return Cluster(fake, EngineInfo("opensearch", version), "http://fake:9200")


def test_fake_applies_the_winning_template_at_creation():
    fake = FakeCluster()
    fake.components["c"] = {"template": {"settings": {"index": {"refresh_interval": "5s"}}}}
    fake.templates["low"] = {"index_patterns": ["logs-*"], "priority": 1,
                             "template": {"settings": {"number_of_replicas": 2}}}
    fake.templates["high"] = {"index_patterns": ["logs-*"], "priority": 9,
                              "composed_of": ["c"]}
    settings = fake.indices[fake.create("logs-1")]["settings"]
    assert settings["index.refresh_interval"] == "5s"
    assert "index.number_of_replicas" not in settings
