"""Exact names and refusals that change nothing: reserved characters refused before any
request, a seeded fuzz of names that always round-trips through one URL path segment, data
streams, hidden and system indices, aliases of several indices, blocks."""

from __future__ import annotations

import random
from urllib.parse import unquote

import pytest

from qidf_ctl import install
from qidf_ctl.cluster.names import (
    MAX_NAME_BYTES,
    check_name,
    clone_name,
    clone_public_name,
    index_path,
    segment,
)
from qidf_ctl.errors import ConflictError, UsageError
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster

# The fake engine is OpenSearch, which has no reopen (refused before any request).
OPENSEARCH_STRATEGIES = [install.Strategy.CLOSE, install.Strategy.CLONE]


@pytest.mark.parametrize("bad", ["code#zzz", "code?x=1", "code/x", "co*de", "a,b", "a b",
                                 "a:b", "Code", "_code", "-code", "+code", ".", "..", "",
                                 "a\\b", 'a"b', "a<b", "a>b", "a|b", "a\tb", "é" * 128])
def test_reserved_names_are_refused_before_any_request(bad):
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    for call in (lambda: install.apply(cluster, bad, QlogParams(0.3)),
                 lambda: install.revert(cluster, bad),
                 lambda: install.recover(cluster, bad),
                 lambda: install.apply(cluster, bad, QlogParams(0.3),
                                       strategy=install.Strategy.CLONE)):
        with pytest.raises(UsageError) as info:
            call()
        assert info.value.exit_code == 2 and "\n" not in str(info.value)
    assert engine.calls == []


GOOD = list("abcxyz0189-_+.%é中ßσ😀")
ALPHABET = GOOD + list("#?/*, :Σ\\\"<>|") + ["\u0130", "\x00", "\ud800", "A"]


def _fuzz_names(n: int, seed: int = 20261130) -> list[str]:
    rng = random.Random(seed)
    names = []
    for _ in range(n):
        length = rng.choice([1, 2, 5, 20, 64, 120, 200, 260])
        alphabet = GOOD if rng.random() < 0.5 else ALPHABET
        names.append("".join(rng.choice(alphabet) for _ in range(length)))
    return [*names, "%23", "%2F", "a%2e%2e", "..a", "a..", "é" * 127, "x" * 255, "x" * 256]


def test_fuzzed_names_are_refused_or_round_trip_as_one_segment():
    accepted = refused = 0
    for name in _fuzz_names(3000):
        try:
            check_name(name)
        except UsageError:
            refused += 1
            continue
        accepted += 1
        seg = segment(name)
        assert not set(seg) & set("/?#%, *:") - {"%"}
        assert all(c.isascii() for c in seg)
        assert unquote(seg) == name
        path = index_path(name, "_close")
        assert path.split("/") == ["", seg, "_close"]
        assert len(name.encode()) <= MAX_NAME_BYTES
    assert accepted > 300 and refused > 300  # the fuzz exercises both sides


def test_clone_names_fit_and_map_back_for_fuzzed_public_names():
    for name in _fuzz_names(2000, seed=7):
        try:
            check_name(name)
        except UsageError:
            continue
        clone = clone_name(name, "0a1b2c3d")
        check_name(clone)
        assert clone_public_name(clone, [name, "other"]) == name
        assert clone_public_name(clone, ["other"]) is None


def test_fuzzed_names_change_only_the_index_named():
    """Every accepted name addresses exactly its own index, even beside a look-alike."""
    rng = random.Random(3)
    names = [n for n in _fuzz_names(400, seed=11) if _ok(n)][:60]
    assert len(names) == 60
    for name in names:
        engine = FakeEngine(index=name)
        decoy = "code"
        engine.add_index(decoy, {}, {"properties": {"body": {"type": "text"}}})
        engine.add_index(name + "x" if len((name + "x").encode()) <= 255 else "other")
        strategy = rng.choice(OPENSEARCH_STRATEGIES)
        install.apply(fake_cluster(engine), name, QlogParams(0.3), strategy=strategy)
        touched = {p.split("/")[1] for m, p in engine.writes() if not p.startswith("/_")}
        touched = {t for t in touched if not t.startswith("qidf-validate-")}
        assert touched <= {name, engine.concrete(name).name}, (name, touched)
        assert engine.similarity(decoy) == {}


def _ok(name: str) -> bool:
    try:
        check_name(name)
    except UsageError:
        return False
    return not name.startswith(".")


def test_data_stream_gets_a_clear_message_and_no_write():
    engine = FakeEngine(index=".ds-logs-000001", extra_settings={"index.hidden": "true"})
    engine.data_streams["logs"] = [".ds-logs-000001"]
    with pytest.raises(ConflictError, match=r"is a data stream.*template") as info:
        install.apply(fake_cluster(engine), "logs", QlogParams(0.3))
    assert info.value.exit_code == 6
    assert engine.writes(include_state=True) == [] and "_meta" not in engine.mapping


def test_write_index_of_a_data_stream_is_refused_before_the_close():
    engine = FakeEngine(index=".ds-logs-000002", extra_settings={"index.hidden": "true"})
    engine.concrete().data_stream = "logs"
    engine.data_streams["logs"] = [".ds-logs-000001", ".ds-logs-000002"]
    with pytest.raises(ConflictError, match="write index"):
        install.apply(fake_cluster(engine), ".ds-logs-000002", QlogParams(0.3),
                      allow_hidden=True)
    assert engine.writes() == []


@pytest.mark.parametrize(("name", "settings"), [(".code", {}),
                                                ("code", {"index.hidden": "true"})])
def test_hidden_indices_need_allow_hidden(name, settings):
    engine = FakeEngine(index=name, extra_settings=settings)
    cluster = fake_cluster(engine)
    with pytest.raises(UsageError, match="--allow-hidden"):
        install.apply(cluster, name, QlogParams(0.3))
    assert engine.writes(include_state=True) == []
    assert install.apply(cluster, name, QlogParams(0.3), allow_hidden=True).changed


@pytest.mark.parametrize("name", ["qidf-state", "qidf-validate-0a1b2c3d", "qidf-snapshots"])
def test_qidf_own_indices_are_never_changed(name):
    engine = FakeEngine(index=name)
    with pytest.raises(UsageError, match="qidf's own"):
        install.apply(fake_cluster(engine), name, QlogParams(0.3), allow_hidden=True)
    assert engine.calls == []


def test_alias_of_several_indices_is_refused():
    engine = FakeEngine()
    engine.concrete().aliases["all-code"] = {}
    engine.add_index("code2", aliases={"all-code": {}})
    with pytest.raises(UsageError, match="alias of 2 indices"):
        install.apply(fake_cluster(engine), "all-code", QlogParams(0.3))
    assert engine.writes(include_state=True) == []


@pytest.mark.parametrize("block", ["write", "read_only", "read_only_allow_delete", "metadata"])
def test_blocked_index_is_reported_before_anything_changes(block):
    engine = FakeEngine(extra_settings={f"index.blocks.{block}": "true"})
    for strategy in OPENSEARCH_STRATEGIES:
        with pytest.raises(ConflictError, match=f"index.blocks.{block}=true"):
            install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=strategy)
    assert engine.writes() == [] and engine.similarity() == {}


def test_backing_index_close_works_where_there_is_no_data_stream_api():
    """Elasticsearch's Maven Central zip has no _data_stream API (405): the write-index check
    is skipped there, not turned into a failure."""
    engine = FakeEngine(index=".ds-logs-000001", extra_settings={"index.hidden": "true"})
    engine.concrete().data_stream = "logs"

    def no_api(method, path, body):
        if path.startswith("/_data_stream/"):
            from qidf_ctl.errors import ClusterError

            raise ClusterError("Incorrect HTTP method", status=405)

    engine.before = no_api
    assert install.apply(fake_cluster(engine), ".ds-logs-000001", QlogParams(0.3),
                         allow_hidden=True).changed
