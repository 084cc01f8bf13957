"""Issue 28's bad inputs through the CLI, each a regression test: one ``error:`` line naming
the file (and the line) or the option, exit 2 (5 for a file that does not exist), before any
request; never "unexpected ... (a qidf bug)"."""

from __future__ import annotations

import json
import socket

import pytest

from qidf_ctl.errors import EXIT_FAILED, EXIT_NOT_FOUND, EXIT_USAGE, ClusterError

from .test_cli import run

URL = ["--url", "http://127.0.0.1:1"]
QUERIES = '{"_id": "q1", "text": "x"}\n'
QRELS = "q1 0 d1 1\n"


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened before the input was checked")

    monkeypatch.setattr(socket, "create_connection", refuse)


def _files(tmp_path, **contents: bytes | str) -> dict[str, str]:
    paths = {}
    for name, content in {"queries": QUERIES, "qrels": QRELS, **contents}.items():
        path = tmp_path / f"{name}.{'jsonl' if name == 'queries' else 'txt'}"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        paths[name] = str(path)
    return paths


def _one_line(code: int, out: str, err: str, expected: int, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert code == expected, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "unexpected" not in err and "Traceback" not in out + err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


EVAL_CASES = {
    "queries binary": ({"queries": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
                       ["queries file", "binary"]),
    "queries UTF-16": ({"queries": QUERIES.encode("utf-16")}, ["is UTF-16 text"]),
    "queries UTF-16 without BOM": ({"queries": QUERIES.encode("utf-16-le")},
                                   ["is UTF-16 text"]),
    "qrels UTF-16": ({"qrels": QRELS.encode("utf-16")}, ["qrels file", "UTF-16"]),
    "a line that is a number": ({"queries": "1\n"}, ["line 1", "got a number"]),
    "a line that is a string": ({"queries": QUERIES + '"x"\n'}, ["line 2", "got a string"]),
    "a line that is null": ({"queries": "null\n"}, ["line 1", "got null"]),
    "an array": ({"queries": '[{"_id": "q1", "text": "x"}]\n'}, ["a JSON array"]),
    "no text key": ({"queries": '{"_id": "q1"}\n'}, ['no "text" key']),
    "text not a string": ({"queries": '{"_id": "q1", "text": 5}\n'}, ['"text" must be']),
    "NaN in a line": ({"queries": '{"_id": NaN, "text": "x"}\n'}, ["NaN"]),
    "relevance inf": ({"qrels": "q1 0 d1 inf\n"}, ["qrels file", "line 1", "integer"]),
    "relevance 1e999": ({"qrels": "q1 0 d1 1e999\n"}, ["line 1", "integer"]),
    "relevance out of range": ({"qrels": "q1 0 d1 1000\n"}, ["from -100 to 100"]),
    "relevance 2.5": ({"qrels": "q1 0 d1 2.5\n"}, ["integer"]),
    "judged twice differently": ({"qrels": "q1 0 d1 1\nq1 0 d1 2\n"}, ["line 2", "twice"]),
    "invalid UTF-8 on line 3": ({"qrels": b"q1 0 d1 1\nq1 0 d2 1\nq1 0 \xff 1\n"},
                                ["line 3", "not UTF-8"]),
}


@pytest.mark.parametrize("case", sorted(EVAL_CASES))
def test_bad_query_and_qrels_files(case, tmp_path, capsys, monkeypatch, no_network):
    contents, fragments = EVAL_CASES[case]
    paths = _files(tmp_path, **contents)
    code, out, err = run(["eval", "idx", "--queries", paths["queries"], "--qrels",
                          paths["qrels"], *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, *fragments)


RUN_CASES = {
    "5 fields": ("q1 Q0 d1 1 2.0\n", ["6 fields"]),
    "rank not an integer": ("q1 Q0 d1 x 2.0 t\n", ["rank"]),
    "negative rank": ("q1 Q0 d1 -1 2.0 t\n", ["rank"]),
    "score inf": ("q1 Q0 d1 1 inf t\n", ["finite"]),
    "score 1e999": ("q1 Q0 d1 1 1e999 t\n", ["finite"]),
    "a document twice": ("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n", ["line 2", "twice"]),
    "empty": ("\n", ["no ranked documents"]),
}


@pytest.mark.parametrize("case", sorted(RUN_CASES))
def test_bad_baseline_runs(case, tmp_path, capsys, monkeypatch, no_network):
    content, fragments = RUN_CASES[case]
    paths = _files(tmp_path, baseline=content)
    code, out, err = run(["eval", "idx", "--queries", paths["queries"], "--qrels",
                          paths["qrels"], "--baseline", paths["baseline"], *URL], capsys,
                         monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "--baseline", *fragments)


def test_a_missing_baseline_is_not_found(tmp_path, capsys, monkeypatch, no_network):
    paths = _files(tmp_path)
    code, out, err = run(["eval", "idx", "--queries", paths["queries"], "--qrels",
                          paths["qrels"], "--baseline", str(tmp_path / "none.run"), *URL],
                         capsys, monkeypatch)
    _one_line(code, out, err, EXIT_NOT_FOUND, "none.run (--baseline) not found")


@pytest.mark.parametrize("option", ["--queries", "--qrels", "--baseline"])
def test_a_folder_given_as_a_file(option, tmp_path, capsys, monkeypatch, no_network):
    paths = _files(tmp_path)
    args = {"--queries": paths["queries"], "--qrels": paths["qrels"], option: str(tmp_path)}
    code, out, err = run(["eval", "idx", *[x for kv in args.items() for x in kv], *URL],
                         capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, f"({option}) is a folder")


@pytest.mark.parametrize("argv, fragment", [
    (["--grid", "0:inf"], "three numbers"),
    (["--grid", "0:inf:0.1"], "finite"),
    (["--grid", "0:2:1e-9"], "2,000,000,000 points"),
    (["--grid", "0:2:0"], "step must be > 0"),
    (["--grid", "2:0:0.1"], "below start"),
    (["--grid", ",".join(["0.5"] * 300)], "more than 201"),
    (["--k1-grid", "0:1e9:1e-9"], "in [0, 10]"),
    (["--k1-grid", "0:10:0.1", "--b-grid", "0:1:0.02"], "settings, more than"),
    (["--grid", "nan"], "finite"),
])
def test_grids_are_bounded_before_any_work(argv, fragment, tmp_path, capsys, monkeypatch,
                                           no_network):
    paths = _files(tmp_path)
    code, out, err = run(["sweep", "idx", "--queries", paths["queries"], "--qrels",
                          paths["qrels"], *argv, *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, fragment)


def test_the_grid_0_2_1_is_three_points():
    from qidf_ctl.evaluation.grids import parse_values

    assert parse_values("0:2:1", "--grid", 0, 2, "q values") == (0.0, 1.0, 2.0)


@pytest.mark.parametrize("argv, option", [
    (["--depth", "0"], "--depth"), (["--depth", "100001"], "--depth"),
    (["--resamples", "0"], "--resamples"), (["--seed", "-1"], "--seed"),
    (["--max-queries", "0"], "--max-queries"), (["--budget", "-5"], "--budget"),
])
def test_numeric_options_are_bounded(argv, option, tmp_path, capsys, monkeypatch, no_network):
    paths = _files(tmp_path)
    code, out, err = run(["eval", "idx", "--queries", paths["queries"], "--qrels",
                          paths["qrels"], *argv, *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, option)


def _plan(**changes) -> dict:
    item = {"cluster": None, "kind": "index", "name": "code", "target": "target 1",
            "action": "update", "strategy": "close", "mode": "script", "before": "BM25",
            "after": "q-log", "params": {"q": 0.3}}
    plan = {"format": "qidf-plan/1", "items": [item]}
    plan.update(changes)
    return plan


@pytest.mark.parametrize("plan, fragment", [
    (_plan(items=[1]), "item 1: expected an object, got a number"),
    (_plan(items=["x", None]), "item 1: expected an object, got a string"),
    (_plan(bogus=1), "unknown key 'bogus'"),
    (_plan(items=[{**_plan()["items"][0], "extra": 1}]), "unknown key 'extra'"),
    (_plan(items=[{**_plan()["items"][0], "params": {"q": 7}}]), "q must be"),
    (_plan(items=[{**_plan()["items"][0], "params": {"q": 0.3, "z": 1}}]), "not 'z'"),
    (_plan(items=[{**_plan()["items"][0], "mode": "fast"}]), "mode must be one of"),
    (_plan(items=[{**_plan()["items"][0], "cluster": "prod"}]), "not one of the plan's profiles"),
    (_plan(items=[{**_plan()["items"][0], "name": "a#b"}]), "item 1"),
    (_plan(items=[{k: v for k, v in _plan()["items"][0].items() if k != "kind"}]),
     "missing kind"),
    (_plan(profiles={"p": {"url": 5}}), "profiles.p: url must be a string"),
    (_plan(items="all"), "items must be an array"),
])
def test_bad_saved_plans(plan, fragment, tmp_path, capsys, monkeypatch, no_network):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    code, out, err = run(["apply", "-f", str(path), *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "plan.json", fragment)


def test_a_plan_with_nan_or_a_key_twice(tmp_path, capsys, monkeypatch, no_network):
    path = tmp_path / "plan.json"
    for text in ('{"format": "qidf-plan/1", "items": [], "measured": NaN}',
                 '{"format": "qidf-plan/1", "items": [], "items": []}'):
        path.write_text(text)
        code, out, err = run(["apply", "-f", str(path), *URL], capsys, monkeypatch)
        _one_line(code, out, err, EXIT_USAGE, "not valid JSON")


@pytest.mark.parametrize("content, fragment", [
    (b"version = 1\n[[target]]\nindex = \"a\\ud800\"\nq = 0.3\n", "Unicode scalar"),
    (b"version = 1\n[clusters.x]\nurl = \"http://h:1\"\npassword_file = \"a\\u0000b\"\n"
     b"[[target]]\nindex = \"a\"\nq = 1\n", "holds a NUL"),
    (b"a = " + b"[" * 5000 + b"]" * 5000, "nested deeper"),
    (b"version = 1\n[clusters.x]\nurl = \"http://[x/\"\n[[target]]\nindex = \"a\"\nq = 1\n",
     "[clusters.x]"),
    ("q = 0.3\n".encode("utf-16"), "UTF-16"),
    (b"\x00\x01\x02", "binary"),
])
def test_bad_desired_state_files(content, fragment, tmp_path, capsys, monkeypatch, no_network):
    path = tmp_path / "qidf.toml"
    path.write_bytes(content)
    code, out, err = run(["plan", "-f", str(path), *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "qidf.toml", fragment)


def test_a_folder_given_as_the_desired_state_file(tmp_path, capsys, monkeypatch, no_network):
    code, out, err = run(["apply", "-f", str(tmp_path), *URL], capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "is a folder")


@pytest.mark.parametrize("content, fragment", [
    ("pw".encode("utf-16"), "UTF-16"), (b"\x00pw", "binary"), (b"\xffpw", "not UTF-8"),
])
def test_bad_secrets_files(content, fragment, tmp_path, capsys, monkeypatch, no_network):
    path = tmp_path / "pw"
    path.write_bytes(content)
    code, out, err = run(["show", "idx", "--user", "u", "--password-file", str(path), *URL],
                         capsys, monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "--password-file", fragment)


def test_a_folder_or_a_missing_secrets_file(tmp_path, capsys, monkeypatch, no_network):
    code, out, err = run(["show", "idx", "--api-key-file", str(tmp_path), *URL], capsys,
                         monkeypatch)
    _one_line(code, out, err, EXIT_USAGE, "is a folder")
    code, out, err = run(["show", "idx", "--api-key-file", str(tmp_path / "no"), *URL], capsys,
                         monkeypatch)
    _one_line(code, out, err, EXIT_NOT_FOUND, "not found")


def test_a_deterministic_refusal_answered_with_500_is_not_retry():
    """stats on a data stream's backing index: the engine answers its artificial document
    with mapper_parsing_exception and HTTP 500; retrying cannot change that."""
    assert ClusterError("x", status=500, error_type="mapper_parsing_exception").exit_code == \
        EXIT_FAILED
    assert ClusterError("x", status=500, error_type="").exit_code == 7
    assert ClusterError("x", status=503, error_type="illegal_argument_exception",
                        retryable=True).exit_code == 7
