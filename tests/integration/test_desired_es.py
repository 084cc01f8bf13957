"""Templates on a real Elasticsearch node (8.19.21, the integ-test distribution from Maven
Central, with the native plugin: it has no Painless). Component and composable index
templates carry the similarity to new indices; check sees a template changed by hand.

Without ``QIDF_ES_PLUGIN_ZIP`` (``scripts/test.sh`` builds it) these tests skip. A node
already running on the port with the plugin is reused and left running.
"""

from __future__ import annotations

import contextlib

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.desired import Connections, apply_plan, check, make_plan, parse
from qidf_ctl.desired.render import component_template
from qidf_ctl.errors import EXIT_DRIFT, ClusterError
from qidf_ctl.similarity import Mode, QlogParams

pytestmark = pytest.mark.integration

FILE = """
[defaults]
mode = "plugin"

[[target]]
component_template = "es-qidf-sim"
q = 0.3

[[target]]
template = "es-docs"
patterns = ["es-docs-*"]
q = 0.5
"""


@pytest.fixture(scope="module")
def es(es_cluster):
    return es_cluster


def _connect(url: str) -> Cluster:
    return Cluster.connect(ConnectionSettings.from_options(url=url))


def _clean(cluster) -> None:
    for path in ("/_index_template/es-code", "/_index_template/es-docs",
                 "/_component_template/es-qidf-sim"):
        with contextlib.suppress(ClusterError):
            cluster.request("DELETE", path)
    # Elasticsearch 8 refuses wildcard deletes (action.destructive_requires_name)
    cluster.request("DELETE", "/es-code-1,es-code-2,es-docs-1", None,
                    {"ignore_unavailable": "true"})


def test_templates_on_elasticsearch(es):
    _clean(es)
    es.request("PUT", "/_component_template/es-qidf-sim", {"template": {"settings": {
        "number_of_replicas": 0}}})
    es.request("PUT", "/_index_template/es-code", {
        "index_patterns": ["es-code-*"], "priority": 10, "composed_of": ["es-qidf-sim"]})
    es.request("PUT", "/es-code-1")
    es.request("PUT", "/es-code-1/_doc/1", {"text": "func ParseForm parses the request"},
               {"refresh": "true"})
    state = parse(FILE, "qidf.toml")
    conns = Connections({}, fallback=lambda: None,  # type: ignore[arg-type,return-value]
                        connect=lambda _: es)
    try:
        plan = make_plan(state, conns)
        assert [(i.kind, i.name, i.action) for i in plan.items] == [
            ("component_template", "es-qidf-sim", "update"),
            ("index", "es-code-1", "update"),
            ("index_template", "es-docs", "create")]
        assert apply_plan(plan, conns).ok
        assert check(state, conns).in_sync
        es.request("PUT", "/es-code-2")
        es.request("PUT", "/es-docs-1")
        shown = {n: install.show(es, n) for n in ("es-code-1", "es-code-2", "es-docs-1")}
        assert {n: (s["mode"], s["params"]["q"]) for n, s in shown.items()} == {
            "es-code-1": ("plugin", 0.3), "es-code-2": ("plugin", 0.3),
            "es-docs-1": ("plugin", 0.5)}
        assert check(state, conns).in_sync
        # the component template changed by hand: check names it
        es.request("PUT", "/_component_template/es-qidf-sim",
                   component_template(QlogParams(0.7), Mode.PLUGIN, True))
        report = check(state, conns)
        assert report.exit_code == EXIT_DRIFT
        assert [(d["kind"], d["name"]) for d in report.drift] == [
            ("component_template", "es-qidf-sim")]
        assert apply_plan(make_plan(state, conns), conns).ok
        assert check(state, conns).in_sync
    finally:
        _clean(es)
