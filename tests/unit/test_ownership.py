"""Ownership of what qidf creates beside an index (``qidf_ctl/install/ownership.py``), on
the fake engine: the pipeline's owner marker, the refusal to overwrite a pipeline or a state
index that is not the index's, a revert that keeps a pipeline another index names (a
``_clone`` copies the setting) and says which, an index cloned from another getting its own
pipeline and reverting to what its copied record says, and a clone target that exists and is
not this run's clone. The same on the real engine: tests/integration/test_ownership.py."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.errors import ClusterError, ConflictError
from qidf_ctl.install import ownership, pipeline
from qidf_ctl.install.operation import session
from qidf_ctl.install.pipeline import PROCESSOR, SETTING
from qidf_ctl.install.store import OWNER_DOC, StateStore
from qidf_ctl.similarity import QlogParams

from .fake_cluster import FakeEngine, fake_cluster

PID = "qidf-stats-code"


def sharded() -> FakeEngine:
    return FakeEngine(plugins=("qidf-qlog-similarity",),
                      extra_settings={"index.number_of_shards": "3"})


def clone_of(fake: FakeEngine, cluster, source: str, target: str) -> None:
    """What a user does: block, _clone, unblock (the fake copies settings and mapping)."""
    cluster.request("PUT", f"/{source}/_block/write")
    cluster.request("POST", f"/{source}/_clone/{target}", {"settings": {
        "index.blocks.write": None}})
    cluster.request("PUT", f"/{source}/_settings", {"index.blocks.write": None})


def test_the_owner_is_read_from_the_description():
    assert ownership.pipeline_owner(pipeline.compose("code", None, None)) == "code"
    assert ownership.pipeline_owner(pipeline.compose("a.b-c", "mine", {})) == "a.b-c"
    assert ownership.pipeline_owner({"description": "the team's"}) is None
    assert ownership.pipeline_owner({}) is None and ownership.pipeline_owner(None) is None
    assert pipeline.owner_key(PID) == "code"


@pytest.mark.parametrize("description", ["the team's", pipeline.compose("other", None, None)[
    "description"]])
def test_a_pipeline_of_that_name_not_the_index_s_is_refused_before_any_change(description):
    fake = sharded()
    cluster = fake_cluster(fake)
    body = {"description": description, "request_processors": [{PROCESSOR: {"tag": "x"}}]}
    fake.pipelines[PID] = dict(body)
    with pytest.raises(ConflictError, match=f"the search pipeline '{PID}' exists and is "):
        install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert fake.pipelines[PID] == body
    assert fake.writes() == [] and SETTING not in fake.settings


def test_revert_keeps_the_pipeline_a_clone_names_and_says_which():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    clone_of(fake, cluster, "code", "code-copy")
    assert fake.indices["code-copy"].settings[SETTING] == PID
    result = install.revert(cluster, "code")
    assert PID in fake.pipelines and SETTING not in fake.settings
    assert any(w.startswith(f"kept the search pipeline {PID}: code-copy still uses it")
               for w in result.warnings), result.warnings
    # The clone's revert: its setting back to what its copied record says; the original's
    # pipeline is not the clone's to delete, and no pipeline of its own was made.
    install.revert(cluster, "code-copy")
    assert SETTING not in fake.indices["code-copy"].settings
    assert set(fake.pipelines) == {PID}


def test_a_clone_applied_gets_its_own_pipeline_then_the_original_s_goes():
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")
    clone_of(fake, cluster, "code", "code-copy")
    install.apply(cluster, "code-copy", QlogParams(0.5), stats="index")
    own = fake.pipelines["qidf-stats-code-copy"]
    assert [next(iter(p)) for p in own["request_processors"]] == [PROCESSOR]
    assert fake.indices["code-copy"].settings[SETTING] == "qidf-stats-code-copy"
    result = install.revert(cluster, "code")
    assert PID not in fake.pipelines and not any("kept" in w for w in result.warnings)


def test_a_setting_that_names_another_index_s_pipeline_without_a_record_is_refused():
    fake = sharded()
    cluster = fake_cluster(fake)
    fake.pipelines["qidf-stats-other"] = pipeline.compose("other", None, None)
    fake.settings[SETTING] = "qidf-stats-other"
    with pytest.raises(ConflictError, match="qidf's pipeline of 'other'"):
        install.apply(cluster, "code", QlogParams(0.3), stats="index")
    assert fake.writes() == []


def test_unknown_users_keep_the_pipeline(monkeypatch):
    """A user who may not read every index's settings cannot know who else uses it."""
    fake = sharded()
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3), stats="index")

    def refuse(method, path, body):
        if path.startswith("/_all/_settings"):
            raise ClusterError("security_exception: no permissions", status=403,
                               error_type="security_exception")

    fake.before = refuse
    result = install.revert(cluster, "code")
    assert PID in fake.pipelines and SETTING not in fake.settings
    assert any("may not read every index's settings" in w for w in result.warnings)


def test_a_state_index_that_is_not_qidf_s_is_refused():
    fake = FakeEngine()
    fake.add_index("qidf-state", {}, {"properties": {"title": {"type": "text"}}}, docs=2)
    cluster = fake_cluster(fake)
    with pytest.raises(ConflictError, match="the state index 'qidf-state' exists and is not "
                       "qidf's"):
        install.apply(cluster, "code", QlogParams(0.3))
    assert set(fake.indices["qidf-state"].docs) == {"0", "1"}
    assert fake.similarity() == {}


def test_qidf_s_own_state_index_from_before_the_marker_is_recognised():
    fake = FakeEngine()
    fake.add_index("qidf-state", {"index.hidden": "true", "index.number_of_shards": "1",
                                  "index.auto_expand_replicas": "0-1"})
    cluster = fake_cluster(fake)
    install.apply(cluster, "code", QlogParams(0.3))
    assert StateStore(cluster).get(OWNER_DOC) is not None


def test_a_fresh_state_index_is_marked_once():
    fake = FakeEngine()
    cluster = fake_cluster(fake)
    with session(cluster, "code"):
        pass
    assert StateStore(cluster).get(OWNER_DOC) is not None
    before = len(fake.calls)
    with session(cluster, "code"):
        pass
    reads = [c for c in fake.calls[before:] if c[1].startswith("/qidf-state")
             and "owner" in c[1]]
    assert [m for m, _, _ in reads] == ["GET"]  # one read; no second write


def test_a_clone_target_that_is_someone_else_s_is_not_used():
    from qidf_ctl.install import clone_swap

    fake = FakeEngine()
    cluster = fake_cluster(fake)
    source_uuid = fake.settings["index.uuid"]
    journal = install.journal.Journal(
        key="code", run_id="abcd1234", operation="apply", strategy="clone", index="code",
        index_uuid=source_uuid, old={}, new={"type": "BM25"}, had_meta=False, old_meta={},
        new_meta={}, target="code-qidf-abcd1234")
    fake.add_index("code-qidf-abcd1234", {"index.resize.source.uuid": "someone-else"})
    steps = dict((name, action) for name, action, _ in clone_swap.steps(
        cluster, journal, install.index_ops.Wait(), lambda m: None,
        install.result.WindowTimer()))
    with pytest.raises(ConflictError, match="is not the clone of 'code' this run made"):
        steps["cloned"]()
    fake.indices["code-qidf-abcd1234"].settings["index.resize.source.uuid"] = source_uuid
    steps["cloned"]()  # this run's own clone: the step is done already
