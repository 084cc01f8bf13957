"""``install.apply_auto`` on the fake engine: a decision of q = 1 sends only reads to an index
qidf never changed (no lease, no journal, no state index), reverts one it changed with
exactly the requests of ``install.revert``, settles an interrupted operation first, and a
decision below 1 installs as ``install.apply`` does, the decision recorded."""

from __future__ import annotations

import copy
import re

import pytest

from qidf_ctl import install
from qidf_ctl.install import clone_swap, settle
from qidf_ctl.install.lease import Owner
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster

REASON = "3% of 1,000 sampled documents look like code: a text field -> q 1.00: BM25 stays"
DECISION = {"prediction": {"q": 1.0, "reason": REASON, "ambiguous": True, "evidence": {
    "code_like_documents": {"value": 0.03}}, "statistics": {"documents": 3}}}
CLOSE, CLONE = install.Strategy.CLOSE, install.Strategy.CLONE
OWN = {"type": "BM25", "k1": "1.1"}  # a similarity the user set, not qidf
META = {"team": "search"}

# What the no-op reads, and all it sends: the name, the index, and whether an interrupted
# qidf operation waits for it (a read of one document that creates nothing).
READS = [
    ("GET", "/_resolve/index/code"),
    ("GET", "/code/_alias"),
    ("GET", "/code/_settings/index.uuid"),
    ("GET", "/_cat/indices/code"),
    ("GET", "/code/_settings"),
    ("GET", "/code/_mapping"),
    ("GET", "/qidf-state/_doc/journal:code"),
]


class Crash(BaseException):
    """The process died: nothing after it runs."""


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)
    monkeypatch.setattr(clone_swap, "GRACE_S", 0)


def _decision(q: float) -> dict:
    record = copy.deepcopy(DECISION)
    record["prediction"]["q"] = q
    return record


def _auto(engine: FakeEngine, q: float = 1.0, **kwargs) -> install.ChangeResult:
    return install.apply_auto(fake_cluster(engine), "code", QlogParams(q),
                              decision=_decision(q), **kwargs)


def _snapshot(engine: FakeEngine) -> tuple:
    index = engine.concrete("code")
    return (index.name, copy.deepcopy(index.settings), copy.deepcopy(index.mapping),
            index.status, sorted(engine.indices))


def _user_writes(engine: FakeEngine) -> list[tuple[str, str]]:
    """Writes to the user's indices, a clone's run id made constant."""
    return [(m, re.sub(r"-qidf-[0-9a-z]+", "-qidf-RUN", p)) for m, p in engine.writes()
            if not p.startswith("/qidf-validate-")]


@pytest.mark.parametrize("strategy", [CLOSE, CLONE])
@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("similarity, mapping", [
    (None, None),  # the engine's built-in default
    (OWN, {"_meta": dict(META), "properties": {"body": {"type": "text"}}}),  # the user's own
])
def test_q1_on_an_index_qidf_never_changed_sends_only_reads(strategy, dry_run, similarity,
                                                           mapping):
    engine = FakeEngine(similarity=similarity, mapping=mapping)
    before = _snapshot(engine)
    result = _auto(engine, strategy=strategy, dry_run=dry_run)
    assert [(m, p) for m, p, _ in engine.calls] == READS
    assert engine.writes(include_state=True) == []
    assert _snapshot(engine) == before and "qidf-state" not in engine.indices
    assert (result.action, result.changed, result.dry_run) == ("none", False, dry_run)
    kept = ("built-in default similarity (BM25)" if similarity is None
            else "built-in BM25 with k1=1.1")
    assert result.before == result.after == kept
    assert result.message == (f"code: nothing to do: q auto: {REASON}; the index keeps its "
                              f"{result.after}, which qidf never changed")
    assert result.decision == {k: v for k, v in DECISION["prediction"].items()
                               if k != "statistics"}
    assert result.settings_body == {} and result.run_id == ""


@pytest.mark.parametrize("strategy", [CLOSE, CLONE])
def test_q1_on_an_index_qidf_changed_is_exactly_revert(strategy):
    """Same requests as `qidf revert` on a twin engine, same end state: the settings and the
    _meta the index had before qidf's first apply."""
    engines = []
    for _ in range(2):
        engine = FakeEngine(similarity=OWN, docs=4, mapping={
            "_meta": dict(META), "properties": {"body": {"type": "text"}}})
        install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=strategy)
        engine.calls.clear()
        engines.append(engine)
    auto, twin = engines
    result = _auto(auto, strategy=strategy)
    install.revert(fake_cluster(twin), "code", strategy=strategy)
    assert _user_writes(auto) == _user_writes(twin) != []
    assert auto.similarity("code") == OWN == twin.similarity("code")
    assert auto.mapping["_meta"] == META and auto.status == "open"
    assert auto.state_docs() == {}  # lease released, journal closed
    assert result.action == "revert" and result.changed
    assert result.after == "built-in BM25 with k1=1.1"
    assert result.message.startswith(f"code: q auto: {REASON}; restored built-in BM25 with "
                                     "k1=1.1, the similarity it had before qidf's first apply, "
                                     "as `qidf revert` does")
    assert result.decision is not None and result.decision["q"] == 1.0


def test_q1_dry_run_on_an_index_qidf_changed_says_revert_and_changes_nothing():
    engine = FakeEngine()
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    before = _snapshot(engine)
    engine.calls.clear()
    result = _auto(engine, dry_run=True)
    assert engine.writes(include_state=True) == [] and _snapshot(engine) == before
    assert result.dry_run and not result.changed
    assert result.message == (f"code: q auto: {REASON}; would restore built-in default "
                              "similarity (BM25), the similarity it had before qidf's first "
                              "apply, with --strategy close, as `qidf revert` does (dry run: "
                              "nothing changed)")


def test_q1_settles_an_interrupted_apply_first(monkeypatch):
    """An apply killed after its journal, before the close: the settings look untouched, but
    a journal waits. The q = 1 decision goes through revert, which settles it first."""
    engine = FakeEngine()

    def die(method, path, body):
        if (method, path) == ("POST", "/code/_close"):
            raise Crash

    engine.before = die
    with pytest.raises(Crash):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    engine.before = None
    assert any(k.startswith("journal:") for k in engine.state_docs())
    monkeypatch.setattr(Owner, "is_dead_here", lambda self: True)  # the killed run is gone
    result = _auto(engine)
    assert result.recovered and engine.state_docs() == {}
    assert engine.similarity("code") == {} and engine.status == "open"
    assert "_meta" not in engine.mapping  # the rolled-back apply wrote no record
    assert "nothing changed" in result.message and REASON in result.message


def test_q_below_1_installs_and_records_the_decision():
    engine = FakeEngine()
    result = _auto(engine, 0.7)
    assert result.action == "apply" and result.changed
    assert _user_writes(engine) == [("POST", "/code/_close"), ("PUT", "/code/_settings"),
                                    ("POST", "/code/_open"), ("PUT", "/code/_mapping")]
    installed = engine.mapping["_meta"]["qidf"]["installed"]
    assert installed["q"] == 0.7 and installed["prediction"]["reason"] == REASON
    assert result.decision is not None and result.decision["q"] == 0.7


def test_untouched_is_no_record_and_no_qlog():
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    assert install.untouched(install.read_state(cluster, "code"))
    install.apply(cluster, "code", QlogParams(0.3))
    assert not install.untouched(install.read_state(cluster, "code"))
    install.revert(cluster, "code")
    assert install.untouched(install.read_state(cluster, "code"))  # _meta: {} is no record
