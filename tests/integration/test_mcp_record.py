"""``qidf mcp --record`` on the real engine, through the ``mcp`` SDK's own client: an agent's
searches and fetches are recorded (a file, and the cluster's UBI indices) and read back by
``qidf judgments ubi`` as judgments of exactly the documents it fetched, with no document
text in what was recorded."""

from __future__ import annotations

import json

import pytest

from qidf_ctl import demo, install
from qidf_ctl.cluster import index_path
from qidf_ctl.judgments.folder import read_folder
from qidf_ctl.judgments.from_ubi import query_id, query_key
from tests.unit.test_cli import run

from .agents_support import payload, server_args, stdio_client

pytestmark = pytest.mark.integration
mcp = pytest.importorskip("mcp")
UBI = ("ubi_queries", "ubi_events")


async def _session(client, texts):
    """Search each text, fetch its second hit: what the agent "used"."""
    fetched = {}
    for text in texts:
        got = payload(await client.call_tool("search_code", {
            "query": text, "max_results": 5, "budget_tokens": 100_000}))
        second = got["hits"][1]["id"]
        payload(await client.call_tool("fetch_document", {"id": second}))
        fetched[text] = second
    return fetched


@pytest.mark.parametrize("dest", ["file", "ubi:"])
async def test_recorded_fetches_read_back_as_judgments(cluster, engine_url, parity_index,
                                                       tmp_path, capsys, monkeypatch, dest):
    install.revert(cluster, parity_index)
    for index in UBI:
        cluster.request("DELETE", index_path(index), None, {"ignore_unavailable": "true"})
    record = str(tmp_path / "agent.ndjson") if dest == "file" else dest
    texts = list(demo.load_task(max_queries=6, seed=3).queries.values())
    errlog = tmp_path / "stderr.txt"
    async with stdio_client(server_args(parity_index, engine_url, "--q", "0.3", "--record",
                                        record), errlog) as client:
        fetched = await _session(client, texts)
    log = errlog.read_text()
    assert "Traceback" not in log and "recording searches and fetches to" in log
    if dest == "file":
        written = (tmp_path / "agent.ndjson").read_text()
        corpus_text = demo.load_task(max_queries=6, seed=3).corpus[fetched[texts[0]]]
        assert corpus_text not in written and engine_url not in written
    else:
        for index in UBI:
            cluster.request("POST", index_path(index, "_refresh"))
    out = tmp_path / "judgments"
    code, stdout, err = run(["judgments", "ubi", record, "--out", str(out), "--json",
                             "--url", engine_url], capsys, monkeypatch)
    assert code == 0, err
    manifest = json.loads(stdout)
    assert manifest["counts"]["read"]["clicks"] == len(texts)
    assert manifest["counts"]["read"]["impressions"] == 5 * len(texts)
    judged = read_folder(out)
    for text, doc in fetched.items():
        qid = query_id(query_key(text))
        assert {d for d, g in judged.qrels[qid].items() if g > 0} == {doc}
    if dest == "ubi:":
        for index in UBI:
            cluster.request("DELETE", index_path(index), None, {"ignore_unavailable": "true"})
