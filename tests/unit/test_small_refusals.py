"""Issue 33's smaller items, each a regression test: ``--field ''`` is a usage error on every
command that takes it (it was "field '' not found", exit 5); ``qidf search IDX ''`` is refused
like the MCP tool refuses it (it exited 0); a redirect names its Location and what to do (it
said only "HTTP 302"). Elsewhere: the URL user name (test_redact.py), ``timeout = -1`` and
``--profile ''`` and ``sweep --plot`` (test_output_paths.py), the MCP edges
(test_mcp_hardening.py)."""

from __future__ import annotations

import pytest

from tests.support import netstubs

from .test_cli import engine, run  # noqa: F401 - the fixture

FIELD_COMMANDS = [
    ["search", "code", "x", "--q", "0.3"], ["eval", "code", "--queries", "q", "--qrels", "r"],
    ["sweep", "code", "--queries", "q", "--qrels", "r"], ["stats", "code"], ["predict", "code"],
    ["apply", "code", "--q", "0.3"], ["mcp", "code"]]


@pytest.mark.parametrize("argv", FIELD_COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("field", ["", "  "])
def test_an_empty_field_is_a_usage_error(argv, field, engine, capsys, monkeypatch):  # noqa: F811
    code, _out, err = run([*argv, "--field", field], capsys, monkeypatch)
    assert code == 2 and err.startswith("error: --field is empty") and err.count("\n") == 1
    assert engine.calls == []


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_an_empty_search_is_refused_like_the_mcp_tool_refuses_it(text, engine,  # noqa: F811
                                                                 capsys, monkeypatch):
    from qidf_ctl.agents.retrieval import check_query
    from qidf_ctl.errors import UsageError

    code, _, err = run(["search", "code", text, "--q", "0.3"], capsys, monkeypatch)
    with pytest.raises(UsageError) as refused:
        check_query(text)
    assert code == 2 and err == f"error: {refused.value}\n" and engine.calls == []


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_names_its_location_and_what_to_do(status, capsys, monkeypatch):
    server = netstubs.Canned(status, b"", "text/plain", headers={
        "Location": "https://sso.example.com/login?session=SECRETSESSION&next=/"})
    monkeypatch.setenv("QIDF_RETRIES", "0")
    try:
        code, _, err = run(["show", "code", "--url", server.url], capsys, monkeypatch)
    finally:
        server.shutdown()
    assert code != 0 and err.count("\n") == 1
    assert f"answered HTTP {status}, a redirect (Location: https://sso.example.com/login)" \
        in err
    assert "--url" in err and "SECRETSESSION" not in err
