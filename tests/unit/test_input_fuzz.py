"""Every reader of a file or option the CLI takes, fuzzed with Hypothesis: whatever the bytes,
a value or a qidf error (a usage error, exit 2; not found, exit 5), never another exception,
which the CLI's boundary would print as "unexpected ... (a qidf bug)".

Inputs per reader: ``QIDF_FUZZ_EXAMPLES``, each counted (the test fails below it): 1,000
in ``scripts/test.sh`` (and so in CI; about 40 s on a quiet machine), 250 when the unit
tests run alone. ``QIDF_FUZZ_REPORT=path`` writes the counts; benchmarks/inputs/fuzz.json is
``QIDF_FUZZ_EXAMPLES=1000 QIDF_FUZZ_REPORT=benchmarks/inputs/fuzz.json .venv/bin/pytest
tests/unit/test_input_fuzz.py``.

The generators mix raw bytes with inputs shaped like the real formats (JSONL lines, TREC
columns, TOML tables, saved plans, grids, URLs) whose parts are hostile: every JSON type,
NaN, infinities, 1e999, 4,301-digit integers, deep nesting, every encoding and byte-order
mark, NULs, lone surrogates, reserved URL characters.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qidf_ctl.cluster.secrets import read_file
from qidf_ctl.cluster.url import parse_url
from qidf_ctl.desired import load
from qidf_ctl.desired.saved import read_plan
from qidf_ctl.errors import QidfError
from qidf_ctl.evaluation import files, grids, runs
from qidf_ctl.formula import InvalidParameter

EXAMPLES = int(os.environ.get("QIDF_FUZZ_EXAMPLES", "250"))
COUNTS: Counter[str] = Counter()
BUGS: Counter[str] = Counter()  # inputs that reached the bug path (the test fails on each)
REFUSED: Counter[str] = Counter()  # inputs refused with a qidf error (the rest were read)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))

# --- pieces ---------------------------------------------------------------------------------

NUMBERS = ["0", "1", "-1", "2.5", "1.0", "1e999", "-1e999", "inf", "-inf", "nan", "NaN",
           "Infinity", "1e-9", "9" * 4301, "0x10", "1_000", "\u0663", "+3", "",
           "\u0663\u066b\u0665", "\u22121"]
WORDS = ["q1", "d1", "Q0", "0", "tag", "run", "query-id", "qid", "_id", "text", "a b", "\u00a0",
         "\u2028", "\x00", "\ud800", "é", "🙂", "#", "%41"]
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]


_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
            | st.sampled_from(WORDS))
_KEYS = st.sampled_from(["_id", "id", "qid", "query_id", "text", "query", "metadata"]) | \
    st.text(max_size=8)
JSON_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(_KEYS, inner, max_size=5), max_leaves=8)


def json_values() -> st.SearchStrategy[Any]:
    return JSON_VALUES


def raw_json_fragments() -> st.SearchStrategy[str]:
    return st.sampled_from(["{", "}", "[" * 3000, "{\"_id\": 1e999, \"text\": \"x\"}",
                            "{\"_id\": NaN}", "{\"_id\": \"a\", \"_id\": \"b\", \"text\": \"\"}",
                            "null", "1", "\"x\"", "[]", "true", "{\"_id\": \"\\ud800\", "
                            "\"text\": \"\\u0000\"}", "{\"_id\": " + "9" * 5000 + "}"])


def encoded(lines: st.SearchStrategy[list[str]]) -> st.SearchStrategy[bytes]:
    """Lines joined by one of the line ends and written in one of the encodings (or bytes
    of no encoding at all)."""
    def join(parts: list[str], end: str, encoding: str) -> bytes:
        return end.join(parts).encode(encoding, "surrogatepass" if "utf" in encoding
                                      else "replace")
    joined = st.builds(join, lines, st.sampled_from(["\n", "\r\n", "\r", ""]),
                       st.sampled_from(ENCODINGS))
    return joined | st.binary(max_size=400)


def field_lines(k_min: int, k_max: int) -> st.SearchStrategy[list[str]]:
    field = st.sampled_from(WORDS + NUMBERS) | st.text(max_size=6)
    line = st.builds(lambda fs, sep: sep.join(fs), st.lists(field, min_size=k_min,
                                                            max_size=k_max),
                     st.sampled_from([" ", "\t", "  ", "\t\t", "\u00a0"]))
    return st.lists(line, max_size=8)


def query_lines() -> st.SearchStrategy[list[str]]:
    jsonl = json_values().map(lambda v: json.dumps(v, ensure_ascii=False, allow_nan=True))
    tsv = st.builds(lambda a, b: f"{a}\t{b}", st.sampled_from(WORDS) | st.text(max_size=5),
                    st.text(max_size=10))
    return st.lists(jsonl | tsv | raw_json_fragments() | st.text(max_size=20), max_size=8)


TOML_VALUES = ["0.3", "1e999", "inf", "nan", "-1", "true", "\"auto\"", "\"\"", "\"a\\u0000b\"",
               "\"a\\ud800\"", "[]", "[1, \"x\"]", "{a = 1}", "1979-05-27T07:32:00Z",
               "\"qidf-gate\"", "\"code\"", "\"*\"", "\"co*\"", "\"http://h:0\"",
               "\"http://u:p@h:9200\"", "\"http://[x/\"", "\"../x\"", "\"clone\"", "9" * 30,
               "[" * 2000 + "]" * 2000, "{b = {c = {d = 1}}}", "'lit'", "\"\"\"multi\"\"\""]
TOML_KEYS = ["version", "q", "k1", "b", "form", "mode", "strategy", "field", "sample", "index",
             "alias", "pattern", "template", "component_template", "cluster", "predictor",
             "url", "url_env", "user", "password", "password_file", "api_key_file", "ca_certs",
             "insecure", "existing", "rollover", "patterns", "priority", "data_stream",
             "bogus", "token"]
TOML_HEADERS = ["[[target]]", "[target]", "[defaults]", "[clusters.x]", "[clusters]",
                "[[clusters]]", "[x.y.z]", ""]


def toml_lines() -> st.SearchStrategy[list[str]]:
    pair = st.builds(lambda k, v: f"{k} = {v}", st.sampled_from(TOML_KEYS),
                     st.sampled_from(TOML_VALUES) | st.text(max_size=8))
    return st.lists(st.sampled_from(TOML_HEADERS) | pair | st.text(max_size=12), max_size=14)


def _valid_plan() -> dict[str, Any]:
    item = {"cluster": None, "kind": "index", "name": "code", "target": "target 1 (index code)",
            "action": "update", "strategy": "close", "mode": "script", "before": "BM25",
            "after": "q-log q=0.3", "reason": "", "params": {"q": 0.3, "k1": 1.2, "b": 0.75,
                                                             "form": "lucene"},
            "field": None, "settings_diff": [], "meta_diff": [], "prediction": None,
            "body": None, "fingerprint": "abc", "notes": []}
    return {"format": "qidf-plan/1", "source": "qidf.toml", "sha256": "x", "created_at": "",
            "qidf_version": "0.3.0", "measured": True, "profiles": {}, "clusters": {},
            "notes": [], "summary": {}, "items": [item]}


def _first_item(plan: dict[str, Any]) -> dict[str, Any] | None:
    items = plan.get("items")
    if isinstance(items, list) and items and isinstance(items[0], dict):
        return items[0]
    return None


@st.composite
def plans(draw: st.DrawFn) -> bytes:
    """A valid saved plan with up to four mutations: a key set to any JSON value, deleted,
    or added, at the top, in the item, in its params; or profiles replaced."""
    plan = _valid_plan()
    for _ in range(draw(st.integers(0, 4))):
        where = draw(st.sampled_from(["top", "item", "params", "profiles"]))
        item = _first_item(plan)
        target: dict[str, Any] = plan
        if where == "item" and item is not None:
            target = item
        elif where == "params" and item is not None and isinstance(item.get("params"), dict):
            target = item["params"]
        elif where == "profiles":
            plan["profiles"] = {draw(st.text(max_size=4)): draw(JSON_VALUES)}
            continue
        action = draw(st.sampled_from(["set", "delete", "add"]))
        key = draw(st.text(max_size=8)) if action == "add" or not target else \
            draw(st.sampled_from(sorted(target)))
        if action == "delete":
            target.pop(key, None)
        else:
            target[key] = draw(JSON_VALUES | st.sampled_from(["script", "plugin", "clone",
                                                              "none", "rollover"]))
    text = json.dumps(plan, allow_nan=True, ensure_ascii=draw(st.booleans()))
    return text.encode(draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16"])), "surrogatepass")


def grid_texts() -> st.SearchStrategy[str]:
    token = st.sampled_from([*NUMBERS, ":", ",", " ", "-", "0.05", "2", "10", "1e9", "0.001"])
    return st.lists(token, max_size=7).map("".join) | st.text(max_size=12)


URL_PARTS = st.tuples(
    st.sampled_from(["http", "https", "HTTPS", "ftp", "", "http:/", "file"]),
    st.text(alphabet=" :/?#[]@!$&'()*+,;=%-._~aZ9\u00e9\x00", max_size=10),
    st.sampled_from(["127.0.0.1", "h", "[::1]", "[x", "", "a..b", "h_1", "é.example"]),
    st.sampled_from(["", ":", ":0", ":1", ":9200", ":65535", ":65536", ":-1", ":x", ":\u0661"]),
    st.sampled_from(["", "/", "/es", "?q", "#f", "/a b"]))

# --- the check ------------------------------------------------------------------------------


def _run(name: str, call: Callable[[], Any]) -> QidfError | None:
    COUNTS[name] += 1
    try:
        call()
    except (QidfError, InvalidParameter) as exc:
        REFUSED[name] += 1
        return exc if isinstance(exc, QidfError) else None
    except Exception as exc:  # the bug path: fail with the input
        BUGS[name] += 1
        raise AssertionError(f"{name}: {type(exc).__name__}: {exc}") from exc
    return None


def _file_reader(name: str, content: st.SearchStrategy[bytes], read: Callable[[Path], Any],
                 suffixes: tuple[str, ...] = ("",)) -> Callable[[Path], None]:
    def check(tmp_path: Path) -> None:
        @FUZZ
        @given(content, st.sampled_from(suffixes))
        def one(data: bytes, suffix: str) -> None:
            path = tmp_path / f"input{suffix}"
            path.write_bytes(data)
            _run(name, lambda: read(path))

        one()
        assert COUNTS[name] >= EXAMPLES
    return check


READERS = {
    "queries": _file_reader("queries", encoded(query_lines()), files.read_queries,
                            (".jsonl", ".tsv", "")),
    "qrels": _file_reader("qrels", encoded(field_lines(0, 6)), files.read_qrels),
    "run (--baseline)": _file_reader("run (--baseline)", encoded(field_lines(0, 8)),
                                     runs.read_trec_run),
    "qidf.toml": _file_reader("qidf.toml", encoded(toml_lines()), load, (".toml",)),
    "saved plan": _file_reader("saved plan", plans() | st.binary(max_size=200), read_plan,
                               (".json",)),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_file_reaches_the_bug_path(reader, tmp_path):
    READERS[reader](tmp_path)


def test_no_secrets_file_reaches_the_bug_path_or_is_echoed(tmp_path):
    @FUZZ
    @given(encoded(st.lists(st.text(max_size=12), max_size=3)))
    def one(data: bytes) -> None:
        path = tmp_path / "secret"
        path.write_bytes(data)
        error = _run("secrets file", lambda: read_file(str(path), "password", "--password-file"))
        text = data.decode("utf-8", "ignore").strip()
        if error is not None and len(text) >= 4:
            assert text not in str(error)

    one()
    assert COUNTS["secrets file"] >= EXAMPLES


@pytest.mark.parametrize("option, lo, hi", [("--grid", 0.0, 2.0), ("--k1-grid", 0.0, 10.0),
                                            ("--b-grid", 0.0, 1.0)])
def test_no_grid_reaches_the_bug_path_or_grows_unbounded(option, lo, hi):
    @FUZZ
    @given(grid_texts())
    def one(text: str) -> None:
        def parse() -> None:
            values = grids.parse_values(text, option, lo, hi, "values")
            assert 1 <= len(values) <= grids.MAX_POINTS
            assert all(lo <= v <= hi for v in values)
            grids.check_settings(values, values, values)

        _run(f"grid {option}", parse)

    one()
    assert COUNTS[f"grid {option}"] >= EXAMPLES


def test_no_url_reaches_the_bug_path_or_another_address():
    """Item 0's target over generated URLs: parsed to exactly the host and port written (443
    for https without one), or refused; the userinfo never in the message."""
    @FUZZ
    @given(URL_PARTS)
    def one(parts: tuple[str, str, str, str, str]) -> None:
        scheme, userinfo, host, port, tail = parts
        text = f"{scheme}://{userinfo + '@' if userinfo else ''}{host}{port}{tail}"
        COUNTS["url"] += 1
        try:
            parsed = parse_url(text)
        except QidfError as exc:
            REFUSED["url"] += 1
            if len(userinfo) >= 4:
                assert userinfo not in str(exc)
            return
        written = text.split("://", 1)[1].rpartition("@")[2]
        assert parsed.host == host.strip("[]").lower()
        assert parsed.port == (int(port[1:]) if port[1:] else 443)
        assert 1 <= parsed.port <= 65535 and written.startswith(host)

    one()
    assert COUNTS["url"] >= EXAMPLES


def teardown_module() -> None:
    report = os.environ.get("QIDF_FUZZ_REPORT")
    if report and COUNTS:
        Path(report).parent.mkdir(parents=True, exist_ok=True)
        Path(report).write_text(json.dumps({
            "command": "QIDF_FUZZ_EXAMPLES=1000 QIDF_FUZZ_REPORT=benchmarks/inputs/fuzz.json "
                       ".venv/bin/pytest tests/unit/test_input_fuzz.py",
            "examples_per_reader": EXAMPLES, "inputs": dict(sorted(COUNTS.items())),
            "refused_with_a_usage_error": dict(sorted(REFUSED.items())),
            "bug_path": dict(BUGS), "bug_path_total": sum(BUGS.values())}, indent=1) + "\n")


# --- the command line itself ----------------------------------------------------------------
COMMANDS = ["render", "show idx", "stats idx", "predict idx", "apply idx", "revert idx",
            "search idx text", "eval idx", "sweep idx", "check", "check idx", "plan",
            "recover idx"]
OPTIONS = ["--q", "--k1", "--b", "--form", "--mode", "--strategy", "--field", "--sample",
           "--seed", "--depth", "--budget", "--resamples", "--max-queries", "--grid",
           "--k1-grid", "--b-grid", "--reference", "--queries", "--qrels", "--baseline",
           "--predictor", "--engine", "--size", "--shard", "--stats", "--filter", "--user",
           "--password", "--api-key", "--bearer-token", "--timeout", "--retries", "--proxy",
           "--ssl-assert-fingerprint", "--file", "--priority", "--pattern", "--format",
           "--json", "--dry-run", "--exact", "--query-time", "--allow-hidden", "--force",
           "--token-counter", "--minimum-should-match", "--password-file", "--ca-certs"]
VALUES = [*NUMBERS, *WORDS, "auto", "none", "script", "plugin", "clone", "close", "lucene",
          "rsj", "opensearch-2.19.6", "solr-1", "/dev/null", "/nonexistent", "/", "{", "{}",
          "[" * 3000, "{\"a\": NaN}",
          '{"term": {"a": 1}}', "0:2:0.1", "0,1", "-", "--", "http://127.0.0.1:0", "x" * 300]


def test_no_command_line_reaches_the_bug_path(capsys, monkeypatch):
    """Commands with any mix of their options and hostile values, the cluster unreachable
    (a refused port: no request gets further, and none goes anywhere else): a documented
    exit code and never "unexpected" or a traceback."""
    from qidf_ctl.errors import EXIT_CODES
    from tests.support import fast_cli
    from tests.unit.test_cli import run

    fast_cli.install(monkeypatch)
    monkeypatch.setenv("QIDF_RETRIES", "0")
    for name in ("QIDF_URL", "QIDF_FILE", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    examples = max(EXAMPLES // 2, 50)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(COMMANDS), st.lists(st.tuples(
        st.sampled_from(OPTIONS), st.sampled_from(VALUES) | st.text(max_size=12)), max_size=5))
    def one(command: str, pairs: list[tuple[str, str]]) -> None:
        argv = [*command.split(), *(x for pair in pairs for x in pair),
                "--url", "http://127.0.0.1:1"]
        COUNTS["command line"] += 1
        code, out, err = run(argv, capsys, monkeypatch)
        if code not in EXIT_CODES or "a qidf bug" in err or "Traceback" in out + err:
            BUGS["command line"] += 1
            raise AssertionError((argv, code, err[-300:]))

    one()
    assert COUNTS["command line"] >= examples
