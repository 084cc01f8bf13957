"""Every crash point, exhaustively, on the fake engine: the process dies (or gets SIGTERM)
before each single request of apply and revert, both strategies; then the next qidf command
must leave the index open, with exactly the old or exactly the new settings, a record that
agrees, every document, and nothing of qidf's left behind. The real-engine matrix (signals
from the fault hook, node death) is tests/integration/test_faults*.py."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from qidf_ctl import install
from qidf_ctl.errors import Interrupted, QidfError
from qidf_ctl.install import clone_swap, settle
from qidf_ctl.install.lease import Owner
from qidf_ctl.similarity import QlogParams, parse, unflatten

from .fake_cluster import FakeEngine, fake_cluster

OLD = {"type": "BM25", "k1": "1.1"}
META = {"team": "search"}


class Crash(BaseException):
    """The process died: nothing after it runs (not even ``finally`` requests)."""


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)
    monkeypatch.setattr(clone_swap, "GRACE_S", 0)


def _engine(operation: str, strategy: str) -> FakeEngine:
    engine = FakeEngine(similarity=OLD, docs=4,
                        mapping={"_meta": dict(META), "properties": {"body": {"type": "text"}}})
    if operation == "revert":
        install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=strategy)
    engine.calls.clear()
    return engine


def _run(engine: FakeEngine, operation: str, strategy: str) -> Any:
    cluster = fake_cluster(engine)
    if operation == "apply":
        return install.apply(cluster, "code", QlogParams(0.6), strategy=strategy)
    return install.revert(cluster, "code", strategy=strategy)


def _request_count(operation: str, strategy: str) -> int:
    engine = _engine(operation, strategy)
    _run(engine, operation, strategy)
    return len(engine.calls)


def assert_consistent(engine: FakeEngine, operation: str) -> str:
    """Open, exactly old or new, record agreeing, documents intact, no leftovers."""
    index = engine.concrete("code")
    assert index.status == "open"
    assert index.settings.get("index.blocks.write") in (None, "false")
    sim = engine.similarity("code")
    meta = index.mapping.get("_meta")
    record = (meta or {}).get("qidf")
    if operation == "apply":
        if sim == OLD:
            assert meta == META, "rolled back, yet _meta changed"
            end = "old"
        else:
            assert parse(unflatten(sim)).params == QlogParams(0.6)
            assert record["installed"]["q"] == 0.6 and record["previous"] == OLD
            end = "new"
    else:
        if sim == OLD:
            assert meta == META, "reverted, so the record is gone and the rest kept"
            end = "new"
        else:
            assert parse(unflatten(sim)).params == QlogParams(0.3)
            assert record["installed"]["q"] == 0.3
            end = "old"
    assert sorted(index.docs) == ["0", "1", "2", "3"]
    assert [i for i in engine.indices if i.startswith("qidf-validate-")] == []
    assert [i for i in engine.indices if "-qidf-" in i and i != index.name] == []
    assert not any(k.startswith("journal:") for k in engine.state_docs())
    return end


CASES = [(op, st) for op in ("apply", "revert") for st in ("close", "clone")]


@pytest.mark.parametrize(("operation", "strategy"), CASES)
def test_sigkill_before_every_request_then_the_next_command_recovers(operation, strategy,
                                                                     monkeypatch):
    total = _request_count(operation, strategy)
    assert total > 15
    monkeypatch.setattr(Owner, "is_dead_here", lambda self: True)  # the crashed run is gone
    ends = set()
    for k in range(total):
        engine = _engine(operation, strategy)
        count = {"n": 0}

        def die(method, path, body, k=k, count=count):
            count["n"] += 1
            if count["n"] > k:
                raise Crash

        engine.before = die
        with pytest.raises(Crash):
            _run(engine, operation, strategy)
        engine.before = None
        result = install.recover(fake_cluster(engine), "code")
        ends.add(assert_consistent(engine, operation))
        assert result.index == "code"
        # and the index can be changed again: no lease or journal left in the way
        again = _run(engine, operation, strategy)
        assert again is not None
    assert ends == {"old", "new"}  # crashes early roll back, late ones finish


@pytest.mark.parametrize(("operation", "strategy"), CASES)
def test_sigterm_before_every_request_settles_before_exiting(operation, strategy,
                                                             monkeypatch):
    total = _request_count(operation, strategy)

    def as_keyboard_interrupt(signum, frame):  # what the CLI's main() installs
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, as_keyboard_interrupt)
    try:
        outcomes = set()
        for k in range(total):
            engine = _engine(operation, strategy)
            count = {"n": 0}

            def term(method, path, body, k=k, count=count, engine=engine):
                count["n"] += 1
                if count["n"] == k + 1:
                    os.kill(os.getpid(), signal.SIGTERM)

            engine.before = term
            try:
                _run(engine, operation, strategy)
                outcomes.add("completed")
            except Interrupted as exc:
                outcomes.add("interrupted")
                assert "recover" not in str(exc) or "settling failed" not in str(exc)
            except KeyboardInterrupt:
                outcomes.add("stopped before the journal")
            engine.before = None
            assert_consistent(engine, operation)
            assert engine.state_docs() == {}  # lease released, journal closed
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert "interrupted" in outcomes


def test_recover_force_breaks_a_live_lease_with_a_warning():
    engine = _engine("apply", "close")
    cluster = fake_cluster(engine)
    other = Owner("0badcafe", "ci-runner-7", 4242, None, "ci", "qidf apply code --q 0.3")
    from qidf_ctl.install import lease as leases
    from qidf_ctl.install.store import StateStore

    store = StateStore(cluster)
    store.ensure()
    leases.acquire(store, "code", other)
    with pytest.raises(QidfError, match="ci-runner-7") as info:
        install.apply(cluster, "code", QlogParams(0.6))
    assert info.value.exit_code == 6 and "\n" not in str(info.value)
    result = install.recover(cluster, "code", force=True)
    assert any("breaking the lease" in w and "ci-runner-7" in w for w in result.warnings)
    assert install.apply(cluster, "code", QlogParams(0.6)).changed
