"""apply / revert with the close strategy against a fake transport: the exact requests, the
journal and lease around them, and the index left open and consistent whatever fails."""

from __future__ import annotations

import time

import pytest

from qidf_ctl import install
from qidf_ctl.errors import ClusterError, Interrupted, QidfError
from qidf_ctl.install import settle
from qidf_ctl.similarity import Mode, QlogParams, render

from .fake_cluster import FakeEngine, fake_cluster

P = "index.similarity.default."


@pytest.fixture(autouse=True)
def _no_retry_sleep(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)


def user_writes(engine: FakeEngine) -> list[tuple[str, str]]:
    return [w for w in engine.writes() if not w[1].startswith("/qidf-validate-")]


def test_apply_sends_exactly_these_writes():
    engine = FakeEngine()
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert result.changed and result.strategy == "close" and result.run_id
    assert user_writes(engine) == [
        ("POST", "/code/_close"),
        ("PUT", "/code/_settings"),
        ("POST", "/code/_open"),
        ("PUT", "/code/_mapping"),  # the record comes once the settings are in place
    ]
    body = next(b for m, p, b in engine.calls if (m, p) == ("PUT", "/code/_settings"))
    sim = render(QlogParams(0.3), Mode.SCRIPT, legacy=True)["index"]["similarity"]["default"]
    assert body == {
        P + "type": "scripted",
        P + "weight_script.source": sim["weight_script"]["source"],
        P + "script.source": sim["script"]["source"],
    }
    assert engine.mapping["_meta"]["qidf"]["previous"] == {}
    assert engine.mapping["_meta"]["qidf"]["installed"]["q"] == 0.3
    assert engine.status == "open"
    assert engine.state_docs() == {}  # lease released, journal closed
    assert not [i for i in engine.indices if i.startswith("qidf-validate-")]


def test_order_validate_then_journal_then_close():
    engine = FakeEngine()
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    writes = engine.writes(include_state=True)
    lease = writes.index(("PUT", "/qidf-state/_create/lease:code"))
    scratch = max(i for i, w in enumerate(writes) if w[1].startswith("/qidf-validate-"))
    journal = writes.index(("PUT", "/qidf-state/_create/journal:code"))
    close = writes.index(("POST", "/code/_close"))
    release = writes.index(("DELETE", "/qidf-state/_doc/lease:code"))
    assert lease < scratch < journal < close < release == len(writes) - 1


def test_server_side_timeouts_on_slow_calls():
    engine = FakeEngine()
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    for (_method, path, _), query in zip(engine.calls, engine.queries, strict=True):
        if path in ("/code/_close", "/code/_open"):
            assert query["timeout"] == "30s" and query["cluster_manager_timeout"] == "30s"


def test_apply_twice_changes_nothing_the_second_time():
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3))
    engine.calls.clear()
    again = install.apply(cluster, "code", QlogParams(0.3))
    assert not again.changed and "nothing changed" in again.message
    assert engine.writes() == []


def test_update_failure_reopens_with_old_settings_and_writes_no_meta():
    engine = FakeEngine(fail_update=True)
    before = dict(engine.settings)
    with pytest.raises(QidfError, match=r"illegal_argument_exception.*rolled back"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open"
    assert engine.settings == before
    assert "_meta" not in engine.mapping  # a failed command leaves no trace
    assert engine.state_docs() == {}


def test_update_failure_keeps_an_existing_meta_untouched():
    engine = FakeEngine(mapping={"_meta": {"team": "search"},
                                 "properties": {"body": {"type": "text"}}}, fail_update=True)
    with pytest.raises(QidfError):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.mapping["_meta"] == {"team": "search"}
    assert ("PUT", "/code/_mapping") not in engine.writes()


def test_open_failure_after_update_restores_previous_settings():
    engine = FakeEngine(similarity={"type": "BM25", "k1": "1.1"}, fail_open_times=3)
    with pytest.raises(QidfError, match="would not open with the new similarity"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open"
    assert engine.similarity() == {"type": "BM25", "k1": "1.1"}
    assert "_meta" not in engine.mapping


def test_closed_index_is_refused_untouched():
    engine = FakeEngine(status="close")
    with pytest.raises(QidfError, match="is closed"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.writes() == [] and engine.status == "close"


def test_dry_run_writes_nothing_not_even_state():
    engine = FakeEngine()
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3), dry_run=True)
    assert not result.changed and engine.writes(include_state=True) == []
    assert result.settings_body[P + "type"] == "scripted"
    assert "qidf-state" not in engine.indices


def test_field_with_own_similarity_is_reported_or_refused():
    mapping = {"properties": {"body": {"type": "text"},
                              "title": {"type": "text", "similarity": "boolean"}}}
    engine = FakeEngine(mapping=mapping)
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert any("title" in w and "boolean" in w for w in result.warnings)
    with pytest.raises(QidfError, match="names its own similarity"):
        install.apply(fake_cluster(FakeEngine(mapping=mapping)), "code", QlogParams(0.3),
                      field_name="title")


def test_switching_type_nulls_stale_keys_and_revert_restores_exactly():
    engine = FakeEngine(similarity={"type": "BM25", "k1": "1.1", "b": "0.5"})
    original = dict(engine.settings)
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3))
    body = next(b for m, p, b in engine.calls if (m, p) == ("PUT", "/code/_settings"))
    assert body[P + "k1"] is None and body[P + "b"] is None
    install.apply(cluster, "code", QlogParams(0.6), mode=Mode.PLUGIN)
    assert engine.mapping["_meta"]["qidf"]["previous"] == {"type": "BM25", "k1": "1.1", "b": "0.5"}
    result = install.revert(cluster, "code")
    assert result.changed
    assert engine.settings == original
    assert "qidf" not in engine.mapping["_meta"]


def test_revert_without_install_is_a_no_op():
    engine = FakeEngine()
    result = install.revert(fake_cluster(engine), "code")
    assert not result.changed and engine.writes() == []


def test_opensearch3_renders_without_legacy_factor():
    engine = FakeEngine()
    install.apply(fake_cluster(engine, version="3.3.0"), "code", QlogParams(0.3))
    body = next(b for m, p, b in engine.calls if (m, p) == ("PUT", "/code/_settings"))
    assert body[P + "weight_script.source"].endswith("return query.boost * idf;")


def test_interrupt_during_update_reopens_and_exits_interrupted():
    engine = FakeEngine()

    def interrupt(method, path, body):
        if method == "PUT" and path == "/code/_settings":
            engine.before = None
            raise KeyboardInterrupt  # Ctrl-C where no signal guard runs

    engine.before = interrupt
    with pytest.raises(Interrupted, match="rolled back"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open" and engine.similarity() == {}
    assert engine.state_docs() == {}


def test_slow_close_is_waited_for_not_reported_unreachable():
    """The client gives up on _close (read timeout) while the engine closes the index: qidf
    sees the cluster still answers and polls until the index is closed."""
    engine = FakeEngine()

    def slow_close(method, path, body):
        if method == "POST" and path == "/code/_close":
            engine.concrete().status = "close"  # the engine did it...
            raise ClusterError("cannot reach http://fake:9200 (Read timed out)",
                               error_type="connection_error", retryable=True)  # ...slowly

    engine.before = slow_close
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert result.changed and engine.status == "open" and engine.similarity()["type"] == \
        "scripted"


def test_unreachable_cluster_mid_change_says_recover():
    engine = FakeEngine()
    dead = {"on": False}

    def die(method, path, body):
        if (method, path) == ("PUT", "/code/_settings"):
            dead["on"] = True
        if dead["on"]:
            raise ClusterError("cannot reach http://fake:9200 (connection refused)",
                               error_type="connection_error", retryable=True)

    engine.before = die
    with pytest.raises(ClusterError, match="qidf recover code") as info:
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert info.value.exit_code == 7
    dead["on"] = False
    assert engine.status == "close"  # the node is back; the index waits for recovery
    assert "journal:code" in engine.state_docs()


def test_an_unacknowledged_close_is_polled_until_the_index_is_closed(monkeypatch):
    """acknowledged:false does not mean "not done": qidf reads the index state."""
    engine = FakeEngine()
    polls = {"n": 0}

    def late(method, path, body):
        if method == "GET" and path == "/_cat/indices/code" and engine.status == "open" \
                and any(p == "/code/_close" for _, p, _ in engine.calls):
            polls["n"] += 1
            if polls["n"] == 3:
                engine.concrete().status = "close"  # the engine gets there eventually

    engine.before = late
    real_serve = engine._serve

    def unacked_close(method, path, body, q):
        if method == "POST" and path == "/code/_close":
            return {"acknowledged": False, "shards_acknowledged": False}
        return real_serve(method, path, body, q)

    monkeypatch.setattr(engine, "_serve", unacked_close)
    from qidf_ctl.install import index_ops

    monkeypatch.setattr(index_ops, "POLL_S", 0)
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert result.changed and polls["n"] >= 3 and engine.status == "open"


def test_a_step_that_never_finishes_times_out_and_is_rolled_back(monkeypatch):
    from qidf_ctl.install import index_ops

    engine = FakeEngine()
    real_serve = engine._serve

    def never_closes(method, path, body, q):
        if method == "POST" and path == "/code/_close":
            return {"acknowledged": False}
        return real_serve(method, path, body, q)

    monkeypatch.setattr(engine, "_serve", never_closes)
    monkeypatch.setenv("QIDF_STEP_TIMEOUT", "0.2")
    monkeypatch.setattr(index_ops, "POLL_S", 0.05)
    with pytest.raises(ClusterError, match=r"closing code did not finish within .*rolled back"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open" and engine.similarity() == {}


def test_a_close_refused_per_shard_is_reported_at_once_and_changes_nothing(monkeypatch):
    """A 200 answer holding a shard's FORBIDDEN (``cluster.close_failure``) is not "slow":
    qidf says which privilege is missing instead of polling until the step times out."""
    from qidf_ctl.install import index_ops

    engine = FakeEngine()
    real_serve = engine._serve
    refused = {"acknowledged": False, "shards_acknowledged": False, "indices": {"code": {
        "closed": False, "failedShards": {"0": {"failures": [{"status": "FORBIDDEN",
            "reason": {"type": "security_exception",
                       "reason": "no permissions for [indices:admin/close[s]] and User "
                                 "[name=ci, backend_roles=[], requestedTenant=null]"}}]}}}}}

    def forbidden_close(method, path, body, q):
        if method == "POST" and path == "/code/_close":
            return refused
        return real_serve(method, path, body, q)

    monkeypatch.setattr(engine, "_serve", forbidden_close)
    monkeypatch.setenv("QIDF_STEP_TIMEOUT", "30")
    monkeypatch.setattr(index_ops, "POLL_S", 5)
    started = time.monotonic()
    with pytest.raises(QidfError, match=r"indices:admin/close\[s\]") as info:
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert time.monotonic() - started < 5, "polled instead of reporting the refusal"
    assert info.value.exit_code == 4
    assert engine.status == "open" and engine.similarity() == {}
