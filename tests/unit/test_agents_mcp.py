"""The MCP tools through the SDK's own client (in process, no cluster): the tools a model sees,
their schemas, and every bad argument answered by one redacted line, never a traceback in the
result or in the server's log. The retrievers over the same core. The real-engine tests are
in tests/integration/test_mcp_server.py and test_retrievers.py."""

from __future__ import annotations

import base64
import json
import logging
from urllib.parse import quote

import pytest

from qidf_ctl.cluster.redact import register_basic, register_secret
from qidf_ctl.errors import ClusterError
from tests import secrets_matrix

from .test_agents import _fake, _retrieval
from .test_cli import run

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from qidf_ctl.agents.mcp_tools import build_server  # noqa: E402

SECRET = "s3cr3t-Pa55w0rd#@/"


def _server(docs=None, **options):
    fake = _fake(docs)
    return build_server({"code": _retrieval(fake, **options)}), fake


async def test_the_tools_a_model_sees():
    server, _ = _server()
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert sorted(tools) == ["describe_ranking", "fetch_document", "search_code"]
    search = tools["search_code"]
    assert search.description.startswith("Search a code index")
    assert "Indices served: code." in search.description
    props = search.input_schema["properties"]
    assert search.input_schema["required"] == ["query"]
    assert props["budget_tokens"]["default"] == 8000 and props["budget_tokens"]["minimum"] == 1
    assert props["max_results"]["maximum"] == 1000
    assert all(props[p]["description"] for p in props)
    assert all(t.annotations.read_only_hint and not t.annotations.destructive_hint
               for t in tools.values())


async def test_search_fetch_describe():
    server, _ = _server([("d0", "alpha beta"), ("d1", "alpha")])
    async with Client(server) as client:
        found = await client.call_tool("search_code", {"query": "alpha", "max_results": 5})
        assert not found.is_error
        payload = json.loads(found.content[0].text)
        assert found.structured_content is None  # one copy of the result: the text
        assert [h["id"] for h in payload["hits"]] == ["d0", "d1"]
        assert payload["method"] == "query-time" and payload["q"] == 0.3
        doc = await client.call_tool("fetch_document", {"id": "d1"})
        assert json.loads(doc.content[0].text)["text"] == "alpha"
        ranked = await client.call_tool("describe_ranking", {})
        (only,) = json.loads(ranked.content[0].text)["indices"]
        assert only["index"] == "code" and only["q_source"] == "given"


BAD = [
    ("search_code", {}),
    ("search_code", {"query": ""}),
    ("search_code", {"query": "   "}),
    ("search_code", {"query": 5}),
    ("search_code", {"query": ["a", "b"]}),
    ("search_code", {"query": "x", "index": "nope"}),
    ("search_code", {"query": "x", "index": 7}),
    ("search_code", {"query": "x", "budget_tokens": 0}),
    ("search_code", {"query": "x", "budget_tokens": 10**15}),
    ("search_code", {"query": "x", "budget_tokens": "lots"}),
    ("search_code", {"query": "x", "budget_tokens": 2.5}),
    ("search_code", {"query": "x", "max_results": -1}),
    ("search_code", {"query": "x", "q": 7}),
    ("search_code", {"query": "x", "q": "nan"}),
    ("search_code", {"query": "x", "q": "auto"}),
    ("search_code", {"query": "x" * 300_000}),
    ("fetch_document", {}),
    ("fetch_document", {"id": ""}),
    ("fetch_document", {"id": "missing"}),
    ("fetch_document", {"id": {"a": 1}}),
    ("describe_ranking", {"index": "nope"}),
    ("no_such_tool", {"query": "x"}),
]


@pytest.mark.parametrize(("tool", "arguments"), BAD)
async def test_bad_arguments_are_one_line_tool_errors(tool, arguments, caplog):
    server, _ = _server()
    caplog.set_level(logging.DEBUG)
    async with Client(server) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    (content,) = result.content
    text = content.text
    assert "\n" not in text and "Traceback" not in text and len(text) < 400, text
    assert not text.startswith("Error executing tool")
    assert not [r for r in caplog.records if r.exc_info], "a traceback reached the log"


async def test_cluster_failures_are_redacted_one_line_errors(caplog):
    register_secret(SECRET)
    server, fake = _server()

    def leaky(body, params):
        raise ClusterError(f"search_phase_execution_exception: failed for "
                           f"http://admin:{SECRET}@node:9200 with\n{SECRET}", status=500)

    fake.answers[("POST", "/code/_search")] = leaky
    caplog.set_level(logging.DEBUG)
    async with Client(server) as client:
        result = await client.call_tool("search_code", {"query": "alpha"})
    assert result.is_error
    text = result.content[0].text
    assert SECRET not in text and "***" in text and "\n" not in text
    assert all(SECRET not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("secret", secrets_matrix.SECRETS)
async def test_no_spelling_of_a_secret_reaches_a_result_or_the_log(secret, caplog):
    """tests/secrets_matrix.py's secrets, echoed by a failing cluster in the forms a client
    library prints them (as is, percent-encoded, escaped, in a Basic header, in a URL)."""
    core = secret.rstrip("\n")  # what a password file yields, and the header carries
    register_secret(secret)
    register_basic("u", core)
    server, fake = _server()
    basic = base64.b64encode(f"u:{core}".encode()).decode()

    def echoing(body, params):
        raise ClusterError(f"security_exception: {core} / {quote(core, safe='')} / "
                           f"{core!r} / Authorization: Basic {basic} / "
                           f"https://u:{quote(core, safe='')}@node:9200/", status=401)

    fake.answers[("POST", "/code/_search")] = echoing
    caplog.set_level(logging.DEBUG)
    async with Client(server) as client:
        result = await client.call_tool("search_code", {"query": "alpha"})
    seen = result.content[0].text + "\n".join(r.getMessage() for r in caplog.records)
    assert result.is_error and "\n" not in result.content[0].text
    assert secrets_matrix.leaks(secret, seen, "u") == []


async def test_a_bug_is_one_line_too(caplog, monkeypatch):
    server, fake = _server()

    def broken(body, params):
        raise KeyError("hits")

    fake.answers[("POST", "/code/_search")] = broken
    caplog.set_level(logging.DEBUG)
    async with Client(server) as client:
        result = await client.call_tool("search_code", {"query": "alpha"})
    assert result.is_error and "unexpected KeyError" in result.content[0].text
    assert not [r for r in caplog.records if r.exc_info]


def test_several_indices_need_an_index_argument():
    from qidf_ctl.agents.mcp_tools import Tools
    from qidf_ctl.errors import UsageError

    a, b = _retrieval(_fake()), _retrieval(_fake())
    tools = Tools({"a": a, "b": b})
    with pytest.raises(Exception, match="several indices"):
        tools.search_code("alpha")
    assert tools._pick("b") is b
    with pytest.raises(UsageError, match="at least one index"):
        Tools({})


# --- the CLI command ----------------------------------------------------------------------


def test_missing_mcp_extra_is_one_line(capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "mcp" else real(name, *a))
    code, out, err = run(["mcp", "code", "--q", "0.3"], capsys, monkeypatch)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "pip install 'qidf[mcp]'" in err


def test_a_port_in_use_is_refused_before_connecting(capsys, monkeypatch):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, out, err = run(["mcp", "code", "--q", "0.3", "--transport", "http", "--port",
                              str(port), "--url", "http://127.0.0.1:1"], capsys, monkeypatch)
    assert code == 6 and out == "" and err.count("\n") == 1
    assert f"port {port} on 127.0.0.1 is in use" in err


# --- the retrievers -----------------------------------------------------------------------


def test_langchain_documents_carry_scores_and_metadata():
    pytest.importorskip("langchain_core")
    from qidf_ctl.agents.langchain_retriever import QidfRetriever

    docs = [(f"d{i}", "alpha " * (i + 1)) for i in range(6)]
    retriever = QidfRetriever(retrieval=_retrieval(_fake(docs)), k=4)
    got = retriever.invoke("alpha")
    assert [d.id for d in got] == ["d0", "d1", "d2", "d3"]
    assert got[0].page_content == "alpha " and got[0].metadata["score"] == 100.0
    assert got[1].metadata["rank"] == 2 and got[1].metadata["tokens"] == 2
    assert len(retriever.invoke("alpha", k=2)) == 2
    assert [d.id for d in retriever.invoke("alpha", budget_tokens=3)] == ["d0", "d1"]
    assert [d.id for d in QidfRetriever(retrieval=retriever.retrieval, k=6,
                                        budget_tokens=6).invoke("alpha")] == ["d0", "d1", "d2"]


def test_llamaindex_nodes_carry_scores_and_metadata():
    pytest.importorskip("llama_index.core")
    from qidf_ctl.agents.llamaindex_retriever import QidfLlamaRetriever

    docs = [(f"d{i}", "alpha " * (i + 1)) for i in range(6)]
    retriever = QidfLlamaRetriever(_retrieval(_fake(docs)), similarity_top_k=3)
    nodes = retriever.retrieve("alpha")
    assert [n.node.node_id for n in nodes] == ["d0", "d1", "d2"]
    assert [n.score for n in nodes] == [100.0, 99.0, 98.0]
    assert nodes[2].node.metadata["rank"] == 3 and nodes[0].node.get_content() == "alpha "
    budgeted = QidfLlamaRetriever(retriever.retrieval, similarity_top_k=6, budget_tokens=6)
    assert len(budgeted.retrieve("alpha")) == 3
