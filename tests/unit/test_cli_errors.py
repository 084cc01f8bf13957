"""Every command, fed bad input or missing a package, answers with one ``error:`` line and a
documented exit code: never a traceback, never a secret."""

from __future__ import annotations

import builtins
import json

import pytest
import typer.main

from qidf_ctl import cli
from qidf_ctl.errors import EXIT_CODES

from .test_cli import run

UNREACHABLE = "http://127.0.0.1:1"


def _commands() -> list[str]:
    group = typer.main.get_command(cli.app)
    names = []
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        subs = getattr(cmd, "commands", None)
        names += [f"{name} {sub}" for sub in subs] if subs else [name]
    return sorted(names)


def _one_line(code: int, out: str, err: str) -> None:
    assert code in EXIT_CODES and code != 0, (code, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err


# Bad input for each command: a missing required argument, an unknown option, and a value
# the command must refuse (or, for cluster commands, an unreachable or malformed cluster).
BAD: dict[str, list[list[str]]] = {
    "apply": [["idx", "--q", "nan"], ["idx#x", "--q", "0.3"], ["idx", "--q", "0.3", "--url",
                                                               "ftp://x"]],
    "revert": [["a,b"], ["idx", "--url", "http://127.0.0.1:99999"],
               ["idx", "--strategy", "fast"]],
    "recover": [["a#b"], ["idx", "--url", UNREACHABLE], ["idx", "--force", "yes"]],
    "show": [["*"], ["idx", "--url", UNREACHABLE]],
    "snapshot refresh": [["a#b"], ["idx", "--url", UNREACHABLE]],
    "render": [["--q", "3"], ["--q", "0.3", "--engine", "solr-9"], ["--q", "0.3", "--k1", "-1"]],
    "stats": [["idx", "--sample", "0"], ["idx", "--url", UNREACHABLE]],
    "predict": [["idx", "--predictor", "nope"], ["idx", "--url", UNREACHABLE],
                ["idx", "--judgments", "/nonexistent"]],
    "eval": [["idx", "--queries", "/nonexistent.jsonl", "--qrels", "/nonexistent.tsv"]],
    "sweep": [["idx", "--queries", "q", "--qrels", "r", "--grid", "abc"],
              ["idx", "--queries", "q", "--qrels", "r", "--k1-grid", "-1"],
              ["idx", "--queries", "q", "--qrels", "r", "--b-grid", "0.5,2"],
              ["idx", "--queries", "q", "--qrels", "r", "--b-grid", "0.5", "--plot", "x.png"],
              ["idx", "--queries", "q", "--qrels", "r", "--query-time", "--k1-grid", "1.2"],
              ["idx", "--queries", "q", "--qrels", "r", "--reference", "7"]],
    "search": [["idx", "main", "--q", "nan"], ["idx", "x", "--q", "0.3", "--url", UNREACHABLE]],
    "mcp": [["idx", "--q", "nan"], ["idx", "--transport", "sse"], ["idx", "--ranking", "best"],
            ["idx", "idx"], ["idx", "--transport", "http", "--port", "0"],
            ["idx", "--q", "0.3", "--url", UNREACHABLE]],
    "demo": [["--queries", "0"], ["--mode", "bogus", "--url", UNREACHABLE]],
    "engine fetch": [["--engine", "solr-1.0.0"]],
    "engine start": [["--port", "1"], ["--engine", "opensearch-x"], ["--heap", "lots"]],
    "engine stop": [["--engine", "nope-1"]],
    "engine status": [["--port", "80"]],
    "plugin build": [["--engine", "opensearch-two"]],
    "plugin install": [["/nonexistent.zip", "--port", "1"]],
    "plan": [["-f", "/nonexistent/qidf.toml"], ["-f", "/dev/null"]],
    "check": [["idx"], ["idx", "--q", "7"], ["-f", "/dev/null"]],
    "judgments git": [["/nonexistent", "--index", "i", "--path-field", "p", "--out", "o"],
                      [".", "--index", "i", "--path-field", "p", "--out", "o", "--split", "2"],
                      ["/", "--index", "i", "--path-field", "p", "--out", "o"]],
    "judgments ubi": [["/nonexistent.ndjson", "--out", "o"], ["ubi:", "--out", "o", "--url",
                                                             UNREACHABLE],
                      ["/dev/null", "--out", "o", "--min-impressions", "0"]],
    "profiles list": [["extra-argument"]],
    "profiles show": [["no-such-profile"], ["no-such-profile", "--json"]],
}


def test_every_command_has_bad_input_cases():
    assert sorted(BAD) == [c for c in _commands() if c in BAD] == sorted(_commands())


@pytest.mark.parametrize("command", sorted(BAD))
def test_bad_input_is_one_line(command, capsys, monkeypatch):
    monkeypatch.delenv("QIDF_URL", raising=False)
    for extra in ([], ["--no-such-option"], *BAD[command]):
        argv = [*command.split(), *extra]
        if not extra and command in ("engine start", "engine stop", "engine status",
                                     "engine fetch",
                                     "plugin build", "plugin install", "demo",
                                     "profiles list"):
            continue  # these run fine without arguments
        code, out, err = run(argv, capsys, monkeypatch)
        _one_line(code, out, err)


@pytest.mark.parametrize("command", ["show", "apply", "stats"])
def test_errors_are_json_under_json(command, capsys, monkeypatch):
    argv = [command, "idx", "--url", UNREACHABLE, "--json"]
    if command == "apply":
        argv += ["--q", "0.3"]
    code, out, err = run(argv, capsys, monkeypatch)
    _one_line(code, out, err)
    payload = json.loads(out)
    assert payload["error"]["exit_code"] == code == 7


@pytest.fixture
def without(monkeypatch):
    """Make ``import NAME`` fail for the given top-level packages, as on an install without
    them."""
    real_import = builtins.__import__
    blocked: set[str] = set()

    def fake_import(name, *args, **kwargs):
        if name.split(".")[0] in blocked:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    return blocked


def test_missing_opensearch_client_names_the_package(without, capsys, monkeypatch):
    without.add("opensearchpy")
    code, out, err = run(["show", "idx", "--url", UNREACHABLE], capsys, monkeypatch)
    _one_line(code, out, err)
    assert "opensearch-py" in err and "pip install" in err


def test_missing_elasticsearch_extra_names_the_extra(without):
    from qidf_ctl.cluster.connection import ConnectionSettings
    from qidf_ctl.cluster.transport import elasticsearch_transport
    from qidf_ctl.errors import MissingExtraError

    without.add("elasticsearch")
    with pytest.raises(MissingExtraError, match=r"qidf\[elasticsearch\]"):
        elasticsearch_transport(ConnectionSettings(url=UNREACHABLE))


def test_missing_plot_extra_names_the_extra(without, tmp_path):
    from qidf_ctl.errors import MissingExtraError
    from qidf_ctl.evaluation.plot import plot
    from qidf_ctl.evaluation.sweep import SweepPoint, SweepResult

    without.add("matplotlib")
    res = SweepResult("i", "f", 1, "BM25", 0.1, [SweepPoint(1.0, 0.1, 0.1)], 1.0, 0.1, 0.0)
    with pytest.raises(MissingExtraError, match=r"qidf\[plot\]"):
        plot(res, tmp_path / "x.png")


@pytest.mark.parametrize("package, pip_name", [("ir_measures", "ir-measures"),
                                               ("tiktoken", "tiktoken")])
def test_missing_eval_packages_name_the_package(without, package, pip_name):
    from qidf_ctl.errors import MissingExtraError
    from qidf_ctl.evaluation import metrics, tokens

    without.add(package)
    tokens._cl100k.cache_clear()
    with pytest.raises(MissingExtraError, match=pip_name):
        if package == "ir_measures":
            metrics.evaluate({"q": [("d", 1.0)]}, {"q": {"d": 1}})
        else:
            tokens.counter("cl100k")
    tokens._cl100k.cache_clear()


@pytest.mark.parametrize("command", ["show idx", "apply idx --q 0.3", "revert idx",
                                     "stats idx", "predict idx"])
@pytest.mark.parametrize("url", ["http://127.0.0.1:0", "https://127.0.0.1:0",
                                 "http://127.0.0.1", "http://user:Zq pa#ss@127.0.0.1:9511"])
def test_a_url_that_names_no_usable_port_reaches_no_cluster(command, url, capsys, monkeypatch):
    """The client would send port 0 to 9200 (or 443): qidf refuses before any request."""
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "create_connection", no_network)
    code, out, err = run([*command.split(), "--url", url], capsys, monkeypatch)
    _one_line(code, out, err)
    assert code == 2 and "Zq" not in out + err
