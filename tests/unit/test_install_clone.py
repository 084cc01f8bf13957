"""--strategy clone against the fake engine: block, clone with the new similarity, one atomic
alias call, the record, the old index gone; aliases keep their properties; nothing lost."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.cluster.names import clone_public_name
from qidf_ctl.errors import ConflictError, QidfError
from qidf_ctl.install import settle
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster

P = "index.similarity.default."
CLONE = install.Strategy.CLONE


@pytest.fixture(autouse=True)
def _no_retry_sleep(monkeypatch):
    monkeypatch.setattr(settle, "RETRY_S", 0)


def clones(engine: FakeEngine) -> list[str]:
    return sorted(i for i in engine.indices if "-qidf-" in i)


def test_first_clone_replaces_the_index_by_an_alias_of_the_same_name():
    engine = FakeEngine(docs=5, extra_settings={"index.number_of_replicas": "0"})
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=CLONE)
    assert result.changed and result.strategy == "clone"
    (clone,) = clones(engine)
    assert result.new_index == clone and clone.startswith("code-qidf-")
    assert "code" not in engine.indices and engine.concrete("code").name == clone
    writes = [w for w in engine.writes() if not w[1].startswith("/qidf-validate-")]
    assert writes == [
        ("PUT", "/code/_block/write"),
        ("POST", f"/code/_clone/{clone}"),
        ("POST", "/code/_refresh"),
        ("POST", "/_aliases"),
        ("PUT", f"/{clone}/_mapping"),
    ]
    clone_body = next(b for m, p, b in engine.calls if p == f"/code/_clone/{clone}")
    assert clone_body["settings"]["index.blocks.write"] is None
    assert clone_body["settings"]["index.number_of_replicas"] == "0"  # _clone drops it
    assert clone_body["settings"][P + "type"] == "scripted"
    actions = next(b for m, p, b in engine.calls if p == "/_aliases")["actions"]
    assert actions == [{"remove_index": {"index": "code"}},
                       {"add": {"index": clone, "alias": "code"}}]
    assert len(engine.concrete().docs) == 5
    assert engine.settings.get("index.blocks.write") is None
    assert engine.mapping["_meta"]["qidf"]["installed"]["q"] == 0.3
    assert result.write_blocked_seconds > 0 and result.closed_seconds == 0
    assert engine.state_docs() == {}


def test_later_swaps_move_aliases_and_retire_the_old_clone():
    engine = FakeEngine(docs=4)
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3), strategy=CLONE)
    (first,) = clones(engine)
    install.apply(cluster, "code", QlogParams(0.6), strategy=CLONE)
    (second,) = clones(engine)
    assert second != first and first not in engine.indices  # drained, then deleted
    actions = [b for m, p, b in engine.calls if p == "/_aliases"][-1]["actions"]
    assert actions == [{"remove": {"index": first, "alias": "code", "must_exist": True}},
                       {"add": {"index": second, "alias": "code"}}]
    assert engine.indices[second].aliases == {"code": {}}  # no alias piles up per swap
    assert install.show(cluster, "code")["params"]["q"] == 0.6


def test_revert_to_builtin_goes_through_a_closed_clone_and_keeps_every_document():
    engine = FakeEngine(docs=3, similarity={"type": "BM25", "k1": "1.1"})
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3), strategy=CLONE)
    engine.concrete().docs["written-after-apply"] = {"source": {"body": "new"}, "seq": 9,
                                                     "term": 1}
    result = install.revert(cluster, "code", strategy=CLONE)
    assert result.changed
    assert engine.similarity() == {"type": "BM25", "k1": "1.1"}
    assert "written-after-apply" in engine.concrete().docs  # revert never drops a write
    assert "qidf" not in engine.mapping["_meta"]


def test_revert_to_no_similarity_closes_only_the_clone_before_the_swap():
    engine = FakeEngine()
    cluster = fake_cluster(engine)
    install.apply(cluster, "code", QlogParams(0.3), strategy=CLONE)
    (applied,) = clones(engine)
    engine.calls.clear()
    install.revert(cluster, "code", strategy=CLONE)
    (reverted,) = clones(engine)
    assert engine.similarity() == {}
    paths = [p for m, p in engine.writes()]
    assert f"/{reverted}/_close" in paths and f"/{applied}/_close" not in paths
    assert paths.index(f"/{reverted}/_open") < paths.index("/_aliases")


def test_aliases_move_with_their_properties_in_one_call():
    engine = FakeEngine()
    engine.concrete().aliases = {
        "search": {"filter": {"term": {"lang": "go"}}},
        "write-here": {"is_write_index": True, "index_routing": "1"},
    }
    install.apply(fake_cluster(engine), "search", QlogParams(0.3), strategy=CLONE)
    (clone,) = clones(engine)
    assert engine.indices[clone].aliases == {
        "code": {},
        "search": {"filter": {"term": {"lang": "go"}}},
        "write-here": {"is_write_index": True, "index_routing": "1"},
    }
    assert len([p for m, p in engine.writes() if p == "/_aliases"]) == 1


def test_failure_before_the_swap_rolls_back_clone_and_block():
    engine = FakeEngine(docs=3)

    def lose_a_document(method, path, body):
        if method == "GET" and path.endswith("/_count") and "-qidf-" in path:
            clone = engine.indices[path.split("/")[1]]
            clone.docs.pop("0", None)

    engine.before = lose_a_document
    with pytest.raises(QidfError, match=r"holds 2 documents.*rolled back"):
        install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=CLONE)
    assert clones(engine) == [] and "code" in engine.indices
    assert engine.settings.get("index.blocks.write") is None
    assert engine.similarity() == {} and "_meta" not in engine.mapping


def test_clone_of_a_data_stream_backing_index_is_refused():
    engine = FakeEngine(index=".ds-logs-000001", extra_settings={"index.hidden": "true"})
    engine.concrete().data_stream = "logs"
    with pytest.raises(ConflictError, match="backing index"):
        install.apply(fake_cluster(engine), ".ds-logs-000001", QlogParams(0.3),
                      strategy=CLONE, allow_hidden=True)
    assert engine.writes(include_state=True) == []


def test_close_disabled_cluster_points_at_clone_which_works():
    engine = FakeEngine()
    engine.cluster_settings["persistent"]["cluster.indices.close.enable"] = "false"
    cluster = fake_cluster(engine)
    with pytest.raises(ConflictError, match="--strategy clone"):
        install.apply(cluster, "code", QlogParams(0.3))
    assert engine.writes() == []
    assert install.apply(cluster, "code", QlogParams(0.3), strategy=CLONE).changed


def test_clone_names_stay_within_255_bytes_and_are_recognised():
    public = "é" * 127  # 254 bytes
    engine = FakeEngine(index=public)
    install.apply(fake_cluster(engine), public, QlogParams(0.3), strategy=CLONE)
    (clone,) = [i for i in engine.indices if "-qidf-" in i]
    assert len(clone.encode()) <= 255
    assert clone_public_name(clone, list(engine.indices[clone].aliases)) == public


def test_switching_similarity_type_goes_through_the_closed_clone():
    """A clone request cannot drop the old type's keys: the clone is made as it is and its
    similarity changed while it is closed, before it serves anything."""
    engine = FakeEngine(similarity={"type": "BM25", "k1": "1.1"})
    result = install.apply(fake_cluster(engine), "code", QlogParams(0.3), strategy=CLONE)
    clone = result.new_index
    clone_body = next(b for m, p, b in engine.calls if p == f"/code/_clone/{clone}")
    assert not [k for k in clone_body["settings"] if k.startswith(P)]
    paths = [p for _, p in engine.writes()]
    assert paths.index(f"/{clone}/_close") < paths.index(f"/{clone}/_open") < \
        paths.index("/_aliases")
    assert "/code/_close" not in paths
    assert engine.similarity()["type"] == "scripted" and "k1" not in engine.similarity()
