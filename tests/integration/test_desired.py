"""The desired state on the real engine: the drift matrix (every hand-made change detected,
every in-sync case exit 0), plan then apply on a 20-index file changing exactly what plan
printed, data streams, component templates and reproducible auto.

The drift matrix and the 20-index numbers quoted in docs/how-to/gitops.md come from this file
(run it with -s to see them).
"""

from __future__ import annotations

import contextlib
import json
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from qidf_ctl import cli, install
from qidf_ctl.cluster import ConnectionSettings, segment
from qidf_ctl.desired import Connections, apply_plan, check, make_plan, parse
from qidf_ctl.desired.render import index_template
from qidf_ctl.desired.saved import plan_from_dict
from qidf_ctl.errors import EXIT_DRIFT, ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.similarity import (
    SETTING_PREFIX,
    Mode,
    QlogParams,
    flatten,
    render,
    similarity_value,
    update_body,
)

pytestmark = pytest.mark.integration


def conns_for(url: str) -> Connections:
    return Connections({}, fallback=lambda: ConnectionSettings.from_options(url=url))


def _delete(cluster, *paths: str) -> None:
    for path in paths:
        params = None if path.startswith("/_") else {"ignore_unavailable": "true"}
        with contextlib.suppress(ClusterError):
            cluster.request("DELETE", path, None, params)


def _index(cluster, name: str, docs: dict[str, str]) -> None:
    indexing.create_index(cluster, name)
    indexing.bulk_index(cluster, name, docs)


@pytest.fixture(scope="module")
def docs(go_task) -> dict[str, str]:
    """Real Go docstrings, a few per index: enough to score, quick to close and open."""
    return dict(sorted(go_task.corpus.items())[:60])


def _mode(cluster) -> Mode:
    return install.choose_mode(cluster, "auto")[0]


# --- the drift matrix ------------------------------------------------------------------------

MATRIX = """
[[target]]
index = "dm-code"
q = 0.3

[[target]]
template = "dm-logs"
patterns = ["dm-logs-*"]
q = 0.3
"""


@pytest.fixture
def matrix(cluster, engine_url, docs):
    _delete(cluster, "/dm-*", "/_index_template/dm-logs", "/_index_template/dm-shadow",
            "/_index_template/dm-old")
    _index(cluster, "dm-code", docs)
    _index(cluster, "dm-logs-000001", docs)
    cluster.request("POST", "/_aliases", {"actions": [{"add": {
        "index": "dm-logs-000001", "alias": "dm-logs", "is_write_index": True}}]})
    state = parse(MATRIX, "qidf.toml")
    conns = conns_for(engine_url)
    assert apply_plan(make_plan(state, conns), conns).ok
    assert check(state, conns).in_sync
    yield state, conns
    _delete(cluster, "/dm-*", "/_index_template/dm-logs", "/_index_template/dm-shadow",
            "/_index_template/dm-old")


def _settings(cluster, index: str) -> dict:
    return cluster.request("GET", f"/{index}/_settings",
                           params={"flat_settings": "true"})[index]["settings"]


def _set_similarity(cluster, index: str, body: dict) -> None:
    """Close, update, open with plain API calls, as a person would."""
    cluster.request("POST", f"/{index}/_close")
    cluster.request("PUT", f"/{index}/_settings", body)
    cluster.request("POST", f"/{index}/_open", params={"wait_for_active_shards": "1"})


def _by_hand(cluster, index: str, mode: Mode | None = None, **changes) -> None:
    params = QlogParams(**{"q": 0.3, **changes})
    value = similarity_value(params, mode or _mode(cluster),
                             cluster.engine.default_is_legacy_bm25)
    current = {k[len(SETTING_PREFIX):]: v for k, v in _settings(cluster, index).items()
               if k.startswith(SETTING_PREFIX)}
    _set_similarity(cluster, index, update_body(current, flatten(value)))


def _strip_similarity(cluster, index: str) -> None:
    body = {k: None for k in _settings(cluster, index) if k.startswith("index.similarity.")}
    _set_similarity(cluster, index, body)


def _put_template(cluster, name: str, body: dict) -> None:
    cluster.request("PUT", f"/_index_template/{segment(name)}", body)


def _created_while_template_lacked_it(cluster, bare: dict) -> None:
    """The template loses the similarity for a while (a bad deploy), an index is created
    from it then, and the template is put back: the index keeps BM25."""
    managed = cluster.request("GET", "/_index_template/dm-logs")["index_templates"][0]
    _put_template(cluster, "dm-logs", bare)
    cluster.request("PUT", "/dm-logs-000002", {"settings": {"number_of_replicas": 0}})
    _put_template(cluster, "dm-logs", managed["index_template"])


def _drift_cases(cluster):
    mode = _mode(cluster)
    other = Mode.SCRIPT if mode is Mode.PLUGIN else Mode.PLUGIN
    plugin = install.presence(cluster).everywhere
    logs_body = index_template(QlogParams(0.5), mode, cluster.engine.default_is_legacy_bm25,
                               ["dm-logs-*"])
    bare = {"index_patterns": ["dm-logs-*"], "priority": 100}
    cases = [
        ("q changed by hand", "index", "dm-code", lambda: _by_hand(cluster, "dm-code", q=0.5)),
        ("k1 changed by hand", "index", "dm-code", lambda: _by_hand(cluster, "dm-code", k1=2.0)),
        ("b changed by hand", "index", "dm-code", lambda: _by_hand(cluster, "dm-code", b=0.4)),
        ("form changed by hand", "index", "dm-code",
         lambda: _by_hand(cluster, "dm-code", form="rsj")),
        ("similarity removed", "index", "dm-code", lambda: _strip_similarity(cluster, "dm-code")),
        ("template q changed", "index_template", "dm-logs",
         lambda: _put_template(cluster, "dm-logs", logs_body)),
        ("template similarity removed", "index_template", "dm-logs",
         lambda: _put_template(cluster, "dm-logs", bare)),
        ("template deleted", "index_template", "dm-logs",
         lambda: cluster.request("DELETE", "/_index_template/dm-logs")),
        ("new index from the template without it", "index", "dm-logs-000002",
         lambda: _created_while_template_lacked_it(cluster, bare)),
        ("another template shadows it", "index_template", "dm-logs",
         lambda: _put_template(cluster, "dm-shadow", {"index_patterns": ["dm-logs-*"],
                                                      "priority": 500})),
    ]
    if plugin:  # both modes need the plugin on the node (scripts/test.sh installs it)
        cases.insert(4, ("mode changed by hand", "index", "dm-code",
                         lambda: _by_hand(cluster, "dm-code", mode=other)))
    return cases


def test_drift_matrix(cluster, matrix):
    state, conns = matrix
    results = []
    for case, kind, name, change in _drift_cases(cluster):
        change()
        report = check(state, conns)
        hit = [d for d in report.drift if (d["kind"], d["name"]) == (kind, name)]
        results.append((case, report.exit_code == EXIT_DRIFT and bool(hit),
                        hit[0]["reason"] if hit else report.drift))
        # undo: apply -f converges what belongs to the file; the rest is deleted
        _delete(cluster, "/_index_template/dm-shadow", "/dm-logs-000002")
        assert apply_plan(make_plan(state, conns), conns).ok
        assert check(state, conns).in_sync, case
    print("\ndrift matrix (OpenSearch, real engine):")
    for case, found, reason in results:
        print(f"  {'detected' if found else 'MISSED  '}  {case}: {reason}")
    detected = sum(found for _, found, _ in results)
    print(f"  {detected}/{len(results)} drift cases detected"
          + ("" if install.presence(cluster).everywhere else " (mode case needs the plugin)"))
    assert detected == len(results)


def test_in_sync_cases_exit_0(cluster, matrix):
    state, conns = matrix
    cases = [
        ("right after apply", lambda: None),
        ("index created from the template later",
         lambda: cluster.request("PUT", "/dm-logs-000003", {"settings": {
             "number_of_replicas": 0}})),
        ("write alias rolled over", lambda: cluster.request("POST", "/dm-logs/_rollover")),
        ("index the template does not match", lambda: cluster.request("PUT", "/dm-other")),
        ("lower-priority template also matches",
         lambda: _put_template(cluster, "dm-old", {"index_patterns": ["dm-logs-*"],
                                                   "priority": 1})),
    ]
    results = []
    for case, change in cases:
        change()
        report = check(state, conns)
        results.append((case, report.exit_code, report.drift))
    print("\nin-sync cases:")
    for case, code, drift in results:
        print(f"  exit {code}  {case}{'' if not drift else f': {drift}'}")
    assert [code for _, code, _ in results] == [0] * len(cases)


# --- plan then apply on a 20-index file -------------------------------------------------------

def _twenty() -> tuple[str, dict[str, dict]]:
    """20 targets with varied parameters; what each index holds before the plan."""
    lines, wanted = [], {}
    for i in range(20):
        name = f"p20-{i:02d}"
        params = {"q": [0.3, 0.5, 0.7, 1.0][i % 4], "k1": [1.2, 1.0][i % 2],
                  "b": 0.75, "form": ["lucene", "lucene", "rsj"][i % 3]}
        wanted[name] = params
        lines.append(f'[[target]]\nindex = "{name}"\nq = {params["q"]}\nk1 = {params["k1"]}\n'
                     f'form = "{params["form"]}"\n')
    return "\n".join(lines), wanted


def _run(argv, capsys, monkeypatch) -> tuple[int, dict]:
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def _state(cluster, index: str) -> dict:
    settings = cluster.request("GET", f"/{index}/_settings",
                               params={"flat_settings": "true"})[index]["settings"]
    meta = cluster.request("GET", f"/{index}/_mapping")[index]["mappings"].get("_meta")
    return {"similarity": {k: v for k, v in settings.items() if ".similarity." in k},
            "meta": meta}


def test_apply_changes_exactly_what_plan_printed_on_20_indices(
        cluster, engine_url, docs, tmp_path, capsys, monkeypatch):
    text, wanted = _twenty()
    (tmp_path / "qidf.toml").write_text(text)
    _delete(cluster, "/p20-*")
    small = dict(list(docs.items())[:20])
    mode, legacy = _mode(cluster), cluster.engine.default_is_legacy_bm25

    def create(i: int, name: str) -> None:
        similarity = None  # i % 5 == 4: BM25
        if i % 5 < 3:  # created as the file says
            similarity = render(QlogParams(**wanted[name]), mode, legacy)["index"]["similarity"]
        elif i % 5 == 3:  # created with another q
            similarity = render(QlogParams(0.05), mode, legacy)["index"]["similarity"]
        indexing.create_index(cluster, name, similarity=similarity)
        indexing.bulk_index(cluster, name, small)

    with ThreadPoolExecutor(8) as pool:  # the engine batches concurrent index creations
        list(pool.map(create, range(20), sorted(wanted)))
    before = {name: _state(cluster, name) for name in wanted}
    monkeypatch.setenv("QIDF_URL", engine_url)
    code, plan = _run(["plan", "-f", str(tmp_path / "qidf.toml"), "--json"], capsys,
                      monkeypatch)
    assert code == 0
    printed = {i["name"]: i for i in plan["items"] if i["action"] != "none"}
    code, report = _run(["apply", "-f", str(tmp_path / "qidf.toml"), "--json"], capsys,
                        monkeypatch)
    assert code == 0 and report["ok"]
    changed = {c["name"] for c in report["changed"]}
    after = {name: _state(cluster, name) for name in wanted}
    untouched = {n for n in wanted if after[n] == before[n]}
    code, checked = _run(["check", "-f", str(tmp_path / "qidf.toml"), "--json"], capsys,
                         monkeypatch)
    print(f"\n20-index file: plan printed {len(printed)} changes, apply changed "
          f"{len(changed)}; {len(untouched)} indices byte-identical (settings and _meta); "
          f"check afterwards: exit {code}, {checked['checked']} checked")
    assert code == 0 and checked["checked"] == 20
    assert changed == set(printed) and len(printed) == 8
    assert untouched == set(wanted) - set(printed)
    for name, item in printed.items():
        got = after[name]["similarity"]
        for row in item["settings_diff"]:
            assert got.get(row["key"]) == (None if row["after"] is None else str(row["after"]))
        record = flatten(after[name]["meta"]["qidf"])
        for row in item["meta_diff"]:
            key = row["key"].removeprefix("_meta.qidf.")
            assert record.get(key) == row["after"], (name, key)
    _delete(cluster, "/p20-*")


# --- data streams, component templates, auto ----------------------------------------------------

def test_data_stream_gets_it_through_its_template(cluster, engine_url):
    _delete(cluster, "/_data_stream/ds-app-web", "/_index_template/ds-logs")
    cluster.request("PUT", "/_index_template/ds-logs", {
        "index_patterns": ["ds-app-*"], "data_stream": {}, "priority": 10,
        "template": {"settings": {"number_of_replicas": 0}}})
    cluster.request("PUT", "/_data_stream/ds-app-web")
    first = cluster.request("GET", "/_data_stream/ds-app-web")["data_streams"][0][
        "indices"][0]["index_name"]
    state = parse('[[target]]\ntemplate = "ds-logs"\nq = 0.3\nrollover = true\n', "qidf.toml")
    conns = conns_for(engine_url)
    try:
        plan = make_plan(state, conns)
        assert [(i.kind, i.action) for i in plan.items] == [("index_template", "update"),
                                                             ("data_stream", "rollover")]
        assert apply_plan(plan, conns).ok
        indices = cluster.request("GET", "/_data_stream/ds-app-web")["data_streams"][0]["indices"]
        write = indices[-1]["index_name"]
        assert write != first and install.show(cluster, write)["params"]["q"] == 0.3
        assert install.show(cluster, first)["kind"] == "builtin"  # never closed
        assert check(state, conns).in_sync
    finally:
        _delete(cluster, "/_data_stream/ds-app-web", "/_index_template/ds-logs")


def test_component_template_reaches_new_and_existing_indices(cluster, engine_url, docs):
    _delete(cluster, "/ct-code-*", "/_index_template/ct-code", "/_component_template/ct-sim")
    cluster.request("PUT", "/_component_template/ct-sim", {"template": {"settings": {
        "number_of_replicas": 0}}})
    cluster.request("PUT", "/_index_template/ct-code", {
        "index_patterns": ["ct-code-*"], "priority": 10, "composed_of": ["ct-sim"]})
    _index(cluster, "ct-code-1", dict(list(docs.items())[:10]))
    state = parse('[[target]]\ncomponent_template = "ct-sim"\nq = 0.4\n', "qidf.toml")
    conns = conns_for(engine_url)
    try:
        plan = make_plan(state, conns)
        assert [(i.kind, i.name, i.action) for i in plan.items] == [
            ("component_template", "ct-sim", "update"), ("index", "ct-code-1", "update")]
        assert apply_plan(plan, conns).ok
        cluster.request("PUT", "/ct-code-2")
        assert install.show(cluster, "ct-code-2")["params"]["q"] == 0.4
        component = cluster.request("GET", "/_component_template/ct-sim")
        settings = component["component_templates"][0]["component_template"]["template"]
        assert settings["settings"]["index"]["number_of_replicas"] == "0"  # kept
        assert check(state, conns).in_sync
    finally:
        _delete(cluster, "/ct-code-*", "/_index_template/ct-code",
                "/_component_template/ct-sim")


def test_auto_is_reproducible(cluster, engine_url, go_task, monkeypatch):
    import qidf_ctl.predictors as predictors

    measured = []
    real = predictors.predict_for_index

    def counting(*args, **kwargs):
        measured.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(predictors, "predict_for_index", counting)
    _index(cluster, "auto-code", dict(sorted(go_task.corpus.items())[:2000]))
    state = parse('[[target]]\nindex = "auto-code"\nq = "auto"\npredictor = "qidf-gate"\n',
                  "qidf.toml")
    conns = conns_for(engine_url)
    try:
        plan = make_plan(state, conns)
        item = plan.items[0]
        assert item.prediction and item.params
        assert item.prediction["statistics"]["documents"] == 2000
        saved = plan_from_dict(json.loads(json.dumps(plan.as_dict())))
        assert apply_plan(saved, conns, saved=True).ok
        record = install.show(cluster, "auto-code")["record"]["installed"]
        assert record["q"] == item.params["q"]
        assert record["prediction"]["statistics"] == item.prediction["statistics"]
        assert check(state, conns).in_sync
        assert make_plan(state, conns).changes == []
        assert measured == ["auto-code"]  # planned once; in sync afterwards, not re-measured
    finally:
        _delete(cluster, "/auto-code")


def test_apply_stops_at_the_first_failure(cluster, engine_url, docs):
    _delete(cluster, "/sf-1", "/sf-2", "/sf-3")
    for name in ("sf-1", "sf-2", "sf-3"):
        _index(cluster, name, dict(list(docs.items())[:5]))
    cluster.request("POST", "/sf-2/_close")
    text = "".join(f'[[target]]\nindex = "{n}"\nq = 0.3\n' for n in ("sf-1", "sf-2", "sf-3"))
    conns = conns_for(engine_url)
    try:
        plan = make_plan(parse(text, "qidf.toml"), conns)
        assert any("closed" in n for n in plan.items[1].notes)
        report = apply_plan(plan, conns)
        assert [c["name"] for c in report.changed] == ["sf-1"]
        assert report.failed and report.failed["name"] == "sf-2" and report.exit_code == 6
        assert report.not_attempted == ["index sf-3"]
        assert install.show(cluster, "sf-3")["kind"] == "builtin"
        assert cluster.index_state("sf-2") == "close"  # refused, left as it was
    finally:
        _delete(cluster, "/sf-1", "/sf-2", "/sf-3")


def test_a_clone_target_is_cloned_and_then_in_sync(cluster, engine_url, docs):
    """`strategy = "clone"` in the file: plan says clone, apply serves the name from a clone
    holding the similarity (the name becomes an alias), and check is in sync afterwards."""
    _delete(cluster, "/dc-code*")
    _index(cluster, "dc-code", dict(list(docs.items())[:20]))
    text = '[[target]]\nindex = "dc-code"\nq = 0.4\nstrategy = "clone"\n'
    conns = conns_for(engine_url)
    try:
        plan = make_plan(parse(text, "qidf.toml"), conns)
        assert [(i.name, i.strategy) for i in plan.changes] == [("dc-code", "clone")]
        assert plan.summary()["clone"] == 1 and not plan.items[0].notes
        report = apply_plan(plan, conns)
        assert report.exit_code == 0 and [c["name"] for c in report.changed] == ["dc-code"]
        aliases = cluster.request("GET", "/_alias/dc-code")
        serving = list(aliases)
        assert len(serving) == 1 and serving[0] != "dc-code"  # a clone serves the name
        shown = install.show(cluster, "dc-code")
        assert shown["kind"] != "builtin"
        assert check(parse(text, "qidf.toml"), conns).in_sync
        hits = cluster.request("POST", "/dc-code/_search",
                               {"query": {"match_all": {}}, "size": 0})
        assert hits["hits"]["total"]["value"] == 20  # nothing lost in the clone
    finally:
        _delete(cluster, "/dc-code*")
