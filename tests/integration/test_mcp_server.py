"""``qidf mcp`` on the real engine, through the ``mcp`` SDK's own client, as an agent's client
starts it: a subprocess on stdio, and a process on streamable HTTP.

The tools are listed and called; a search returns exactly ``qidf search``'s ranking for the
same query and q; over the demo's 500 code queries, the budget-packed hits' Recall@8K-tokens
equals ``qidf eval``'s, at query time and with q-log installed; bad arguments are one-line
tool errors and the server's stderr holds no traceback.
"""

from __future__ import annotations

import dataclasses
import json
import signal

import pytest

from qidf_ctl import demo, install
from qidf_ctl.evaluation import files
from qidf_ctl.similarity import Mode, QlogParams
from tests.unit.test_cli import run

from .agents_support import error_line, http_server, payload, server_args, stdio_client

pytestmark = pytest.mark.integration
mcp = pytest.importorskip("mcp")

Q = 0.3
BUDGET = 8000


@pytest.fixture(scope="module")
def demo_task():
    """The demo's queries (500 Go functions; the gold document is each one's docstring)."""
    return demo.load_task(max_queries=500)


def _write(task, folder) -> tuple[str, str]:
    queries, qrels = folder / "q.jsonl", folder / "qrels.tsv"
    files.write_queries(task.queries, queries)
    files.write_qrels(task.qrels, qrels)
    return str(queries), str(qrels)


@pytest.fixture(scope="module")
def judged(demo_task, tmp_path_factory):
    return _write(demo_task, tmp_path_factory.mktemp("agents"))


@pytest.fixture(scope="module")
def first_100(demo_task, tmp_path_factory):
    """The demo's first 100 queries: the installed path walks the same code as query time,
    so a smaller sample proves it for a third of the time."""
    qids = list(demo_task.queries)[:100]
    task = dataclasses.replace(demo_task, queries={q: demo_task.queries[q] for q in qids},
                               qrels={q: demo_task.qrels[q] for q in qids})
    return task, _write(task, tmp_path_factory.mktemp("agents100"))


def _eval(index, url, judged, capsys, monkeypatch, *extra):
    queries, qrels = judged
    code, out, err = run(["eval", index, "--queries", queries, "--qrels", qrels, "--json",
                          "--url", url, *extra], capsys, monkeypatch)
    assert code == 0, err
    return json.loads(out)


async def _packed_recall(client, task) -> tuple[float, int, dict[str, list[str]]]:
    """Mean Recall@8K-tokens of the hits the tool hands over (max_results = eval's depth)."""
    total, found_all, ids = 0.0, 0, {}
    for qid, text in task.queries.items():
        got = payload(await client.call_tool("search_code", {
            "query": text, "budget_tokens": BUDGET, "max_results": 1000}))
        assert got["used_tokens"] <= BUDGET
        ids[qid] = [h["id"] for h in got["hits"]]
        relevant = {d for d, r in task.qrels[qid].items() if r > 0}
        share = len(relevant & set(ids[qid])) / len(relevant)
        total += share
        found_all += share == 1.0
    return total / len(task.qrels), found_all, ids


async def test_stdio_lists_calls_and_matches_qidf_search(cluster, engine_url, parity_index,
                                                          demo_task, tmp_path, capsys,
                                                          monkeypatch):
    install.revert(cluster, parity_index)
    errlog = tmp_path / "stderr.txt"
    async with stdio_client(server_args(parity_index, engine_url, "--q", str(Q)),
                            errlog) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {"search_code", "fetch_document", "describe_ranking"}
        (ranking,) = payload(await client.call_tool("describe_ranking", {}))["indices"]
        assert (ranking["method"], ranking["q"], ranking["q_source"]) == ("query-time", Q,
                                                                         "given")
        for text in list(demo_task.queries.values())[:20]:
            got = payload(await client.call_tool("search_code", {
                "query": text, "max_results": 10, "budget_tokens": 1_000_000}))
            code, out, err = run(["search", parity_index, text, "--q", str(Q), "--size", "10",
                                  "--json", "--url", engine_url], capsys, monkeypatch)
            assert code == 0, err
            cli = json.loads(out)["hits"]
            assert [(h["id"], h["score"]) for h in got["hits"]] == \
                [(h["id"], h["score"]) for h in cli]
        first = got["hits"][0]
        doc = payload(await client.call_tool("fetch_document", {"id": first["id"]}))
        assert doc["text"] == first["text"] and doc["tokens"] == first["tokens"]
    log = errlog.read_text()
    assert "Traceback" not in log and "query-time, q=0.3" in log


@pytest.mark.slow  # 500 tool calls and a 500-query eval: 96 s at load 15
async def test_packed_recall_equals_qidf_eval_at_query_time(cluster, engine_url, parity_index,
                                                             demo_task, judged, tmp_path,
                                                             capsys, monkeypatch):
    install.revert(cluster, parity_index)
    async with stdio_client(server_args(parity_index, engine_url, "--q", str(Q)),
                            tmp_path / "stderr.txt") as client:
        recall, found, _ = await _packed_recall(client, demo_task)
    evaluated = _eval(parity_index, engine_url, judged, capsys, monkeypatch, "--query-time",
                      "--q", str(Q))
    assert evaluated["queries"] == len(demo_task.queries) == 500
    assert recall == pytest.approx(evaluated["mean"]["Recall@8K-tokens"], rel=1e-12, abs=0)
    assert found > 300  # q-log at 0.3 finds most gold docstrings within 8K tokens


async def test_packed_recall_equals_qidf_eval_with_qlog_installed(
        cluster, engine_url, parity_index, first_100, tmp_path, capsys, monkeypatch):
    task, judged = first_100
    install.apply(cluster, parity_index, QlogParams(Q), mode=Mode.SCRIPT)
    try:
        errlog = tmp_path / "stderr.txt"
        async with stdio_client(server_args(parity_index, engine_url), errlog) as client:
            (ranking,) = payload(await client.call_tool("describe_ranking", {}))["indices"]
            assert (ranking["method"], ranking["q"]) == ("installed", Q)
            assert "Painless" in ranking["similarity"] and "_meta.qidf" in ranking["reason"]
            refused = await client.call_tool("search_code", {"query": "func", "q": 0.5})
            assert "leave q out" in error_line(refused)
            recall, _, ids = await _packed_recall(client, task)
        evaluated = _eval(parity_index, engine_url, judged, capsys, monkeypatch, "--run-out",
                          str(tmp_path / "run.trec"))
        assert "q-log" in evaluated["similarity"] and evaluated["queries"] == 100
        assert recall == pytest.approx(evaluated["mean"]["Recall@8K-tokens"], rel=1e-12, abs=0)
        from qidf_ctl.evaluation.runs import read_trec_run

        ranked = read_trec_run(tmp_path / "run.trec")
        assert all(ids[qid] == [d for d, _ in ranked[qid][:len(ids[qid])]] for qid in ids)
    finally:
        install.revert(cluster, parity_index)


BAD = [
    ({"query": "func main", "index": "no-such-index"}, "unknown index"),
    ({"query": ""}, "query"),
    ({"query": " \t\n"}, "the query is empty"),
    ({"query": "func main", "budget_tokens": 10**12}, "budget_tokens"),
    ({"query": "func main", "budget_tokens": -5}, "budget_tokens"),
    ({"query": "func main", "q": 3}, "q"),
    ({"query": "func main", "q": "abc"}, "q"),
    ({"query": 42}, "query"),
    ({"query": {"code": "x"}}, "query"),
    ({"query": "func main", "max_results": "ten"}, "max_results"),
    ({"query": "func main", "max_results": 10_001}, "max_results"),
]


async def test_bad_arguments_over_http_are_one_line_and_the_log_stays_clean(
        cluster, engine_url, parity_index, tmp_path):
    from mcp import Client

    install.revert(cluster, parity_index)
    errlog = tmp_path / "stderr.txt"
    with http_server(server_args(parity_index, engine_url, "--q", str(Q)), errlog) as (url,
                                                                                         proc):
        async with Client(url) as client:
            assert len((await client.list_tools()).tools) == 3
            for arguments, names in BAD:
                line = error_line(await client.call_tool("search_code", arguments))
                assert names in line, (arguments, line)
            line = error_line(await client.call_tool("fetch_document", {"id": "no/such:id"}))
            assert "no document with id" in line
            huge = payload(await client.call_tool("search_code", {
                "query": "returns the", "budget_tokens": 1_000_000, "max_results": 1000}))
            assert len(huge["hits"]) == 1000 and huge["stopped"] == "max_results"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    assert "Traceback" not in errlog.read_text()

# An unknown index: tests/integration/test_mcp_hardening.py (the server starts and says why).
