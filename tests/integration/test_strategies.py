"""Both strategies on the real engine: round trips that keep every document, alias and replica
setting; the clone strategy under a steady search and write load (no failed search, no lost
write); exact names (reserved characters and a fuzz of real index names touch only the index
named); data streams, hidden indices and blocks refused with nothing written; concurrent
applies; a close slower than the client's timeout."""

from __future__ import annotations

import random
import subprocess
import threading

import pytest

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError, ConflictError, UsageError
from qidf_ctl.evaluation import indexing
from qidf_ctl.install.index_ops import aliases_of, resolves_to
from qidf_ctl.install.state import similarity_of
from qidf_ctl.install.strategy import available
from qidf_ctl.similarity import QlogParams
from tests import faultrun
from tests.consistency import assert_consistent, leftovers, snapshot
from tests.load import Load
from tests.names_fuzz import DECOYS, fuzz_names

pytestmark = pytest.mark.integration
CLONE = install.Strategy.CLONE


def apply(cluster: Cluster, name: str, params: QlogParams, **kwargs) -> install.ChangeResult:
    """install.apply with the mode `--mode auto` picks here (the plugin on Elasticsearch)."""
    return install.apply(cluster, name, params, mode=faultrun.auto_mode(cluster), **kwargs)


def fresh_index(cluster: Cluster, go_task, name: str, docs: int = 1500, **kwargs) -> None:
    for index in resolves_to(cluster, name):
        cluster.request("DELETE", index_path(index))
    indexing.create_index(cluster, name, analyzer="standard", shards=1, **kwargs)
    indexing.bulk_index(cluster, name, dict(list(go_task.corpus.items())[:docs]))


def flat(cluster: Cluster, index: str) -> dict:
    return cluster.request("GET", index_path(index, "_settings"),
                           params={"flat_settings": "true"})[index]["settings"]


def words(go_task, n: int = 400) -> list[str]:
    seen = sorted({w.lower() for t in list(go_task.corpus.values())[:300] for w in t.split()
                   if w.isalpha() and len(w) > 3})
    return seen[:n]


def test_clone_round_trip_keeps_documents_aliases_and_replicas(cluster, go_task):
    name = "qidf-it-clone"
    fresh_index(cluster, go_task, name, similarity={"default": {"type": "BM25", "k1": 1.1}})
    cluster.request("POST", "/_aliases", {"actions": [
        {"add": {"index": name, "alias": "qidf-it-clone-go",
                 "filter": {"match": {indexing.FIELD: "func"}}}},
        {"add": {"index": name, "alias": "qidf-it-clone-write", "is_write_index": True}}]})
    before = snapshot(cluster, name)
    original = dict(before.similarity)
    replicas = flat(cluster, name)["index.number_of_replicas"]

    applied = apply(cluster, name, QlogParams(0.3), strategy=CLONE)
    assert applied.changed and applied.write_blocked_seconds > 0
    clone = applied.new_index
    assert resolves_to(cluster, name) == [clone]
    assert flat(cluster, clone)["index.number_of_replicas"] == replicas
    moved = aliases_of(cluster, clone)
    assert moved["qidf-it-clone-go"]["filter"] == {"match": {indexing.FIELD: "func"}}
    assert moved["qidf-it-clone-write"]["is_write_index"] is True
    assert set(moved) == {name, "qidf-it-clone-go", "qidf-it-clone-write"}
    new = similarity_of(flat(cluster, clone))
    assert assert_consistent(cluster, name, before, original, new) == "new"

    apply(cluster, name, QlogParams(0.6), strategy=CLONE)
    assert clone not in {r["index"] for r in cluster.request(
        "GET", "/_cat/indices", params={"format": "json", "h": "index"})}  # retired
    reverted = install.revert(cluster, name, strategy=CLONE)
    assert reverted.changed
    now = snapshot(cluster, name)
    assert now.similarity == original and (now.count, now.checksum) == (before.count,
                                                                         before.checksum)
    assert set(aliases_of(cluster, now.index)) == set(moved)
    assert leftovers(cluster, name) == []


def test_clone_swaps_under_load_fail_no_search_and_lose_no_write(cluster, engine_url, go_task):
    """Clients on an alias (the name was replaced by one at the first swap, before the load):
    every later swap moves the alias and drains the old index before deleting it."""
    name = "qidf-it-load"
    fresh_index(cluster, go_task, name)
    apply(cluster, name, QlogParams(0.5), strategy=CLONE)
    with Load(engine_url, name, words(go_task), search_threads=2, write_threads=1,
              max_seconds=240, pause_s=0.002, field_name=indexing.FIELD) as load:
        results = [apply(cluster, name, QlogParams(q), strategy=CLONE)
                   for q in (0.3, 0.6, 0.4)]
    lost = load.count_lost()
    report = load.report
    assert report.searches > 100 and report.writes > 50
    assert report.failed_searches == 0, report.failures
    assert lost == 0
    assert all(r.write_blocked_seconds > 0 for r in results)
    assert set(report.errors) <= {"write:cluster_block_exception"}


def test_close_swaps_under_load_lose_no_write(cluster, engine_url, go_task):
    name = "qidf-it-load-close"
    fresh_index(cluster, go_task, name)
    with Load(engine_url, name, words(go_task), search_threads=1, write_threads=1,
              max_seconds=240, pause_s=0.002, field_name=indexing.FIELD) as load:
        for q in (0.3, 0.6):
            assert apply(cluster, name, QlogParams(q)).closed_seconds > 0
    assert load.count_lost() == 0
    assert load.report.writes > 20


@pytest.mark.parametrize("char", ["#", "?", "/", "*", ",", " ", ":"])
def test_reserved_characters_never_reach_another_index(cluster, go_task, char):
    fresh_index(cluster, go_task, "qidf-it-idx", docs=50)
    before = flat(cluster, "qidf-it-idx")
    for strategy in available(cluster.engine):
        with pytest.raises(UsageError):
            apply(cluster, f"qidf-it-idx{char}zzz", QlogParams(0.3), strategy=strategy)
    done = faultrun.run(faultrun.qidf_argv(
        cluster.url, "apply", f"qidf-it-idx{char}zzz", "--q", "0.3"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert flat(cluster, "qidf-it-idx") == before


def test_fuzzed_real_names_change_only_the_index_named(cluster, go_task):
    """Real indices with unicode, percent signs, dots and 255-byte names, beside decoys whose
    names a mis-encoded URL would reach: each apply/revert touches only its own index."""
    decoys = list(DECOYS)  # where a mis-encoded name would land
    for decoy in decoys:
        fresh_index(cluster, go_task, decoy, docs=5)
    decoy_settings = {d: flat(cluster, d) for d in decoys}
    rng = random.Random(9)
    names = fuzz_names(6)
    for name in names:
        assert len(name.encode()) <= 255
        fresh_index(cluster, go_task, name, docs=5)
        strategy = rng.choice(available(cluster.engine))
        before = snapshot(cluster, name)
        applied = apply(cluster, name, QlogParams(0.3), strategy=strategy)
        assert applied.changed and snapshot(cluster, name).similarity != before.similarity
        install.revert(cluster, name, strategy=strategy)
        assert snapshot(cluster, name).similarity == before.similarity
        for index in resolves_to(cluster, name):
            cluster.request("DELETE", index_path(index))
    assert {d: flat(cluster, d) for d in decoys} == decoy_settings


def test_data_stream_is_refused_and_gets_no_meta(cluster):
    if cluster.engine.distribution == "elasticsearch":
        pytest.skip("Elasticsearch's Maven Central distribution has no data streams module")
    cluster.request("PUT", "/_index_template/qidf-it-ds", {
        "index_patterns": ["qidf-it-logs*"], "data_stream": {},
        "template": {"settings": {"number_of_shards": 1, "number_of_replicas": 0}}})
    cluster.request("POST", "/qidf-it-logs/_doc", {"@timestamp": "2024-01-01T00:00:00Z",
                                                   "message": "func main"})
    try:
        backing = cluster.request("GET", "/_data_stream/qidf-it-logs")[
            "data_streams"][0]["indices"][0]["index_name"]
        for strategy in available(cluster.engine):
            with pytest.raises(ConflictError, match="data stream"):
                apply(cluster, "qidf-it-logs", QlogParams(0.3), strategy=strategy)
        mapping = cluster.request("GET", index_path(backing, "_mapping"))[backing]["mappings"]
        assert "_meta" not in mapping
        with pytest.raises(ConflictError, match="write index"):
            apply(cluster, backing, QlogParams(0.3), allow_hidden=True)
    finally:
        cluster.request("DELETE", "/_data_stream/qidf-it-logs")
        cluster.request("DELETE", "/_index_template/qidf-it-ds")


def test_hidden_index_needs_allow_hidden_and_blocks_are_reported(cluster, go_task):
    fresh_index(cluster, go_task, ".qidf-it-hidden", docs=10)
    with pytest.raises(UsageError, match="--allow-hidden"):
        apply(cluster, ".qidf-it-hidden", QlogParams(0.3))
    assert apply(cluster, ".qidf-it-hidden", QlogParams(0.3), allow_hidden=True).changed
    cluster.request("DELETE", "/.qidf-it-hidden")
    fresh_index(cluster, go_task, "qidf-it-blocked", docs=10)
    cluster.request("PUT", "/qidf-it-blocked/_settings",
                    {"index.blocks.read_only_allow_delete": True})
    try:
        before = flat(cluster, "qidf-it-blocked")
        with pytest.raises(ConflictError, match="read_only_allow_delete"):
            apply(cluster, "qidf-it-blocked", QlogParams(0.3))
        assert flat(cluster, "qidf-it-blocked") == before
    finally:
        cluster.request("PUT", "/qidf-it-blocked/_settings",
                        {"index.blocks.read_only_allow_delete": None})


def test_concurrent_applies_end_consistent_and_the_loser_names_the_holder(cluster, engine_url,
                                                                          go_task):
    name = "qidf-it-race"
    fresh_index(cluster, go_task, name, docs=200)
    for race in range(3):
        qs = (0.3, 0.6)
        procs = [subprocess.Popen(faultrun.command(engine_url, "apply", name, s, q),
                                  env=faultrun.env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=faultrun.ROOT)
                 for q, s in zip(qs, ("close", "clone") if race % 2 else ("close", "close"),
                                 strict=True)]
        outs = [(p.wait(timeout=300), *p.communicate()) for p in procs]
        codes = sorted(code for code, _, _ in outs)
        assert codes in ([0, 0], [0, 6]), outs
        for code, _, err in outs:
            if code == 6:
                line = err.strip().splitlines()[-1]
                assert line.startswith("error:") and "being changed by another qidf run" in line
        shown = install.show(cluster, name)
        assert shown["kind"] == "qlog" and shown["disagreement"] is None
        assert shown["record"]["installed"]["q"] == shown["params"]["q"] in qs
        install.revert(cluster, name)


def test_a_close_slower_than_the_client_timeout_is_waited_for(cluster, go_task):
    """The client gives up on _close after a few ms (as it would after 60 s) while the engine
    finishes it: qidf must see that the cluster still answers and wait, not call it
    unreachable."""
    name = "qidf-it-slow"
    fresh_index(cluster, go_task, name, docs=50)
    real = cluster._transport
    threads: list[threading.Thread] = []

    def impatient(method, path, body=None, params=None):
        if method == "POST" and path.split("?")[0].endswith("/_close"):
            thread = threading.Thread(target=real, args=(method, path, body, params))
            thread.start()
            threads.append(thread)
            raise ClusterError("cannot reach the cluster (Read timed out. (read timeout=0.01))",
                               error_type="connection_error", retryable=True)
        return real(method, path, body, params)

    slow = Cluster(impatient, cluster.engine, cluster.url)
    result = apply(slow, name, QlogParams(0.3))
    for thread in threads:
        thread.join()
    assert result.changed and install.show(cluster, name)["kind"] == "qlog"
    assert snapshot(cluster, name).status == "open"


def test_a_cluster_that_forbids_closing_is_told_to_use_clone(cluster, go_task):
    name = "qidf-it-noclose"
    fresh_index(cluster, go_task, name, docs=20)
    cluster.request("PUT", "/_cluster/settings",
                    {"transient": {"cluster.indices.close.enable": False}})
    try:
        with pytest.raises(ConflictError, match="--strategy clone"):
            apply(cluster, name, QlogParams(0.3))
        assert install.show(cluster, name)["kind"] == "builtin"
        assert apply(cluster, name, QlogParams(0.3), strategy=CLONE).changed
    finally:
        cluster.request("PUT", "/_cluster/settings",
                        {"transient": {"cluster.indices.close.enable": None}})
