"""plan, check and apply -f of a ``q = "auto"`` target agree with ``qidf apply --q auto``: a
decision of q = 1 plans no change on an index qidf never changed (check: in sync, having
measured it) and a revert on one it changed; ``queries_are`` reaches the predictor and
pins the decision like the predictor does."""

from __future__ import annotations

import copy
import json

import pytest

from qidf_ctl import install
from qidf_ctl.desired import apply_plan, check, make_plan, parse
from qidf_ctl.desired.items import NONE, REVERT, UPDATE
from qidf_ctl.desired.saved import plan_from_dict
from qidf_ctl.desired.text import format_plan
from qidf_ctl.predictors import Prediction
from qidf_ctl.similarity import Mode, QlogParams

from .test_desired_fake import FakeCluster, cluster_of
from .test_desired_plan import conns

AUTO = ('[[target]]\nindex = "code"\nq = "auto"\npredictor = "qidf-content"\n'
        'mode = "script"\n')
REASON = "a text field -> q 1.00: BM25 stays"


@pytest.fixture
def fake() -> FakeCluster:
    fake = FakeCluster()
    fake.create("code")
    return fake


@pytest.fixture
def decided(monkeypatch):
    """predict_for_index answers ``decided["q"]``; ``decided["calls"]`` lists its calls."""
    state: dict = {"q": 1.0, "calls": []}

    def predict(cluster, index, field=None, sample=None, **kw):
        state["calls"].append((index, kw.get("predictor"), kw.get("query_kind")))
        q = state["q"]
        return Prediction(q=q, q_formula=q, predictor="qidf-content", formula="content",
                          reason=REASON if q == 1 else f"code -> q {q}", ambiguous=q == 1,
                          evidence={}, index=index, field="text",
                          query_kind=kw.get("query_kind"),
                          query_kind_use="decided" if kw.get("query_kind") else None)

    monkeypatch.setattr("qidf_ctl.predictors.predict_for_index", predict)
    return state


def _changes(fake: FakeCluster) -> list[tuple[str, str]]:
    return [(m, p) for m, p, _ in fake.calls if m != "GET"]


def test_untouched_and_q1_is_in_sync_and_nothing_is_written(fake, decided):
    before = copy.deepcopy(fake.indices)
    state = parse(AUTO, "qidf.toml")
    report = check(state, conns(fake))
    assert report.in_sync and report.exit_code == 0
    assert decided["calls"] == [("code", "qidf-content", None)]  # check measured it
    assert report.notes == [f"index code: q auto decided q = 1 ({REASON}): the index keeps its "
                            "similarity"]
    plan = make_plan(state, conns(fake))
    (item,) = plan.items
    assert item.action == NONE and item.before == item.after and item.params is None
    assert item.prediction and item.prediction["q"] == 1.0
    assert format_plan(plan).splitlines()[-1] == "Plan: nothing to change; 1 in sync."
    assert apply_plan(plan, conns(fake)).changed == []
    assert _changes(fake) == [] and fake.indices == before


def test_qidf_changed_and_q1_plans_a_revert_and_apply_makes_it(fake, decided):
    install.apply(cluster_of(fake), "code", QlogParams(0.3), mode=Mode.SCRIPT)
    state = parse(AUTO, "qidf.toml")
    plan = make_plan(state, conns(fake))
    (item,) = plan.items
    assert item.action == REVERT and item.strategy == "close"
    assert item.after == "built-in default similarity (BM25)"
    assert item.reason == (f"q auto decided q = 1 ({REASON}): back to the similarity it had "
                           "before qidf's first apply, as `qidf revert` does")
    assert {d["key"] for d in item.settings_diff} >= {"index.similarity.default.type"}
    assert all(d["after"] is None for d in item.settings_diff)
    assert any(d["key"] == "_meta.qidf.installed.q" and d["after"] is None
               for d in item.meta_diff)
    text = format_plan(plan)
    assert "- index code  [target 1 (index code)]  will CLOSE it" in text
    assert plan.summary()["close"] == 1
    saved = plan_from_dict(json.loads(json.dumps(plan.as_dict())))  # a saved plan, too
    report = apply_plan(saved, conns(fake), saved=True)
    assert report.ok and report.changed[0]["action"] == "revert"
    assert report.changed[0]["decision"]["q"] == 1.0
    assert fake.similarity("code") == {} and fake.indices["code"]["status"] == "open"
    assert "qidf" not in fake.indices["code"]["mapping"].get("_meta", {})
    decided["calls"].clear()
    assert check(state, conns(fake)).in_sync  # untouched again: measured, q = 1, in sync
    assert len(decided["calls"]) == 1


def test_check_of_an_index_qidf_changed_says_so_without_measuring(fake, decided):
    install.apply(cluster_of(fake), "code", QlogParams(0.3), mode=Mode.SCRIPT)
    report = check(parse(AUTO, "qidf.toml"), conns(fake))
    assert report.exit_code == 3 and decided["calls"] == []
    assert report.drift[0]["reason"] == "has q 0.3, not predicted by qidf-content"


def test_q_log_at_1_from_an_earlier_auto_is_drift_and_plan_decides_again(fake, decided):
    """What qidf 0.2 left: apply --q auto that decided 1 installed q-log at q = 1."""
    record = {"prediction": {"q": 1.0, "predictor": "qidf-content", "reason": REASON}}
    install.apply(cluster_of(fake), "code", QlogParams(1.0), mode=Mode.SCRIPT,
                  extra_record=record)
    state = parse(AUTO, "qidf.toml")
    report = check(state, conns(fake))
    assert report.exit_code == 3 and decided["calls"] == []
    assert report.drift[0]["reason"].startswith('has q-log q=1 from an earlier q = "auto": a '
                                                "decision of q = 1 now keeps the similarity")
    assert make_plan(state, conns(fake)).items[0].action == REVERT
    decided["q"] = 0.7
    item = make_plan(state, conns(fake)).items[0]
    assert item.action == UPDATE and item.params and item.params["q"] == 0.7


def test_untouched_and_q_below_1_is_drift_found_by_measuring(fake, decided):
    decided["q"] = 0.7
    report = check(parse(AUTO, "qidf.toml"), conns(fake))
    assert report.exit_code == 3 and len(decided["calls"]) == 1
    assert report.drift[0]["reason"] == "has built-in default similarity (BM25), not q-log"


def test_queries_are_reaches_the_predictor_and_pins_the_decision(fake, decided):
    decided["q"] = 0.7
    code = parse(AUTO + 'queries_are = "code"\n', "qidf.toml")
    plan = make_plan(code, conns(fake))
    assert decided["calls"] == [("code", "qidf-content", "code")]
    assert plan.items[0].prediction["query_kind"] == "code"
    assert apply_plan(plan, conns(fake)).ok
    installed = fake.indices["code"]["mapping"]["_meta"]["qidf"]["installed"]
    assert installed["prediction"]["query_kind"] == "code"
    decided["calls"].clear()
    assert check(code, conns(fake)).in_sync and decided["calls"] == []
    text = parse(AUTO + 'queries_are = "text"\n', "qidf.toml")
    report = check(text, conns(fake))
    assert report.drift[0]["reason"] == "has q 0.7 decided with queries_are = 'code', not 'text'"
    unstated = check(parse(AUTO, "qidf.toml"), conns(fake))
    assert unstated.drift[0]["reason"] == "has q 0.7 decided with queries_are = 'code', not None"


def test_a_closed_untouched_index_is_not_measured_by_check(fake, decided):
    fake.indices["code"]["status"] = "close"
    report = check(parse(AUTO, "qidf.toml"), conns(fake))
    assert report.exit_code == 3 and decided["calls"] == []


T = '[[target]]\nindex = "code"\n'


@pytest.mark.parametrize("text, message", [
    (T + 'q = 0.3\nqueries_are = "code"\n',
     'target 1 (index code): queries_are is read only with q = "auto": drop it, or write '
     'q = "auto"'),
    (T + 'q = "auto"\npredictor = "qidf-content"\nqueries_are = "sql"\n',
     "target 1 (index code): queries_are must be one of code, text, got 'sql'"),
    (T + 'q = "auto"\npredictor = "qidf-content"\nqueries_are = 1\n',
     'queries_are must be a "code" or "text", got 1'),
    (T + 'q = "auto"\npredictor = "paper"\nqueries_are = "code"\n',
     "predictor paper does not read a stated query kind"),
    ('[[target]]\ntemplate = "t"\nq = 0.3\nqueries_are = "code"\n',
     "target 1 (template t): queries_are applies only to index, alias, pattern targets"),
    (T + 'q = "auto"\npredictor = "qidf-content"\nqueries = "code"\n',
     "unknown key 'queries' (did you mean 'queries_are'?)"),
])
def test_queries_are_in_the_file_is_validated_in_one_line(text, message):
    from qidf_ctl.desired import DesiredStateError

    with pytest.raises(DesiredStateError) as info:
        parse(text, "qidf.toml")
    assert "\n" not in str(info.value) and str(info.value).startswith("qidf.toml: ")
    assert message in str(info.value)


def test_queries_are_in_defaults_serves_the_auto_targets_only():
    state = parse('[defaults]\npredictor = "qidf-content"\nqueries_are = "code"\n\n'
                  '[[target]]\nindex = "a"\nq = "auto"\n\n[[target]]\nindex = "b"\nq = 0.3\n',
                  "qidf.toml")
    auto, fixed = (t.similarity for t in state.targets)
    assert (auto.queries_are, fixed.queries_are) == ("code", None)
    assert auto.describe().startswith("q=auto (qidf-content) queries_are=code ")


def test_check_without_read_privileges_reports_drift_as_before(fake, monkeypatch):
    from qidf_ctl.errors import ClusterError

    def forbidden(*args, **kwargs):
        raise ClusterError("security_exception: no permissions for [indices:data/read/mtv]",
                           status=403)

    monkeypatch.setattr("qidf_ctl.predictors.predict_for_index", forbidden)
    report = check(parse(AUTO, "qidf.toml"), conns(fake))
    assert report.exit_code == 3 and report.drift[0]["reason"].startswith(
        "has built-in default similarity (BM25), not q-log (q not decided: these credentials "
        "cannot read the index's statistics: security_exception")
    with pytest.raises(ClusterError):  # plan must decide: the error is its answer
        make_plan(parse(AUTO, "qidf.toml"), conns(fake))
