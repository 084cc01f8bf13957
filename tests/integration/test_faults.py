"""A representative subset of the fault matrix on the session's engine: qidf stopped by
SIGKILL or SIGTERM right after a step (the test-only ``QIDF_FAULT`` hook), both strategies,
apply and revert; the next qidf command must leave the index open and consistent. The full
matrix (every step, both signals, node death, races) runs in scripts/test_faults.sh."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import indexing
from qidf_ctl.install.index_ops import resolves_to
from qidf_ctl.similarity import QlogParams
from tests import faultrun
from tests.consistency import assert_consistent, leftovers, snapshot

pytestmark = pytest.mark.integration


def fresh_index(cluster, go_task, name: str, docs: int = 1500) -> None:
    for index in resolves_to(cluster, name):
        cluster.request("DELETE", f"/{index}")
    indexing.create_index(cluster, name, analyzer="standard", shards=1)
    indexing.bulk_index(cluster, name, dict(list(go_task.corpus.items())[:docs]))


CASES = [
    ("apply", "close", "closed", "SIGKILL"),
    ("apply", "close", "updated", "SIGTERM"),
    ("revert", "close", "opened", "SIGKILL"),
    ("apply", "clone", "cloned", "SIGTERM"),
    ("apply", "clone", "swapped", "SIGKILL"),
    ("revert", "clone", "searchable", "SIGKILL"),
    ("apply", "close", "scratch", "SIGKILL"),
    # issue 28: a SIGTERM once the change is made still prints its result line, exit 130
    ("apply", "close", "recorded", "SIGTERM"),
    ("revert", "clone", "retired", "SIGTERM"),
]
LAST_STEP = {"close": "recorded", "clone": "retired"}
RESULT_LINE = {"apply": ": installed q-log", "revert": ": restored "}


@pytest.mark.parametrize(("operation", "strategy", "point", "signal_name"), CASES)
def test_next_command_leaves_the_index_open_and_consistent(
        cluster, engine_url, go_task, operation, strategy, point, signal_name):
    name = "qidf-it-fault"
    fresh_index(cluster, go_task, name)
    if operation == "revert":
        install.apply(cluster, name, QlogParams(0.3), strategy=strategy,
                      mode=faultrun.auto_mode(cluster))
    before = snapshot(cluster, name)
    old = before.similarity
    argv = faultrun.command(engine_url, operation, name, strategy, 0.6)
    clean = dict(install.show(cluster, name))
    done = faultrun.run(argv, f"{point}:{signal_name}")
    expected = -9 if signal_name == "SIGKILL" else 130
    assert done.returncode == expected, done.stderr
    if signal_name == "SIGTERM":
        assert done.stderr.strip().splitlines()[-1].startswith("error: interrupted"), \
            done.stderr
    if signal_name == "SIGTERM" and point == LAST_STEP[strategy]:
        assert RESULT_LINE[operation] in done.stdout, (done.stdout, done.stderr)
        assert "after the change was made" in done.stderr
    if signal_name == "SIGKILL" and point != "scratch":  # a journal was left: show says so
        shown = faultrun.run(faultrun.qidf_argv(engine_url, "show", name))
        assert shown.returncode == 0, shown.stderr
        warning = [line for line in shown.stderr.splitlines() if line.startswith("warning:")]
        assert len(warning) == 1 and f"qidf recover {name}" in warning[0], shown.stderr
    nxt = faultrun.run(faultrun.qidf_argv(engine_url, "recover", name))
    assert nxt.returncode == 0, nxt.stderr
    new = _new_similarity(cluster, name, operation, strategy, clean)
    assert_consistent(cluster, name, before, old, new)
    assert leftovers(cluster, name) == []


def _new_similarity(cluster, name, operation, strategy, shown) -> dict:
    """The settings the interrupted command was installing: q = 0.6 as `--mode auto` would
    for apply, the recorded previous settings for revert."""
    if operation == "revert":
        return dict((shown["record"] or {}).get("previous", {}))
    return faultrun.new_similarity(cluster, 0.6)


# The statistics part (apply --stats index on a 3-shard index, and its revert): stopped
# around the default search pipeline's step and inside the similarity steps before it.
STATS_CASES = [  # about 16 s each; the rest of the points: test_faults_stats_reopen.py
    ("apply", "close", "pipelined", "SIGKILL"),
    ("revert", "close", "pipelined", "SIGTERM"),
    ("revert", "clone", "pipelined.logged", "SIGKILL"),
]


@pytest.mark.parametrize(("operation", "strategy", "point", "signal_name"), STATS_CASES)
def test_stats_part_ends_at_the_same_end_as_the_similarity(
        cluster, engine_url, go_task, operation, strategy, point, signal_name):
    from qidf_ctl.install.scope import support

    if not support(cluster).available:
        pytest.skip("the node has no qidf_index_statistics processor (scripts/test.sh "
                    "installs the plugin)")
    name = "qidf-it-fault-stats"
    for index in resolves_to(cluster, name):
        cluster.request("DELETE", f"/{index}")
    indexing.create_index(cluster, name, analyzer="standard", shards=3)
    indexing.bulk_index(cluster, name, dict(list(go_task.corpus.items())[:1500]))
    pid = f"qidf-stats-{name}"
    if operation == "revert":
        install.apply(cluster, name, QlogParams(0.3), strategy=strategy,
                      mode=faultrun.auto_mode(cluster), stats="index")
    before = snapshot(cluster, name)
    clean = dict(install.show(cluster, name))
    done = faultrun.run(faultrun.command(engine_url, operation, name, strategy, 0.6,
                                         stats="index"), f"{point}:{signal_name}")
    assert done.returncode == (-9 if signal_name == "SIGKILL" else 130), done.stderr
    nxt = faultrun.run(faultrun.qidf_argv(engine_url, "recover", name))
    assert nxt.returncode == 0, nxt.stderr
    new = _new_similarity(cluster, name, operation, strategy, clean)
    end = assert_consistent(cluster, name, before, before.similarity, new,
                            pid if operation == "apply" else None)
    print(f"\n{operation} --stats index, {strategy}, {signal_name} after {point}: {end}")
    install.revert(cluster, name, strategy=strategy)
    for index in resolves_to(cluster, name):
        cluster.request("DELETE", f"/{index}")
