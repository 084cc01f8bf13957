"""The CLI's conventions (every command takes --json, errors under --json are JSON,
--version, shell completion) and plan / check / apply -f from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from qidf_ctl import __version__, cli
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import EXIT_DRIFT

from .test_desired_fake import FakeCluster, cluster_of

FILE = """
[defaults]
mode = "script"

[[target]]
pattern = "code-*"
q = 0.3

[[target]]
template = "logs"
patterns = ["logs-*"]
q = 0.3
"""


def run(argv, capsys, monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def _commands():
    group = typer.main.get_command(cli.app)
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        for sub_name, sub in (subcommands or {name: command}).items():
            yield (f"{name} {sub_name}" if subcommands else name), sub


def test_every_command_takes_json():
    missing = [name for name, command in _commands()
               if not any("--json" in p.opts for p in command.params)]
    assert missing == []
    assert {"plan", "check", "render", "plugin build", "apply"} <= {n for n, _ in _commands()}


def test_version(capsys, monkeypatch):
    code, out, _ = run(["--version"], capsys, monkeypatch)
    assert code == 0 and out.strip() == f"qidf {__version__}"


def test_help_lists_the_exit_codes(capsys, monkeypatch):
    code, out, _ = run(["--help"], capsys, monkeypatch)
    flat = " ".join(out.split())
    assert code == 0 and "Exit codes: 0 success" in flat and "3 not in the asked-for state" in flat


def test_shell_completion_completes_commands():
    exe = Path(sys.executable).with_name("qidf")
    if not exe.exists():
        pytest.skip("the qidf console script is not installed beside this Python")
    env = {**os.environ, "_QIDF_COMPLETE": "complete_bash", "COMP_WORDS": "qidf pl",
           "COMP_CWORD": "1"}
    done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert set(done.stdout.split()) == {"plan", "plugin"}


@pytest.mark.parametrize("argv, code, kind", [
    (["apply", "code", "--q", "0.3", "--nope"], 2, "usage"),
    (["apply", "code", "--q", "7"], 2, "usage"),
    (["plan", "-f", "/nonexistent/qidf.toml"], 5, "NotFoundError"),
    (["check", "-f", "/nonexistent/qidf.toml"], 5, "NotFoundError"),
    (["render", "--q", "0.3", "--format", "template"], 2, "UsageError"),
    (["show", "code", "--url", "http://127.0.0.1:1"], 7, "ClusterError"),
    (["plugin", "build", "--engine", "solr-9"], 2, "UsageError"),
    (["engine", "status", "--engine", "bogus"], 2, "UsageError"),
])
def test_errors_under_json_are_one_json_object(argv, code, kind, capsys, monkeypatch):
    got, out, err = run([*argv, "--json"], capsys, monkeypatch)
    assert got == code
    payload = json.loads(out)
    assert payload["error"]["exit_code"] == code and payload["error"]["kind"] == kind
    assert payload["error"]["message"] and "\n" not in payload["error"]["message"]
    assert err.count("\n") == 1 and err.startswith("error: ")


# --- plan, check and apply -f against a fake cluster -------------------------------------------

@pytest.fixture
def fake(monkeypatch, tmp_path):
    fake = FakeCluster()
    for name in ("code-a", "code-b", "logs-000001"):
        fake.create(name)
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, s: cluster_of(fake)))
    (tmp_path / "qidf.toml").write_text(FILE)
    monkeypatch.chdir(tmp_path)
    return fake


def test_plan_check_apply_from_the_command_line(fake, capsys, monkeypatch, tmp_path):
    code, out, _ = run(["check"], capsys, monkeypatch)
    assert code == EXIT_DRIFT and "drift: index code-a" in out
    code, out, _ = run(["plan", "--out", "plan.json"], capsys, monkeypatch)
    assert code == 0 and "~ index code-a" in out and "+ index_template logs" in out
    assert "will CLOSE it" in out and "Plan: 4 to change" in out
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert saved["summary"]["to_change"] == 4
    code, out, _ = run(["apply", "-f", "plan.json", "--json"], capsys, monkeypatch)
    report = json.loads(out)
    assert code == 0 and report["ok"]
    assert sorted(c["name"] for c in report["changed"]) == ["code-a", "code-b", "logs",
                                                            "logs-000001"]
    code, out, _ = run(["check", "--json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["in_sync"] is True
    code, out, _ = run(["apply", "-f", "plan.json"], capsys, monkeypatch)
    assert code == 6  # the saved plan is stale now: refused, nothing done


def test_apply_dry_run_with_a_file_changes_nothing(fake, capsys, monkeypatch):
    code, out, _ = run(["apply", "-f", "qidf.toml", "--dry-run"], capsys, monkeypatch)
    assert code == 0 and "dry run: nothing changed" in out
    assert fake.writes() == []


def test_file_from_the_environment(fake, capsys, monkeypatch, tmp_path):
    (tmp_path / "other.toml").write_text('[[target]]\nindex = "code-a"\nq = 0.5\n')
    monkeypatch.setenv("QIDF_FILE", "other.toml")
    code, out, _ = run(["check", "--json"], capsys, monkeypatch)
    assert code == EXIT_DRIFT and [d["name"] for d in json.loads(out)["drift"]] == ["code-a"]


def test_check_one_index_from_options(fake, capsys, monkeypatch):
    code, out, _ = run(["check", "code-a", "--q", "0.3", "--mode", "script"], capsys,
                       monkeypatch)
    assert code == EXIT_DRIFT and "built-in" in out
    assert run(["apply", "code-a", "--q", "0.3", "--mode", "script"], capsys,
               monkeypatch)[0] == 0
    code, out, _ = run(["check", "code-a", "--q", "0.3", "--mode", "script"], capsys,
                       monkeypatch)
    assert code == 0 and "in sync: 1 items checked" in out


@pytest.mark.parametrize("argv, message", [
    (["apply"], "give INDEX"),
    (["apply", "code-a"], "give --q"),
    (["apply", "code-a", "-f", "qidf.toml"], "drop INDEX and --q"),
    (["check", "code-a"], "give --q with INDEX"),
])
def test_apply_and_check_usage(argv, message, fake, capsys, monkeypatch):
    code, _, err = run(argv, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and message in err
    assert fake.writes() == []


def test_apply_failure_exits_with_its_code_and_reports_the_rest(fake, capsys, monkeypatch):
    fake.fail_put_settings.add("code-a")
    code, out, err = run(["apply", "-f", "qidf.toml", "--json"], capsys, monkeypatch)
    report = json.loads(out)
    assert code == 1 and report["failed"]["name"] == "code-a"
    assert report["not_attempted"] == ["index code-b", "index_template logs",
                                       "index logs-000001"]
    assert "error: the engine refused" in err
