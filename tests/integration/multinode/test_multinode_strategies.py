"""Both install strategies and ``recover`` on the 3-node cluster (6 shards, 1 replica).

- clone: apply and revert while searches run must fail no search at all (the index is never
  closed; the name moves to the clone atomically);
- recover: an apply killed (``os._exit``, no cleanup) after each of its steps in turn, with
  either strategy, must leave something ``recover`` brings back to an open, searchable index
  under the same name whose similarity agrees with qidf's record.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from qidf_ctl import install
from qidf_ctl.similarity import QlogParams

from .conftest import query_texts, wait_green
from .search_load import SearchLoad, expected_totals

pytestmark = pytest.mark.integration


def _similarity(cluster, name) -> dict:
    concrete = cluster.resolve_index(name)
    settings = cluster.request("GET", f"/{concrete}/_settings",
                               params={"flat_settings": "true"})[concrete]["settings"]
    return {k: v for k, v in settings.items() if k.startswith("index.similarity.")}


def test_clone_apply_and_revert_fail_no_search(cluster3, load_index, urls, go_task):
    """Swaps of a name that is already an alias fail no search. The first clone of an index
    that clients name directly turns the name into an alias (``remove_index`` in the same
    ``_aliases`` call), which the engine does by deleting the index under searches in flight:
    a documented cost of that first conversion (docs/explanation/apply-safety.md), made here
    before the load starts."""
    clone = install.Strategy.CLONE
    before = _similarity(cluster3, load_index)
    if cluster3.resolve_index(load_index) == load_index:  # still a concrete index
        install.apply(cluster3, load_index, QlogParams(0.5), strategy=clone)
        install.revert(cluster3, load_index, strategy=clone)
        wait_green(cluster3, cluster3.resolve_index(load_index))
    texts = query_texts(go_task)
    expected = expected_totals(urls[0], load_index, "text", texts)
    with SearchLoad(urls, load_index, "text", expected) as load:
        install.apply(cluster3, load_index, QlogParams(0.3), strategy=clone)
        shown = install.show(cluster3, load_index)
        install.revert(cluster3, load_index, strategy=clone)
    report = load.report
    print(f"\nclone strategy on 3 nodes: {report.summary()}")
    assert shown["kind"] == "qlog" and shown["params"]["q"] == 0.3
    assert report.searches >= 50
    assert report.failed == 0, report.summary()
    assert _similarity(cluster3, load_index) == before
    assert expected_totals(urls[1], load_index, "text", texts) == expected


CHILD = textwrap.dedent("""
    import os, sys
    from qidf_ctl import install
    from qidf_ctl.cluster import Cluster, ConnectionSettings
    from qidf_ctl.similarity import QlogParams
    url, index, strategy, die_at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cluster = Cluster.connect(ConnectionSettings.from_options(url=url))
    seen = []
    def progress(message):
        seen.append(message)
        print(message, flush=True)
        if len(seen) == die_at:
            os._exit(9)  # no finally, no cleanup: what a killed process leaves
    install.apply(cluster, index, QlogParams(0.3), progress=progress,
                  strategy=install.Strategy[strategy])
""")


def _apply_in_child(url: str, index: str, strategy: str, die_at: int
                    ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHILD, url, index, strategy, str(die_at)],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("strategy", ["CLOSE", "CLONE"])
def test_recover_after_apply_killed_at_every_step(cluster3, load_index, urls, go_task,
                                                  strategy):
    texts = query_texts(go_task, 10)
    expected = expected_totals(urls[0], load_index, "text", texts)
    complete = _apply_in_child(urls[0], load_index, strategy, die_at=0)
    assert complete.returncode == 0, complete.stderr
    steps = complete.stdout.strip().splitlines()
    assert steps, "apply reported no steps"
    install.revert(cluster3, load_index, strategy=install.Strategy[strategy])
    outcomes = []
    for k in range(1, len(steps) + 1):
        killed = _apply_in_child(urls[k % len(urls)], load_index, strategy, die_at=k)
        assert killed.returncode == 9, (k, killed.stderr)
        install.recover(cluster3, load_index)
        wait_green(cluster3, cluster3.resolve_index(load_index))
        state = install.read_state(cluster3, load_index)
        assert state.status == "open", (k, steps[k - 1])
        installed = state.installed
        assert (installed.kind == "qlog") == (state.record is not None), (k, steps[k - 1])
        assert expected_totals(urls[k % len(urls)], load_index, "text", texts) == expected
        outcomes.append(f"{steps[k - 1]!r} -> {installed.describe()}")
        install.recover(cluster3, load_index)  # idempotent
        install.revert(cluster3, load_index, strategy=install.Strategy[strategy])
    print(f"\n{strategy}: killed after each of {len(steps)} steps, recovered: "
          + "; ".join(outcomes))
