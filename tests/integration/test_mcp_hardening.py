"""``qidf mcp`` on the real engine, spoken to line by line (issue 33 items 3 and 6, issue 35
item 10):

- the names it serves are resolved for each call: an alias that gains a second index is
  refused (no document of the new index is ever returned, ``fetch_document`` included); an
  alias moved to another index (a clone swap) is followed, its ranking decided again;
- an unknown index: the server starts, says why on stderr in one line, and answers every
  tool call with an error naming the index;
- the protocol's edges: unknown arguments, ``max_results: true``, an empty or blank query,
  a truncated JSON-RPC line.
"""

from __future__ import annotations

import json

import pytest

from qidf_ctl.cluster import index_path
from qidf_ctl.errors import ClusterError
from tests.support import mcp_wire
from tests.support.mcp_wire import by_id, call, tool_text

pytestmark = pytest.mark.integration

ALIAS, FIRST, SECOND, MOVED = ("qidf-mcp-alias", "qidf-mcp-first", "qidf-mcp-second",
                               "qidf-mcp-moved")


def _index(cluster, name: str, docs: dict[str, str]) -> None:
    try:
        cluster.request("DELETE", index_path(name))
    except ClusterError as exc:
        if exc.status != 404:
            raise
    cluster.request("PUT", index_path(name), {
        "settings": {"number_of_shards": 1, "number_of_replicas": 0},
        "mappings": {"properties": {"text": {"type": "text"}}}})
    lines = "".join(json.dumps({"index": {"_id": i}}) + "\n" + json.dumps({"text": t}) + "\n"
                    for i, t in docs.items())
    cluster.request("POST", index_path(name, "_bulk"), lines, {"refresh": "true"})


def _aliases(cluster, *actions: dict) -> None:
    cluster.request("POST", "/_aliases", {"actions": list(actions)})


@pytest.fixture
def indices(cluster):
    _index(cluster, FIRST, {f"first-{i}": f"func handleUpgrade{i} conn reader" for i in range(8)})
    _index(cluster, SECOND, {"second-only": "func handleUpgrade1 conn reader secret plans",
                             "first-1": "a document of the second index with a first's id"})
    _index(cluster, MOVED, {f"moved-{i}": f"func handleUpgrade{i} conn reader" for i in range(5)})
    _aliases(cluster, {"add": {"index": FIRST, "alias": ALIAS}})
    yield
    for name in (FIRST, SECOND, MOVED):
        cluster.request("DELETE", index_path(name))


def _server(url: str, *names: str) -> list[str]:
    return [*names, "--q", "0.3", "--token-counter", "regex", "--url", url]


def test_an_alias_that_gains_an_index_is_refused_and_one_that_moves_is_followed(
        cluster, engine_url, indices):
    search = {"query": "handleUpgrade1 conn", "max_results": 20}
    code, answers, err = mcp_wire.exchange(_server(engine_url, ALIAS), [
        call(1, "search_code", search),
        call(2, "fetch_document", {"id": "first-1"}),
        lambda: _aliases(cluster, {"add": {"index": SECOND, "alias": ALIAS}}),
        call(3, "fetch_document", {"id": "second-only"}),
        call(4, "search_code", search),
        call(5, "fetch_document", {"id": "first-1"}),
        lambda: _aliases(cluster, {"remove": {"index": SECOND, "alias": ALIAS}},
                         {"remove": {"index": FIRST, "alias": ALIAS}},
                         {"add": {"index": MOVED, "alias": ALIAS}}),
        call(6, "search_code", search),
        call(7, "fetch_document", {"id": "first-1"}),
    ], mcp_wire.clean_env())
    assert code == 0, err
    failed, text = tool_text(by_id(answers, 1))
    assert not failed and {h["id"] for h in json.loads(text)["hits"]} <= {
        f"first-{i}" for i in range(8)}
    failed, text = tool_text(by_id(answers, 2))
    assert not failed and json.loads(text)["text"] == "func handleUpgrade1 conn reader"
    for number in (3, 4, 5):
        failed, text = tool_text(by_id(answers, number))
        assert failed and "second-only" not in text and "secret plans" not in text
        assert f"{ALIAS!r} now points at 2 indices ({FIRST}, {SECOND})" in text, text
    failed, text = tool_text(by_id(answers, 6))
    assert not failed and {h["id"] for h in json.loads(text)["hits"]} <= {
        f"moved-{i}" for i in range(5)}
    failed, text = tool_text(by_id(answers, 7))
    assert failed and "no document with id 'first-1'" in text
    assert f"{ALIAS} now points at {MOVED} (it pointed at {FIRST})" in err
    assert "Traceback" not in err


def test_an_unknown_index_starts_and_every_call_says_why(engine_url):
    code, answers, err = mcp_wire.exchange(_server(engine_url, "no-such-index"), [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        call(2, "search_code", {"query": "func main"}),
        call(3, "fetch_document", {"id": "x"}),
        call(4, "describe_ranking", {}),
    ], mcp_wire.clean_env())
    assert code == 5, err  # when its client ends it: the code of what it could not serve
    assert {t["name"] for t in by_id(answers, 1)["result"]["tools"]} == {
        "search_code", "fetch_document", "describe_ranking"}
    for number in (2, 3, 4):
        failed, text = tool_text(by_id(answers, number))
        assert failed and "index 'no-such-index' not found" in text, text
        assert "restart" in text
    lines = [line for line in err.splitlines() if "no-such-index" in line]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err


def test_the_protocol_s_edges(cluster, engine_url, indices):
    code, answers, err = mcp_wire.exchange(_server(engine_url, FIRST), [
        call(1, "search_code", {"query": "handleUpgrade1", "colour": "blue"}),
        call(2, "search_code", {"query": "handleUpgrade1", "max_results": True}),
        call(3, "search_code", {"query": ""}),
        call(4, "search_code", {"query": "   "}),
        '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "sea',
        call(6, "search_code", {"query": "conn reader", "max_results": 2}),
    ], mcp_wire.clean_env())
    assert code == 0, err
    failed, text = tool_text(by_id(answers, 1))
    assert failed and "colour" in text and "unknown" in text
    failed, text = tool_text(by_id(answers, 2))
    assert failed and "max_results" in text and "valid integer" in text
    empty, blank = tool_text(by_id(answers, 3)), tool_text(by_id(answers, 4))
    assert empty[0] and blank[0] and empty[1] == blank[1], (empty, blank)
    parse = [a for a in answers if a.get("error", {}).get("code") == -32700]
    assert len(parse) == 1 and parse[0]["id"] is None
    failed, text = tool_text(by_id(answers, 6))
    assert not failed and len(json.loads(text)["hits"]) == 2  # the server kept serving
    assert "Traceback" not in err
