"""``qidf mcp``'s edges without a cluster (issue 33 items 3 and 6, issue 35 item 10): names
resolved for each call (an alias that gains an index refused, one that moves followed),
arguments no tool takes refused, strict numbers (``true`` is not 1), an empty and a blank
query refused alike, an index that could not be served answering every call with why; and,
as a real process on stdio, a truncated JSON-RPC line answered with a parse error, a server
with an unreachable cluster that still starts and says why, and SIGTERM while it starts
ending it with exit 0, as its help says. On the real engine:
tests/integration/test_mcp_hardening.py."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.support import mcp_wire, netstubs
from tests.support.mcp_wire import by_id, call, tool_text

from .test_agents import _fake, _retrieval

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from qidf_ctl.agents.mcp_tools import build_server  # noqa: E402


class Names:
    """What ``code`` points at, as a test moves it; records every resolution."""

    def __init__(self, *indices: str) -> None:
        self.now = list(indices)
        self.asked = 0

    def __call__(self, name: str) -> list[str]:
        self.asked += 1
        return list(self.now)


def _server(names: Names, reconnect=None):
    fake = _fake([("d0", "alpha beta"), ("d1", "alpha")])
    retrieval = _retrieval(fake)
    return build_server({"code": retrieval}, resolve=names, reconnect=reconnect), fake


async def test_each_call_goes_to_the_index_the_name_points_at_now():
    names = Names("code")
    server, fake = _server(names)
    async with Client(server) as client:
        found = await client.call_tool("search_code", {"query": "alpha"})
        assert not found.is_error
        names.now = ["code", "code-added-later"]
        for tool, arguments in (("fetch_document", {"id": "d1"}),
                                ("search_code", {"query": "alpha"})):
            refused = await client.call_tool(tool, arguments)
            assert refused.is_error
            assert "'code' now points at 2 indices (code, code-added-later)" in \
                refused.content[0].text
    assert names.asked == 4  # at start, then once per call
    searched = {path for method, path, _, _ in fake.calls if path.endswith("/_search")}
    assert searched == {"/code/_search"}  # the pinned concrete index, never the alias


async def test_a_name_that_moved_is_followed_with_its_ranking_decided_again():
    names = Names("code")
    decided = []

    def reconnect(name):
        decided.append(name)
        fake = _fake([("m0", "alpha moved")])
        fake.answers[("POST", "/code-qidf-0badcafe/_search")] = fake.answers[
            ("POST", "/code/_search")]
        return _retrieval(fake, q=0.5)

    server, _ = _server(names, reconnect)
    async with Client(server) as client:
        names.now = ["code-qidf-0badcafe"]
        found = await client.call_tool("search_code", {"query": "alpha"})
        payload = json.loads(found.content[0].text)
    assert decided == ["code"] and payload["q"] == 0.5
    assert [h["id"] for h in payload["hits"]] == ["m0"]


@pytest.mark.parametrize(("arguments", "said"), [
    ({"query": "alpha", "max_result": 5}, "unknown argument 'max_result'"),
    ({"query": "alpha", "colour": 1, "size": 2}, "unknown arguments 'colour', 'size'"),
    ({"query": "alpha", "max_results": True}, "max_results: Input should be a valid integer"),
    ({"query": "alpha", "budget_tokens": False}, "budget_tokens: Input should be a valid"),
    ({"query": "alpha", "q": True}, "q: Input should be a valid number"),
])
async def test_arguments_no_tool_takes_and_booleans_for_numbers_are_refused(arguments, said):
    server, fake = _server(Names("code"))
    async with Client(server) as client:
        result = await client.call_tool("search_code", arguments)
    assert result.is_error and said in result.content[0].text, result.content[0].text
    assert not [c for c in fake.calls if c[1].endswith("/_search")]


async def test_an_empty_and_a_blank_query_are_the_same_refusal():
    server, _ = _server(Names("code"))
    async with Client(server) as client:
        texts = [(await client.call_tool("search_code", {"query": q})).content[0].text
                 for q in ("", "   ", "\t\n")]
    assert texts[0] == texts[1] == texts[2] == \
        "the query is empty: pass code or words to search for"


async def test_an_index_that_could_not_be_served_answers_every_call_with_why():
    why = "index 'gone' not found: check the name (restart qidf mcp once fixed)"
    server = build_server({}, failed={"gone": why})
    async with Client(server) as client:
        assert len((await client.list_tools()).tools) == 3
        for tool, arguments in (("search_code", {"query": "x"}), ("fetch_document", {"id": "x"}),
                                ("describe_ranking", {})):
            result = await client.call_tool(tool, arguments)
            assert result.is_error and result.content[0].text == why


# --- a real process on stdio -------------------------------------------------------------


def _unreachable() -> list[str]:
    return ["code", "--q", "0.3", "--token-counter", "regex", "--url",
            f"http://127.0.0.1:{netstubs.free_port()}"]


def test_a_server_with_an_unreachable_cluster_starts_and_answers_a_truncated_line():
    code, answers, err = mcp_wire.exchange(_unreachable(), [
        '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "sea',
        '["not", "a", "message"]',
        call(6, "search_code", {"query": "alpha"}),
    ], mcp_wire.clean_env())
    assert code == 7, err  # the cluster's error code, once the client ended it
    errors = [a["error"] for a in answers if "error" in a]
    assert [e["code"] for e in errors] == [-32700, -32600], answers
    failed, text = tool_text(by_id(answers, 6))
    assert failed and "cannot reach" in text and "restart" in text
    said = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(said) == 1 and "connection refused" in said[0] and "Traceback" not in err


@pytest.mark.parametrize("delay", [1.0, 3.0])
def test_sigterm_while_the_server_starts_is_exit_0(delay):
    """During the imports (1 s: after the handler, set first thing) and while it connects
    to a cluster that never answers."""
    hole = netstubs.BlackHole()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "qidf_ctl", "mcp", "code", "--url",
                                 hole.url, "--timeout", "60"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=mcp_wire.clean_env())
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        hole.close()
    assert proc.returncode == 0, (proc.returncode, err)
    assert out == "" and "Traceback" not in err and "error" not in err
