"""The lease (one qidf run per index, enforced by the engine's op_type=create), stale leases,
and how an interrupted operation is reported and settled by the next command."""

from __future__ import annotations

import time

import pytest

from qidf_ctl import install
from qidf_ctl.install import journal as jr
from qidf_ctl.install import lease as leases
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.lease import LeaseHeld, LeaseLost, Owner
from qidf_ctl.install.store import StateStore
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster


def _store(engine: FakeEngine) -> StateStore:
    store = StateStore(fake_cluster(engine))
    store.ensure()
    return store


def _owner(run_id: str, host: str = "elsewhere", pid: int = 99999) -> Owner:
    return Owner(run_id, host, pid, None, "ci", f"qidf apply code (run {run_id})")


def test_second_holder_gets_one_line_naming_the_first():
    store = _store(FakeEngine())
    leases.acquire(store, "code", _owner("aaaaaaaa", "runner-1"))
    with pytest.raises(LeaseHeld) as info:
        leases.acquire(store, "code", _owner("bbbbbbbb", "runner-2"))
    message = str(info.value)
    assert "\n" not in message and "runner-1" in message and "aaaaaaaa" in message
    assert "qidf recover code --force" in message
    assert info.value.exit_code == 6 and info.value.holder.host == "runner-1"


def test_expired_lease_is_broken_with_a_warning():
    store = _store(FakeEngine())
    leases.acquire(store, "code", _owner("aaaaaaaa"), ttl_s=-1)
    warnings: list[str] = []
    lease = leases.acquire(store, "code", _owner("bbbbbbbb"), warn=warnings.append)
    assert lease.owner.run_id == "bbbbbbbb"
    assert len(warnings) == 1 and "expired" in warnings[0] and "aaaaaaaa" in warnings[0]


def test_dead_process_on_this_host_is_stale_at_once():
    import socket
    import subprocess

    proc = subprocess.Popen(["true"])
    proc.wait()
    dead = Owner("aaaaaaaa", socket.gethostname(), proc.pid, "1", "me", "qidf apply code")
    assert dead.is_dead_here()
    alive = Owner.current()
    assert not alive.is_dead_here()
    store = _store(FakeEngine())
    leases.acquire(store, "code", dead)
    warnings: list[str] = []
    leases.acquire(store, "code", _owner("bbbbbbbb"), warn=warnings.append)
    assert "is gone" in warnings[0]


def test_a_broken_lease_is_lost_for_its_old_holder_and_release_spares_the_new_one():
    store = _store(FakeEngine())
    first = leases.acquire(store, "code", _owner("aaaaaaaa"))
    second = leases.acquire(store, "code", _owner("bbbbbbbb"), force=True)
    with pytest.raises(LeaseLost):
        leases.renew(store, first)
    assert not leases.release(store, first)
    held = leases.current(store, "code")
    assert held is not None and held.owner.run_id == second.owner.run_id


def test_lease_renewal_is_lazy():
    store = _store(FakeEngine())
    lease = leases.acquire(store, "code", _owner("aaaaaaaa"), ttl_s=300)
    assert not lease.due_for_renewal()
    lease.expires_at = time.time() + 10
    assert lease.due_for_renewal()


def _leftover_journal(engine: FakeEngine, step: str = "closed") -> Journal:
    """What a run killed after closing the index (apply q=0.3) leaves behind."""
    cluster = fake_cluster(engine)
    store = _store(engine)
    index = engine.concrete()
    journal = Journal(key="code", run_id="deadbeef", operation="apply", strategy="close",
                      index="code", index_uuid=index.uuid, old={}, new={"type": "BM25",
                                                                      "k1": "1.3"},
                      had_meta=False, old_meta={}, new_meta={"qidf": {"previous": {}}},
                      owner={"host": "runner-9", "command": "qidf apply code"})
    jr.start(store, journal)
    jr.advance(store, journal, step)
    index.status = "close"
    assert cluster is not None
    return journal


def test_show_and_other_commands_report_an_interrupted_operation_in_one_line():
    engine = FakeEngine()
    _leftover_journal(engine)
    shown = install.show(fake_cluster(engine), "code")
    line = shown["interrupted"]
    assert line and "\n" not in line and "deadbeef" in line and "is closed" in line
    assert "qidf recover code" in line
    assert install.pending_notice(fake_cluster(engine), "code") == line


def test_apply_settles_the_interrupted_operation_first():
    engine = FakeEngine()
    _leftover_journal(engine)
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert result.recovered == ["the interrupted apply of code was rolled back"]
    assert result.changed and engine.status == "open"


def test_recover_finishes_when_the_new_settings_are_in_place():
    engine = FakeEngine()
    _leftover_journal(engine)
    engine.concrete().settings.update({"index.similarity.default.type": "BM25",
                                       "index.similarity.default.k1": "1.3"})
    result = install.recover(fake_cluster(engine), "code")
    assert result.changed and "finished" in result.message
    assert engine.status == "open" and engine.mapping["_meta"] == {"qidf": {"previous": {}}}
    assert engine.state_docs() == {}
    assert not install.recover(fake_cluster(engine), "code").changed  # idempotent


def test_recover_rewrites_a_record_that_disagrees_with_the_settings():
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3))
    engine.mapping["_meta"]["qidf"]["installed"]["q"] = 0.6  # what the old race produced
    assert "q=0.6" in install.show(cluster, "code")["disagreement"]
    result = install.recover(cluster, "code")
    assert result.changed and engine.mapping["_meta"]["qidf"]["installed"]["q"] == 0.3
    assert install.show(cluster, "code")["disagreement"] is None


def test_scratch_indices_of_dead_runs_are_removed_by_the_next_run():
    engine = FakeEngine()
    engine.add_index("qidf-validate-0badf00d", {}, {"_meta": {"qidf_lease": "code"}})
    engine.add_index("qidf-validate-1badf00d", {}, {"_meta": {"qidf_lease": "other"}})
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert not [i for i in engine.indices if i.startswith("qidf-validate-")]


def test_scratch_index_of_a_live_run_is_kept():
    engine = FakeEngine()
    store = _store(engine)
    leases.acquire(store, "other", _owner("0badf00d"))
    engine.add_index("qidf-validate-0badf00d", {}, {"_meta": {"qidf_lease": "other"}})
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert "qidf-validate-0badf00d" in engine.indices


def test_the_recorded_command_never_holds_an_option_value(monkeypatch):
    import sys

    monkeypatch.setattr(sys, "argv", ["/usr/bin/qidf", "apply", "code", "--password",
                                      "s3cret", "--url", "https://u:pw@h:9200"])
    owner = Owner.current()
    assert owner.command == "qidf apply code"
    monkeypatch.setattr(sys, "argv", ["qidf", "--api-key=abc", "apply"])
    assert "abc" not in Owner.current().command


def test_a_change_in_progress_is_reported_as_such_not_as_interrupted():
    engine = FakeEngine()
    journal = _leftover_journal(engine)
    store = _store(engine)
    leases.acquire(store, "code", _owner(journal.run_id, "runner-9"))
    shown = install.show(fake_cluster(engine), "code")
    assert shown["interrupted"] is None and "is changing it" in shown["in_progress"]
    assert "runner-9" in shown["lease"]
