"""``qidf mcp --record``: searches become UBI queries with their hits as impressions, fetches
become events on the search that showed the document, nothing else is written (no text, no
secret), a failing sink never fails the tool, and ``qidf judgments ubi`` reads it back."""

from __future__ import annotations

import json

import pytest

from qidf_ctl.agents.recorder import (
    FileSink,
    Recorder,
    Sink,
    check_dest,
)
from qidf_ctl.agents.retrieval import Hit, SearchResult
from qidf_ctl.cluster.redact import register_secret
from qidf_ctl.errors import UsageError
from qidf_ctl.judgments import source as sources
from qidf_ctl.judgments.from_ubi import query_id


def result(index: str, ids: list[str]) -> SearchResult:
    hits = [Hit(rank, doc, 10.0 - rank, 100, f"SECRET TEXT OF {doc}", {"path": f"{doc}.go"})
            for rank, doc in enumerate(ids, 1)]
    return SearchResult(index, "query-time", 0.3, 8000, 100 * len(ids), "no more hits",
                        None, hits)


def test_searches_and_fetches_round_trip_into_judgments(tmp_path):
    log = tmp_path / "agent.ndjson"
    recorder = Recorder(FileSink(log))
    recorder.searched("code", "func ParseFlags(args []string)", result("code", ["a", "b", "c"]))
    recorder.fetched("code", "b")
    recorder.searched("code", "open a file for writing", result("code", ["d", "e"]))
    recorder.fetched("code", "e")
    recorder.fetched("code", "b")  # shown by the first search: the event goes there
    recorder.fetched("code", "zzz")  # never shown: the latest search, no rank
    recorder.fetched("other", "x")  # no search of that index yet: nothing
    recorder.close()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    actions, docs = lines[0::2], lines[1::2]
    assert all(next(iter(a)) == "index" for a in actions)
    assert "SECRET TEXT" not in log.read_text() and ".go" not in log.read_text()
    queries = [d for a, d in zip(actions, docs, strict=True)
               if a["index"]["_index"] == "ubi_queries"]
    assert [q["query_response_hit_ids"] for q in queries] == [["a", "b", "c"], ["d", "e"]]
    fetches = [d for d in docs if d.get("action_name") == "fetch"]
    assert [(f["query_id"], f["event_attributes"]["object"]["object_id"],
             f["event_attributes"].get("position")) for f in fetches] == [
        (queries[0]["query_id"], "b", {"ordinal": 1}),
        (queries[1]["query_id"], "e", {"ordinal": 1}),
        (queries[0]["query_id"], "b", {"ordinal": 1}),
        (queries[1]["query_id"], "zzz", None)]
    assert len({d.get("session_id") for d in docs if "action_name" in d}) == 1
    found = sources.load(sources.parse_source(str(log)))
    first = query_id("func parseflags(args []string)")
    assert found.qrels[first] == {"a": 0, "b": 2, "c": 0}
    assert found.manifest["counts"]["skipped"]["clicks_without_rank"] == 1  # zzz, unseen


def test_the_query_text_is_redacted_and_a_failing_sink_only_warns(tmp_path):
    register_secret("hunter2-secret")
    recorder = Recorder(FileSink(tmp_path / "r.ndjson"))
    recorder.searched("code", "token hunter2-secret leaks", result("code", ["a"]))
    recorder.close()
    assert "hunter2-secret" not in (tmp_path / "r.ndjson").read_text()

    class Broken(Sink):
        def write(self, docs):
            raise OSError("disk full")

        def describe(self):
            return "a broken sink"

    warnings: list[str] = []
    broken = Recorder(Broken(), warn=warnings.append)
    broken.searched("code", "x", result("code", ["a"]))
    broken.fetched("code", "a")
    assert len(warnings) == 1 and "disk full" in warnings[0]


def test_bad_destinations_are_refused_before_anything_connects(tmp_path):
    for dest, words in (("", "empty"), ("ubi:mine", "names are fixed"),
                        (str(tmp_path), "is a folder"),
                        (str(tmp_path / "no" / "f.ndjson"), "does not exist")):
        with pytest.raises(UsageError, match=words):
            check_dest(dest)
    assert check_dest("ubi:") == "ubi:"
