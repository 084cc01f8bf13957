"""The CLI boundary: one clear line and a non-zero exit for bad input, no cluster call before
validation, no secret in any output, and every command documented with an example."""

from __future__ import annotations

import json
import sys

import pytest

from qidf_ctl import cli
from qidf_ctl.cli import helptext
from qidf_ctl.cluster import Cluster

from .fake_cluster import FakeEngine, fake_cluster


def run(argv: list[str], capsys, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.fixture
def engine(monkeypatch):
    fake = FakeEngine()
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, settings: fake_cluster(fake)))
    return fake


@pytest.mark.parametrize("q", ["nan", "-1", "3", "abc", "inf", ""])
def test_bad_q_is_one_line_exit_2_and_no_cluster_call(q, engine, capsys, monkeypatch):
    code, out, err = run(["apply", "code", "--q", q], capsys, monkeypatch)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: q must be")
    assert engine.calls == []


def test_usage_errors_are_one_line(capsys, monkeypatch):
    code, _, err = run(["apply", "code", "--q", "0.3", "--mode", "bogus"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "--mode" in err


def test_missing_index_is_one_line(engine, capsys, monkeypatch):
    code, _, err = run(["apply", "nosuch", "--q", "0.3"], capsys, monkeypatch)
    assert code == 5 and err.count("\n") == 1 and "not found" in err


def test_apply_json_is_one_object(engine, capsys, monkeypatch):
    code, out, _ = run(["apply", "code", "--q", "0.3", "--json"], capsys, monkeypatch)
    assert code == 0
    payload = json.loads(out)
    assert payload["changed"] is True and payload["index"] == "code"


def test_render_prints_settings(capsys, monkeypatch):
    code, out, _ = run(["render", "--q", "0.3", "--engine", "opensearch-3.3.0"], capsys,
                       monkeypatch)
    assert code == 0
    sim = json.loads(out)["index"]["similarity"]["default"]
    assert sim["weight_script"]["source"].endswith("return query.boost * idf;")


def test_credentials_never_printed(capsys, monkeypatch):
    secret = "s3cr3t-Pa55"
    for argv in (
        ["show", "code", "--url", f"http://alice:{secret}@127.0.0.1:1"],
        ["show", "code", "--url", "http://127.0.0.1:1", "--user", "alice", "--password", secret],
        ["show", "code", "--url", "http://127.0.0.1:1", "--api-key", secret],
    ):
        code, out, err = run(argv, capsys, monkeypatch)
        assert code == 7
        assert secret not in out + err
        assert "cannot reach http://127.0.0.1:1" in err


def test_every_command_has_help_with_an_example():
    import typer.main

    group = typer.main.get_command(cli.app)
    names = []
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        for sub_name, sub in (subcommands or {name: command}).items():
            names.append(sub_name)
            assert helptext.examples(sub.help), f"{name} {sub_name} lacks an example"
    assert {"render", "apply", "revert", "show", "start", "stop", "status"} <= set(names)


def _fake_with(monkeypatch, **kwargs):
    fake = FakeEngine(**kwargs)
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, settings: fake_cluster(fake)))
    return fake


def test_mode_auto_picks_plugin_when_every_data_node_has_it(capsys, monkeypatch):
    fake = _fake_with(monkeypatch, plugins=("qidf-qlog-similarity",))
    code, out, _ = run(["apply", "code", "--q", "0.3", "--json"], capsys, monkeypatch)
    assert code == 0 and "native plugin" in json.loads(out)["mode_reason"]
    body = next(b for m, p, b in fake.calls if (m, p) == ("PUT", "/code/_settings"))
    assert body["index.similarity.default.type"] == "qlog_bm25"


def test_mode_auto_falls_back_to_painless(capsys, monkeypatch):
    fake = _fake_with(monkeypatch)
    code, out, _ = run(["apply", "code", "--q", "0.3", "--json"], capsys, monkeypatch)
    assert code == 0 and "Painless" in json.loads(out)["mode_reason"]
    body = next(b for m, p, b in fake.calls if (m, p) == ("PUT", "/code/_settings"))
    assert body["index.similarity.default.type"] == "scripted"


def test_mode_plugin_missing_is_one_line_and_changes_nothing(capsys, monkeypatch):
    fake = _fake_with(monkeypatch)
    code, _, err = run(["apply", "code", "--q", "0.3", "--mode", "plugin"], capsys, monkeypatch)
    assert code == 1 and err.count("\n") == 1 and "missing on node-1" in err
    assert fake.writes() == []
