"""plan, apply -f and check on a fake cluster: what they read, what they write, and the
drift matrix (every hand-made change detected, every in-sync case exit 0)."""

from __future__ import annotations

import json

import pytest

from qidf_ctl import desired, install
from qidf_ctl.desired import Connections, Plan, apply_plan, check, make_plan, parse
from qidf_ctl.desired.render import index_template
from qidf_ctl.desired.saved import plan_from_dict
from qidf_ctl.errors import EXIT_DRIFT, ConflictError, NotFoundError, UsageError
from qidf_ctl.install import ChangeResult
from qidf_ctl.predictors import Prediction
from qidf_ctl.similarity import Mode, QlogParams

from .test_desired_fake import FakeCluster, cluster_of

FILE = """
[defaults]
mode = "script"

[[target]]
index = "code"
q = 0.3

[[target]]
template = "logs"
patterns = ["logs-*"]
q = 0.3
"""


def conns(fake: FakeCluster) -> Connections:
    return Connections({}, fallback=lambda: None, connect=lambda _: cluster_of(fake))  # type: ignore[arg-type,return-value]


def converge(fake: FakeCluster, text: str = FILE) -> desired.DesiredState:
    state = parse(text, "qidf.toml")
    report = apply_plan(make_plan(state, conns(fake)), conns(fake))
    assert report.ok, report.failed
    assert check(state, conns(fake)).in_sync
    return state


@pytest.fixture
def fake() -> FakeCluster:
    fake = FakeCluster(plugins=("qidf-qlog-similarity",))
    fake.create("code")
    fake.create("logs-000001")
    return fake


# --- the drift matrix ------------------------------------------------------------------------

def _by_hand(fake, index, **changes):
    """What a person does with `qidf apply INDEX ...` outside the file."""
    params = {"q": 0.3, "k1": 1.2, "b": 0.75, "form": "lucene", "mode": Mode.SCRIPT, **changes}
    mode = params.pop("mode")
    install.apply(cluster_of(fake), index, QlogParams(**params), mode=mode)


def _remove_similarity(fake, index):
    settings = fake.indices[index]["settings"]
    for key in [k for k in settings if k.startswith("index.similarity.")]:
        del settings[key]


def _template_q(fake, q):
    fake.templates["logs"] = index_template(QlogParams(q), Mode.SCRIPT, True, ["logs-*"])


DRIFT_CASES = {
    "q changed by hand": (lambda f: _by_hand(f, "code", q=0.5), "index", "code", "q 0.5"),
    "k1 changed by hand": (lambda f: _by_hand(f, "code", k1=2.0), "index", "code", "k1 2"),
    "b changed by hand": (lambda f: _by_hand(f, "code", b=0.3), "index", "code", "b 0.3"),
    "form changed by hand": (lambda f: _by_hand(f, "code", form="rsj"), "index", "code",
                             "form rsj"),
    "mode changed by hand": (lambda f: _by_hand(f, "code", mode=Mode.PLUGIN), "index", "code",
                             "mode plugin (want script)"),
    "similarity removed": (lambda f: _remove_similarity(f, "code"), "index", "code",
                           "built-in"),
    "rolled-over index lost it": (lambda f: _remove_similarity(f, "logs-000001"), "index",
                                  "logs-000001", "built-in"),
    "template q changed": (lambda f: _template_q(f, 0.5), "index_template", "logs", "q 0.5"),
    "template similarity removed": (
        lambda f: f.templates["logs"]["template"].pop("settings"), "index_template", "logs",
        "built-in"),
    "template deleted": (lambda f: f.templates.pop("logs"), "index_template", "logs",
                         "does not exist"),
    "new index from the template without it": (
        lambda f: f.create("logs-000002", {"index": {"similarity": {"default": {
            "type": "BM25"}}}}), "index", "logs-000002", "built-in"),
    "another template shadows it": (
        lambda f: f.templates.update({"other": {"index_patterns": ["logs-*"], "priority": 500}}),
        "index_template", "logs", "templates that also match: logs"),
}


@pytest.mark.parametrize("case", sorted(DRIFT_CASES))
def test_check_detects_every_drift_case(fake, case):
    state = converge(fake)
    change, kind, name, why = DRIFT_CASES[case]
    change(fake)
    report = check(state, conns(fake))
    assert report.exit_code == EXIT_DRIFT
    found = [d for d in report.drift if (d["kind"], d["name"]) == (kind, name)]
    assert found, report.drift
    assert why in found[0]["reason"], found
    # apply -f converges it again (the shadowing template is not the file's to change)
    if case != "another template shadows it":
        converge(fake)


IN_SYNC_CASES = {
    "right after apply": lambda f: None,
    "index created from the template later": lambda f: f.create("logs-000002"),
    "index the template does not match": lambda f: f.create("other-1"),
    "lower-priority template also matches": lambda f: f.templates.update(
        {"old": {"index_patterns": ["logs-*"], "priority": 1}}),
}


@pytest.mark.parametrize("case", sorted(IN_SYNC_CASES))
def test_check_exits_0_when_in_sync(fake, case):
    state = converge(fake)
    IN_SYNC_CASES[case](fake)
    report = check(state, conns(fake))
    assert report.exit_code == 0 and report.drift == []


def test_check_writes_nothing(fake):
    state = parse(FILE, "qidf.toml")
    before = len(fake.writes())
    report = check(state, conns(fake))
    assert not report.in_sync and len(fake.writes()) == before


# --- plan then apply: exactly what was printed -----------------------------------------------

def test_apply_changes_exactly_what_the_plan_listed():
    fake = FakeCluster()
    for i in range(20):
        fake.create(f"code-{i:02d}")
    for i in range(0, 20, 3):  # seven already right
        _by_hand(fake, f"code-{i:02d}")
    state = parse('[[target]]\npattern = "code-*"\nq = 0.3\nmode = "script"\n', "qidf.toml")
    plan = make_plan(state, conns(fake))
    planned = {i.name for i in plan.changes}
    assert len(plan.items) == 20 and len(planned) == 13
    before = {n: dict(fake.indices[n]["settings"]) for n in fake.indices}
    earlier = len(fake.writes())
    report = apply_plan(plan, conns(fake))
    changed = {c["name"] for c in report.changed}
    assert changed == planned and report.ok
    touched = {p.split("/")[1] for m, p in fake.writes()[earlier:] if p.endswith("/_settings")}
    assert touched == planned
    for item in plan.items:
        now = fake.indices[item.name]["settings"]
        if item.changes:
            for row in item.settings_diff:
                assert now.get(row["key"]) == (None if row["after"] is None
                                               else str(row["after"]))
        else:
            assert now == before[item.name]


def test_apply_stops_at_the_first_failure_and_says_what_was_not_attempted():
    fake = FakeCluster()
    for name in ("a-1", "a-2", "a-3", "a-4"):
        fake.create(name)
    fake.fail_put_settings.add("a-2")
    state = parse('[[target]]\npattern = "a-*"\nq = 0.3\nmode = "script"\n', "qidf.toml")
    report = apply_plan(make_plan(state, conns(fake)), conns(fake))
    assert [c["name"] for c in report.changed] == ["a-1"]
    assert report.failed and report.failed["name"] == "a-2"
    assert report.not_attempted == ["index a-3", "index a-4"]
    assert report.exit_code == 1
    assert fake.indices["a-2"]["status"] == "open" and fake.similarity("a-2") == {}
    assert fake.similarity("a-3") == {}


def test_saved_plan_round_trips_and_refuses_when_the_cluster_moved(fake):
    state = parse(FILE, "qidf.toml")
    saved = json.loads(json.dumps(make_plan(state, conns(fake)).as_dict()))
    _by_hand(fake, "code", q=0.9)
    writes = len(fake.writes())
    with pytest.raises(ConflictError, match="index code changed since the plan was made"):
        apply_plan(plan_from_dict(saved), conns(fake), saved=True)
    assert len(fake.writes()) == writes


def test_saved_plan_applies_what_it_says(fake):
    state = parse(FILE, "qidf.toml")
    saved = plan_from_dict(json.loads(json.dumps(make_plan(state, conns(fake)).as_dict())))
    report = apply_plan(saved, conns(fake), saved=True)
    assert {c["name"] for c in report.changed} == {"code", "logs", "logs-000001"}
    assert check(state, conns(fake)).in_sync


def test_not_a_plan_is_refused():
    with pytest.raises(UsageError, match="not a qidf plan"):
        plan_from_dict({"items": []})


def test_two_targets_asking_different_things_of_one_index_is_an_error(fake):
    text = ('[[target]]\nindex = "code"\nq = 0.3\n'
            '[[target]]\npattern = "co*"\nq = 0.5\n')
    with pytest.raises(UsageError, match=r"reached by target 1 .* and target 2"):
        make_plan(parse(text, "qidf.toml"), conns(fake))


def test_the_same_index_twice_with_the_same_similarity_is_planned_once(fake):
    text = ('[[target]]\nindex = "code"\nq = 0.3\n'
            '[[target]]\npattern = "co*"\nq = 0.3\n')
    plan = make_plan(parse(text, "qidf.toml"), conns(fake))
    assert [i.name for i in plan.items] == ["code"]


def test_alias_target_reaches_every_index_behind_it(fake):
    fake.create("docs-v1")
    fake.create("docs-v2")
    fake.aliases["docs"] = ["docs-v2", "docs-v1"]
    plan = make_plan(parse('[[target]]\nalias = "docs"\nq = 0.3\n', "qidf.toml"), conns(fake))
    assert [i.name for i in plan.items] == ["docs-v1", "docs-v2"]


# --- templates --------------------------------------------------------------------------------

def test_template_update_keeps_everything_but_the_similarity(fake):
    fake.templates["logs"] = {
        "index_patterns": ["logs-*"], "priority": 7, "composed_of": [], "_meta": {"team": "x"},
        "template": {"settings": {"index": {"number_of_shards": "2", "similarity": {
            "default": {"type": "BM25", "k1": "1.1"}}}},
            "mappings": {"properties": {"msg": {"type": "text"}}}}}
    converge(fake)
    body = fake.templates["logs"]
    assert body["priority"] == 7 and body["_meta"]["team"] == "x"
    assert body["template"]["mappings"] == {"properties": {"msg": {"type": "text"}}}
    index = body["template"]["settings"]["index"]
    assert index["number_of_shards"] == "2"
    assert index["similarity"]["default"]["type"] == "scripted"
    assert "k1" not in index["similarity"]["default"]  # the old type's key is gone
    assert body["_meta"]["qidf"]["installed"]["q"] == 0.3


def test_missing_template_without_patterns_is_not_found(fake):
    with pytest.raises(NotFoundError, match="give patterns"):
        make_plan(parse('[[target]]\ntemplate = "nope"\nq = 0.3\n', "qidf.toml"), conns(fake))


def test_existing_false_leaves_older_indices_alone(fake):
    converge(fake, '[[target]]\ntemplate = "logs"\npatterns = ["logs-*"]\nq = 0.3\n'
                   'existing = false\n')
    assert fake.similarity("logs-000001") == {}  # older than the template: left alone
    at = fake.templates["logs"]["_meta"]["qidf"]["installed"]["at_ms"]
    fake.clock = at
    fake.create("logs-000002", {"index": {"similarity": {"default": {"type": "BM25"}}}})
    state = parse('[[target]]\ntemplate = "logs"\nq = 0.3\nexisting = false\n', "qidf.toml")
    report = check(state, conns(fake))
    assert [d["name"] for d in report.drift] == ["logs-000002"]


def test_component_template_reaches_indices_of_the_templates_that_compose_it():
    fake = FakeCluster()
    fake.templates["code-t"] = {"index_patterns": ["code-t-*"], "priority": 5,
                                "composed_of": ["qidf-sim"]}
    fake.components["qidf-sim"] = {"template": {"settings": {}}}
    fake.create("code-t-1")
    state = converge(fake, '[[target]]\ncomponent_template = "qidf-sim"\nq = 0.4\n'
                           'mode = "script"\n')
    assert fake.similarity("code-t-1")
    fake.create("code-t-2")
    assert fake.similarity("code-t-2") == fake.similarity("code-t-1")
    assert check(state, conns(fake)).in_sync


def test_component_template_nobody_composes_gets_a_note():
    fake = FakeCluster()
    plan = make_plan(parse('[[target]]\ncomponent_template = "c"\nq = 0.4\n', "qidf.toml"),
                     conns(fake))
    assert plan.items[0].action == "create"
    assert any("composed_of" in n for n in plan.items[0].notes)


# --- data streams -----------------------------------------------------------------------------

DS = ('[[target]]\ntemplate = "logs-ds"\npatterns = ["app-*"]\ndata_stream = true\n'
      'q = 0.3\nmode = "script"\n')


def _stream_fake() -> FakeCluster:
    fake = FakeCluster()
    fake.templates["logs-ds"] = {"index_patterns": ["app-*"], "data_stream": {},
                                 "priority": 10}
    fake.create_stream("app-web")
    return fake


def test_data_stream_is_rolled_over_when_asked():
    fake = _stream_fake()
    state = parse(DS + "rollover = true\n", "qidf.toml")
    plan = make_plan(state, conns(fake))
    assert [(i.kind, i.action) for i in plan.items] == [("index_template", "update"),
                                                         ("data_stream", "rollover")]
    assert apply_plan(plan, conns(fake)).ok
    write = fake.streams["app-web"]["indices"][-1]
    assert write == ".ds-app-web-000002" and fake.similarity(write)
    assert fake.similarity(".ds-app-web-000001") == {}  # never closed
    assert ("POST", "/.ds-app-web-000001/_close") not in fake.writes()
    assert check(state, conns(fake)).in_sync


def test_data_stream_without_rollover_waits_for_the_next_one():
    fake = _stream_fake()
    state = converge(fake, DS)
    report = check(state, conns(fake))
    assert report.in_sync
    assert any("until the next rollover" in n for n in report.notes)
    fake.rollover("app-web")
    assert fake.similarity(fake.streams["app-web"]["indices"][-1])


def test_index_target_naming_a_data_stream_points_at_its_template():
    fake = _stream_fake()
    with pytest.raises(UsageError, match='data stream: manage it through its index template '
                                         r'\(template = "logs-ds"\)'):
        make_plan(parse('[[target]]\nindex = "app-web"\nq = 0.3\n', "qidf.toml"), conns(fake))


def test_pattern_matching_a_data_stream_notes_it():
    fake = _stream_fake()
    fake.create("app-plain")
    plan = make_plan(parse('[[target]]\npattern = "app-*"\nq = 0.3\n', "qidf.toml"),
                     conns(fake))
    assert [i.name for i in plan.items] == ["app-plain"]
    assert any("data stream 'app-web'" in n for n in plan.notes)


# --- auto: reproducible --------------------------------------------------------------------

def _prediction(index: str, q: float = 0.6) -> Prediction:
    return Prediction(q=q, q_formula=q, predictor="qidf-gate", formula="gate",
                      reason=f"measured -> q {q}", ambiguous=False, evidence={}, index=index,
                      field="text", statistics={"documents": 1234, "vocabulary": 99})


AUTO = '[[target]]\nindex = "code"\nq = "auto"\npredictor = "qidf-gate"\nmode = "script"\n'


def test_auto_plan_records_statistics_and_q_and_apply_writes_them(fake, monkeypatch):
    calls = []

    def predict(cluster, index, field=None, sample=None, **kw):
        calls.append((index, kw["predictor"]))
        return _prediction(index)

    monkeypatch.setattr("qidf_ctl.predictors.predict_for_index", predict)
    state = parse(AUTO, "qidf.toml")
    # check measures an index qidf never changed: only the decision says whether it is in sync
    assert not check(state, conns(fake)).in_sync and calls == [("code", "qidf-gate")]
    calls.clear()
    plan = make_plan(state, conns(fake))
    item = plan.items[0]
    assert calls == [("code", "qidf-gate")]
    assert item.params and item.params["q"] == 0.6
    assert item.prediction and item.prediction["statistics"]["documents"] == 1234
    saved = plan_from_dict(json.loads(json.dumps(plan.as_dict())))
    assert apply_plan(saved, conns(fake), saved=True).ok
    meta = fake.indices["code"]["mapping"]["_meta"]["qidf"]["installed"]
    assert meta["q"] == 0.6 and meta["prediction"]["statistics"]["vocabulary"] == 99
    assert check(state, conns(fake)).in_sync and len(calls) == 1  # in sync: not re-measured
    _by_hand(fake, "code", q=0.2)
    assert "q 0.2, not predicted by qidf-gate" in check(state, conns(fake)).drift[0]["reason"]


# --- strategy: the file's close or clone reaches install.apply -------------------------------

def test_strategy_is_passed_to_install(fake, monkeypatch):
    seen = {}

    def fake_apply(cluster, name, params, **kwargs):
        seen.update(kwargs)
        return ChangeResult(name, "apply", True, "cloned")

    monkeypatch.setattr(install, "apply", fake_apply)
    state = parse('[[target]]\nindex = "code"\nq = 0.3\nstrategy = "clone"\n', "qidf.toml")
    plan = make_plan(state, conns(fake))
    assert plan.items[0].strategy == "clone" and plan.summary()["clone"] == 1
    assert not plan.items[0].notes
    assert apply_plan(plan, conns(fake)).ok
    assert seen["strategy"] is install.Strategy.CLONE


def test_the_strict_reader_knows_every_key_a_plan_item_has():
    """A key ``plan --out`` writes that ``desired.saved`` does not know would make every saved
    plan unreadable (the revert action and the statistics keys once did)."""
    import dataclasses

    from qidf_ctl.desired.items import PlanItem
    from qidf_ctl.desired.saved import ITEM_KEYS

    assert {f.name for f in dataclasses.fields(PlanItem)} == set(ITEM_KEYS)


@pytest.mark.parametrize("strategy,action,stats_only", [
    ("reopen", "update", False), ("close", "revert", False), ("close", "update", True)])
def test_items_of_every_action_and_strategy_round_trip(strategy, action, stats_only):
    from qidf_ctl.desired.items import PlanItem

    item = PlanItem(cluster=None, kind="index", name="code", target="code", action=action,
                    strategy=strategy, mode="script", before="BM25", after="q-log q=0.7",
                    params={"q": 0.7, "k1": 1.2, "b": 0.75, "form": "lucene"},
                    stats="index", stats_before="per-shard statistics",
                    stats_only=stats_only)
    plan = Plan("qidf.toml", "0" * 64, [item])
    again = plan_from_dict(json.loads(json.dumps(plan.as_dict())))
    assert again.items == [item]
