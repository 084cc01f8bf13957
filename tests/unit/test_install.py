"""apply / revert against a fake transport: the exact requests, and the index reopened
whatever fails after the close."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.errors import QidfError
from qidf_ctl.similarity import Mode, QlogParams, render

from .fake_cluster import FakeEngine, fake_cluster

P = "index.similarity.default."


def test_apply_sends_exactly_these_writes():
    engine = FakeEngine()
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert result.changed
    writes = [w for w in engine.writes() if not w[1].startswith("/qidf-validate-")]
    assert writes == [
        ("PUT", "/code/_mapping"),
        ("POST", "/code/_close"),
        ("PUT", "/code/_settings"),
        ("POST", "/code/_open"),
    ]
    body = next(b for m, p, b in engine.calls if (m, p) == ("PUT", "/code/_settings"))
    sim = render(QlogParams(0.3), Mode.SCRIPT, legacy=True)["index"]["similarity"]["default"]
    assert body == {
        P + "type": "scripted",
        P + "weight_script.source": sim["weight_script"]["source"],
        P + "script.source": sim["script"]["source"],
    }
    validate = [p for m, p, _ in engine.calls if p.startswith("/qidf-validate-")]
    assert validate and validate[-1].startswith("/qidf-validate-")  # scratch index deleted last
    assert ("DELETE", validate[-1]) in [(m, p) for m, p, _ in engine.calls]
    assert engine.mapping["_meta"]["qidf"]["previous"] == {}
    assert engine.mapping["_meta"]["qidf"]["installed"]["q"] == 0.3
    assert engine.status == "open"


def test_validation_happens_before_the_close():
    engine = FakeEngine()
    install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    paths = [p for _, p, _ in engine.calls]
    assert max(i for i, p in enumerate(paths) if p.startswith("/qidf-validate-")) < \
        paths.index("/code/_close")


def test_apply_twice_changes_nothing_the_second_time():
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3))
    engine.calls.clear()
    again = install.apply(cluster, "code", QlogParams(0.3))
    assert not again.changed and "nothing changed" in again.message
    assert engine.writes() == []


def test_update_failure_reopens_with_old_settings_and_old_meta():
    engine = FakeEngine(mapping={"_meta": {"team": "search"},
                                 "properties": {"body": {"type": "text"}}}, fail_update=True)
    before = dict(engine.settings)
    with pytest.raises(QidfError, match="open again with its previous settings"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open"
    assert engine.settings == before
    assert engine.mapping["_meta"] == {"team": "search"}


def test_open_failure_after_update_restores_previous_settings():
    engine = FakeEngine(similarity={"type": "BM25", "k1": "1.1"}, fail_open_times=3)
    with pytest.raises(QidfError, match="previous settings were restored"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open"
    assert engine.settings[P + "type"] == "BM25" and engine.settings[P + "k1"] == "1.1"
    assert P + "weight_script.source" not in engine.settings


def test_closed_index_is_refused_untouched():
    engine = FakeEngine(status="close")
    with pytest.raises(QidfError, match="is closed"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.writes() == [] and engine.status == "close"


def test_dry_run_writes_nothing():
    engine = FakeEngine()
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3), dry_run=True)
    assert not result.changed and engine.writes() == []
    assert result.settings_body[P + "type"] == "scripted"


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


def test_interrupt_during_update_still_reopens():
    class Interrupting(FakeEngine):
        def __call__(self, method, path, body=None, params=None):
            if method == "PUT" and path == "/code/_settings":
                self.calls.append((method, path, body))
                raise KeyboardInterrupt  # what SIGTERM becomes in the CLI
            return super().__call__(method, path, body, params)

    engine = Interrupting()
    with pytest.raises(KeyboardInterrupt):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3))
    assert engine.status == "open"
    assert ("POST", "/code/_open") in engine.writes()
