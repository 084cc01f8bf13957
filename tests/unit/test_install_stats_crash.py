"""The statistics part under every crash point, on the fake engine: apply ``--stats index``
on a 3-shard index that has its own default search pipeline, and revert, each strategy; and
the reopen strategy on Elasticsearch. The process dies before each single request; the next
qidf command must leave the index open with exactly the old or exactly the new similarity
*and* default search pipeline, qidf's pipeline present exactly when the index names it, the
user's pipeline untouched, and a record that agrees."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from qidf_ctl import install
from qidf_ctl.install import clone_swap, settle
from qidf_ctl.install.lease import Owner
from qidf_ctl.install.pipeline import PROCESSOR, SETTING
from qidf_ctl.similarity import QlogParams, parse, unflatten

from .fake_cluster import FakeEngine, fake_cluster
from .test_install_crash import Crash

OLD = {"type": "BM25", "k1": "1.1"}
MINE = {"request_processors": [{"filter_query": {"query": {"match_all": {}}}}]}
PID = "qidf-stats-code"


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)
    monkeypatch.setattr(clone_swap, "GRACE_S", 0)
    monkeypatch.setattr(Owner, "is_dead_here", lambda self: True)  # the crashed run is gone


def _engine(operation: str, strategy: str, distribution: str) -> FakeEngine:
    settings = {"index.number_of_shards": "3"}
    if distribution == "opensearch":
        settings[SETTING] = "mine"
    engine = FakeEngine(similarity=OLD, docs=4, plugins=("qidf-qlog-similarity",),
                        extra_settings=settings)
    engine.pipelines["mine"] = copy.deepcopy(MINE)
    if operation == "revert":
        _apply(engine, strategy, distribution, 0.3)
    engine.calls.clear()
    return engine


def _cluster(engine: FakeEngine, distribution: str) -> Any:
    return fake_cluster(engine, "8.19.21" if distribution == "elasticsearch" else "2.19.6",
                        distribution)


def _apply(engine: FakeEngine, strategy: str, distribution: str, q: float) -> Any:
    stats = "index" if distribution == "opensearch" else "auto"
    return install.apply(_cluster(engine, distribution), "code", QlogParams(q),
                         strategy=strategy, stats=stats)


def _run(engine: FakeEngine, operation: str, strategy: str, distribution: str) -> Any:
    if operation == "apply":
        return _apply(engine, strategy, distribution, 0.6)
    return install.revert(_cluster(engine, distribution), "code", strategy=strategy)


def _consistent(engine: FakeEngine, operation: str, distribution: str) -> str:
    index = engine.concrete("code")
    assert index.status == "open"
    assert index.settings.get("index.blocks.write") in (None, "false")
    assert engine.pipelines.get("mine") == MINE, "the user's pipeline was written"
    sim = engine.similarity("code")
    setting = index.settings.get(SETTING)
    record = (index.mapping.get("_meta") or {}).get("qidf") or {}
    if sim == OLD:
        end = "old" if operation == "apply" else "new"
        assert not record.get("installed")
    else:
        end = "new" if operation == "apply" else "old"
        assert parse(unflatten(sim)).params == QlogParams(0.6 if operation == "apply" else 0.3)
    on = (end == "new") == (operation == "apply")  # q-log installed: the pipeline too
    if distribution == "elasticsearch":
        assert setting is None and set(engine.pipelines) == {"mine"}
    elif on:
        assert setting == PID, f"{end}: similarity {sim}, pipeline setting {setting}"
        assert engine.pipelines[PID]["request_processors"] == [
            *MINE["request_processors"], {PROCESSOR: {"tag": "qidf"}}]
        assert record["stats"]["previous"] == "mine"
    else:
        assert setting == "mine" and set(engine.pipelines) == {"mine"}, (end, setting)
        assert "stats" not in record
    assert not any(k.startswith("journal:") for k in engine.state_docs())
    assert [i for i in engine.indices if "-qidf-" in i and i != index.name] == []
    return end


CASES = [(op, st, "opensearch") for op in ("apply", "revert") for st in ("close", "clone")] + \
    [(op, "reopen", "elasticsearch") for op in ("apply", "revert")]


@pytest.mark.parametrize(("operation", "strategy", "distribution"), CASES)
def test_crash_before_every_request_then_recover(operation, strategy, distribution):
    probe = _engine(operation, strategy, distribution)
    _run(probe, operation, strategy, distribution)
    total = len(probe.calls)
    ends = set()
    for k in range(total):
        engine = _engine(operation, strategy, distribution)
        count = {"n": 0}

        def die(method, path, body, k=k, count=count):
            count["n"] += 1
            if count["n"] > k:
                raise Crash

        engine.before = die
        with pytest.raises(Crash):
            _run(engine, operation, strategy, distribution)
        engine.before = None
        install.recover(_cluster(engine, distribution), "code")
        ends.add(_consistent(engine, operation, distribution))
        again = _run(engine, operation, strategy, distribution)  # nothing left in the way
        assert again is not None
        _consistent(engine, operation, distribution)
    assert ends == {"old", "new"}
