"""docs/tutorial/ci.md, run end to end: its qidf.toml and its shell job, taken from the page
verbatim, against the real engine: a first pull request and merge, then an index drifted by
hand and a template's write alias rolled over, then the next pull request and merge."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qidf_ctl import install
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.similarity import QlogParams

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tutorial" / "ci.md"


def _block(text: str, lang: str, starts: str = "") -> str:
    blocks = [b for b in re.findall(rf"```{lang}\n(.*?)```", text, re.S) if b.startswith(starts)]
    assert len(blocks) == 1, f"expected one ```{lang} block starting with {starts!r}"
    return blocks[0]


def _cleanup(cluster) -> None:
    cluster.request("DELETE", "/code-search,code-logs-*", None,
                    {"ignore_unavailable": "true", "allow_no_indices": "true"})
    with contextlib.suppress(ClusterError):
        cluster.request("DELETE", "/_index_template/code-logs")


@pytest.fixture
def repo(tmp_path, cluster, go_task):
    """A repository holding the page's qidf.toml and qidf-ci.sh; two indices with BM25."""
    text = DOC.read_text()
    (tmp_path / "qidf.toml").write_text(_block(text, "toml"))
    (tmp_path / "qidf-ci.sh").write_text(_block(text, "sh", "#!/bin/sh"))
    _cleanup(cluster)
    docs = dict(sorted(go_task.corpus.items())[:400])
    indexing.create_index(cluster, "code-search")
    indexing.bulk_index(cluster, "code-search", docs)
    indexing.create_index(cluster, "code-logs-000001")
    indexing.bulk_index(cluster, "code-logs-000001", dict(list(docs.items())[:100]))
    cluster.request("POST", "/_aliases", {"actions": [{"add": {
        "index": "code-logs-000001", "alias": "code-logs", "is_write_index": True}}]})
    yield tmp_path
    _cleanup(cluster)


def job(repo: Path, event: str, url: str) -> tuple[int, str, dict]:
    """Run the page's job as a CI system would: sh, the event, the URL, qidf on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QIDF_")}
    env.update(QIDF_EVENT=event, QIDF_SEARCH_URL=url,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    done = subprocess.run(["sh", "qidf-ci.sh"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)
    reports = {p.stem: json.loads(p.read_text()) for p in (repo / "qidf-out").glob("*.json")}
    return done.returncode, done.stdout + done.stderr, reports


def _changes(plan: dict) -> list[tuple[str, str]]:
    return sorted((i["kind"], i["name"]) for i in plan["items"] if i["action"] != "none")


def test_pull_request_then_merge_then_drift_and_rollover(repo, cluster, engine_url):
    # 1. the first pull request: everything to do, nothing done
    code, log, reports = job(repo, "pull_request", engine_url)
    assert code == 0, log
    assert _changes(reports["plan"]) == [("index", "code-logs-000001"), ("index", "code-search"),
                                         ("index_template", "code-logs")]
    assert "will CLOSE it" in log and "qidf: drift" in log
    assert {d["name"] for d in reports["check"]["drift"]} == {"code-search", "code-logs",
                                                               "code-logs-000001"}
    assert install.show(cluster, "code-search")["kind"] == "builtin"

    # 2. merge: applied, then checked
    code, log, reports = job(repo, "merge", engine_url)
    assert code == 0, log
    assert sorted(c["name"] for c in reports["apply"]["changed"]) == [
        "code-logs", "code-logs-000001", "code-search"]
    assert "in sync: 3 items checked" in log
    assert install.show(cluster, "code-search")["params"]["q"] == 0.3

    # 3. someone changes code-search by hand; ISM/ILM rolls the logs over
    install.apply(cluster, "code-search", QlogParams(0.9),
                  mode=install.choose_mode(cluster, "auto")[0])
    rolled = cluster.request("POST", "/code-logs/_rollover")["new_index"]
    assert rolled == "code-logs-000002"
    assert install.show(cluster, rolled)["params"]["q"] == 0.3  # from the template, no close

    # 4. the scheduled check fails on the drift, and only on it; the next PR plans only it
    code, log, reports = job(repo, "schedule", engine_url)
    assert code == 3, log
    assert [(d["name"], d["reason"]) for d in reports["check"]["drift"]] == [
        ("code-search", "has q 0.9 (want 0.3)")]
    code, log, reports = job(repo, "pull_request", engine_url)
    assert code == 0, log
    assert _changes(reports["plan"]) == [("index", "code-search")]
    in_sync = {i["name"] for i in reports["plan"]["items"] if i["action"] == "none"}
    assert {"code-logs-000002", "code-logs-000001", "code-logs"} <= in_sync

    # 5. merge: only code-search changes; the job's own check then finds everything in sync
    code, log, reports = job(repo, "merge", engine_url)
    assert code == 0, log
    assert [c["name"] for c in reports["apply"]["changed"]] == ["code-search"]
    assert "in sync: 4 items checked" in log


def test_job_refuses_an_unknown_event(repo, engine_url):
    code, log, _ = job(repo, "push", engine_url)
    assert code == 2 and "set QIDF_EVENT" in log
