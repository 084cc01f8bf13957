"""``qidf mcp`` on the real security plugin, driven by the ``mcp`` SDK's client over stdio: a
user holding only ``qidf_agent`` (docs/how-to/privileges.md) sees the q-log similarity an admin
installed and searches with it; every tool result and the server's whole stderr are grepped for
any spelling of that user's password; a query-time-only user is told BM25 is assumed; and each
action ``qidf_agent`` adds to ``qidf_query_time`` is needed."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.agents import Retrieval, decide
from qidf_ctl.cluster import roles, segment
from qidf_ctl.evaluation import files
from qidf_ctl.similarity import Mode, QlogParams
from tests import secrets_matrix
from tests.integration.agents_support import error_line, payload, stdio_client
from tests.unit.test_cli import run

from .conftest import AGENT_PASSWORD, EMPTY_ROLE, INDEX

pytest.importorskip("mcp")

BAD = [{"query": ""}, {"query": "x", "index": "code-other"}, {"query": "x", "q": 5},
       {"query": "x", "budget_tokens": 10**13}, {"query": ["x"]}]


def _server(secured, user: str, *extra: str) -> list[str]:
    return ["-m", "qidf_ctl", "mcp", INDEX, *secured.args(user), *extra]


def _texts(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_an_agent_sees_the_installed_ranking_and_no_secret_anywhere(secured, no_proxy_env,
                                                                          tmp_path):
    admin = secured.cluster("admin")
    install.apply(admin, INDEX, QlogParams(0.3), mode=Mode.SCRIPT)
    seen: list[str] = []
    try:
        errlog = tmp_path / "stderr.txt"
        async with stdio_client(_server(secured, "qidf_agent"), errlog) as client:
            described = await client.call_tool("describe_ranking", {})
            seen.append(_texts(described))
            (ranking,) = payload(described)["indices"]
            assert (ranking["method"], ranking["q"], ranking["checked"]) == ("installed", 0.3,
                                                                             True)
            for text in list(files.read_queries(secured.queries).values())[:5]:
                found = await client.call_tool("search_code", {"query": text})
                seen.append(_texts(found))
                assert payload(found)["hits"] and payload(found)["method"] == "installed"
            fetched = await client.call_tool("fetch_document",
                                             {"id": payload(found)["hits"][0]["id"]})
            seen.append(_texts(fetched))
            assert payload(fetched)["text"]
            for arguments in BAD:
                refused = await client.call_tool("search_code", arguments)
                seen.append(error_line(refused))
        seen.append(errlog.read_text(encoding="utf-8"))
    finally:
        install.revert(admin, INDEX)
    everything = "\n".join(seen)
    assert "installed, q=0.3" in seen[-1] and "Traceback" not in everything
    assert secrets_matrix.leaks(AGENT_PASSWORD, everything, "qidf_agent") == []


async def test_a_query_time_user_is_told_bm25_is_assumed(secured, no_proxy_env, tmp_path,
                                                         capsys, monkeypatch):
    text = next(iter(files.read_queries(secured.queries).values()))
    async with stdio_client(_server(secured, "qidf_qt", "--q", "0.3"),
                            tmp_path / "stderr.txt") as client:
        (ranking,) = payload(await client.call_tool("describe_ranking", {}))["indices"]
        assert ranking["method"] == "query-time" and not ranking["checked"]
        assert "built-in BM25 is assumed" in ranking["reason"]
        hits = payload(await client.call_tool("search_code", {"query": text}))["hits"]
    reference = Retrieval.connect(secured.cluster("admin"), INDEX, q=0.3).search(text)
    assert [(h["id"], h["score"]) for h in hits] == [(h.id, h.score) for h in reference.hits]
    code, out, err = run(["mcp", INDEX, *secured.args("qidf_qt")], capsys, monkeypatch)
    assert code == 4 and out == "" and err.count("\n") == 1
    assert "pass --q with a number" in err


def test_each_action_qidf_agent_adds_is_needed(secured, no_proxy_env):
    """The test role of ``qidf_grant`` holds ``qidf_agent`` less one action at a time: without
    either the settings or the mapping the similarity cannot be read (BM25 assumed)."""
    admin = secured.cluster("admin")
    path = f"/_plugins/_security/api/roles/{segment(EMPTY_ROLE)}"
    original = admin.request("GET", path)[EMPTY_ROLE]
    agent = roles.opensearch_roles(["code-*"])["qidf_agent"]
    try:
        for missing in [None, *sorted(set(roles.AGENT_INDEX) - set(roles.QUERY_TIME_INDEX))]:
            actions = [a for a in roles.AGENT_INDEX if a != missing]
            admin.request("PUT", path, {
                "cluster_permissions": agent["cluster_permissions"],
                "index_permissions": [{"index_patterns": ["code-*"],
                                       "allowed_actions": actions}]})
            ranking, _ = decide(secured.cluster("qidf_grant"), INDEX, q=0.3)
            assert ranking.checked == (missing is None), missing
    finally:
        admin.request("PUT", path, {k: original[k] for k in ("cluster_permissions",
                                                             "index_permissions")
                                    if k in original})
