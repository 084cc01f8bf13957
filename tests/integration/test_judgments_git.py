"""``qidf judgments git`` against the real engine: a history built with ``git init``, its files
indexed one document per file, the judgments folder written and read back by ``qidf sweep``;
a path field that matches nothing is exit 2 with nothing written."""

from __future__ import annotations

import json
import subprocess

import pytest
from typer.testing import CliRunner

from qidf_ctl import cli
from qidf_ctl.cluster import index_path
from tests.support.git_history import TODAY, build_history

pytestmark = pytest.mark.integration
INDEX = "qidf-it-judgments-git"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("judgments") / "repo")


@pytest.fixture(scope="module")
def files_index(cluster, history):
    """Today's files, one document each: the path a keyword, the text analysed."""
    cluster.request("DELETE", index_path(INDEX), None, {"ignore_unavailable": "true"})
    cluster.request("PUT", index_path(INDEX), {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {"properties": {"path": {"type": "keyword"},
                                    "text": {"type": "text", "analyzer": "standard"}}}})
    listed = subprocess.run(["git", "-C", str(history), "ls-files"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert set(TODAY) <= set(listed)
    lines = []
    for number, path in enumerate(listed):
        lines.append(json.dumps({"index": {"_index": INDEX, "_id": f"doc{number}"}}))
        lines.append(json.dumps({"path": path, "text": (history / path).read_text()}))
    cluster.request("POST", "/_bulk", "\n".join(lines) + "\n", {"refresh": "true"})
    yield INDEX
    cluster.request("DELETE", index_path(INDEX), None, {"ignore_unavailable": "true"})


def test_judgments_from_git_are_read_by_sweep(engine_url, history, files_index, tmp_path):
    runner = CliRunner()
    out = tmp_path / "j"
    made = runner.invoke(cli.app, ["judgments", "git", str(history), "--index", files_index,
                                   "--path-field", "path", "--out", str(out), "--max-files",
                                   "5", "--url", engine_url, "--json"])
    assert made.exit_code == 0, made.output
    manifest = json.loads(made.stdout)
    assert manifest["counts"]["judged_queries"] == 4
    assert manifest["counts"]["skipped"]["merge"] == 1
    assert manifest["index"]["matched_by"] == "terms"
    swept = runner.invoke(cli.app, [
        "sweep", files_index, "--queries", str(out / "queries.jsonl"), "--qrels",
        str(out / "older.qrels.tsv"), "--query-time", "--grid", "0.5,1", "--field", "text",
        "--reference", "1", "--url", engine_url, "--json"])
    assert swept.exit_code == 0, swept.output
    assert json.loads(swept.stdout)["queries"] == 2


def test_a_path_field_that_matches_nothing_is_exit_2_and_writes_nothing(
        engine_url, history, files_index, tmp_path):
    out = tmp_path / "none"
    result = CliRunner().invoke(cli.app, [
        "judgments", "git", str(history), "--index", files_index, "--path-field", "path",
        "--path-prefix", "elsewhere/", "--out", str(out), "--url", engine_url])
    assert result.exit_code == 2, result.output
    assert "no file changed" in result.output and "--path-prefix" in result.output
    assert not out.exists()
    wrong_field = CliRunner().invoke(cli.app, [
        "judgments", "git", str(history), "--index", files_index, "--path-field", "nope",
        "--out", str(out), "--url", engine_url])
    assert wrong_field.exit_code == 2 and "is not a field" in wrong_field.output
    assert not out.exists()
