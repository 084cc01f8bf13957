"""``qidf judgments ubi``: UBI documents in every exported shape, malformed ones refused with
the file and line, the position-based click model recovering attractiveness and examination
from clicks it generated, the evidence rules and grades, and the folder it writes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from qidf_ctl import cli
from qidf_ctl.errors import NotFoundError, UsageError
from qidf_ctl.judgments import clickmodel, ubi
from qidf_ctl.judgments.folder import read_folder
from qidf_ctl.judgments.from_ubi import UbiOptions, grade, judgments_from_log, query_id
from qidf_ctl.judgments.source import CLUSTER_UBI, FOLDER, UBI_FILES, parse_source


def query(qid: str, text: str, hits: list[str] | None = None, ts: str = "2026-01-01T00:00:00Z"
          ) -> dict:
    doc = {"query_id": qid, "user_query": text, "timestamp": ts, "client_id": "c"}
    if hits is not None:
        doc["query_response_hit_ids"] = hits
    return doc


def event(qid: str, action: str, doc: str, ordinal: int | None = None, **extra) -> dict:
    attributes: dict = {"object": {"object_id": doc, "object_id_field": "_id"}}
    if ordinal is not None:
        attributes["position"] = {"ordinal": ordinal}
    return {"query_id": qid, "action_name": action, "timestamp": "2026-01-01T00:00:01Z",
            "client_id": "c", "event_attributes": attributes, **extra}


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def bulk(rows: list[tuple[str, dict]]) -> list:
    out: list = []
    for index, doc in rows:
        out += [{"index": {"_index": index}}, doc]
    return out


def read(path: Path, **kw) -> ubi.Log:
    log = ubi.Log(**kw)
    ubi.read_files(path, log)
    return log


# --- reading ---------------------------------------------------------------------------


def test_bulk_ndjson_with_hit_lists_and_clicks(tmp_path):
    path = write_lines(tmp_path / "log.ndjson", bulk([
        ("ubi_queries", query("q1", "parse flags", ["d1", "d2", "d3"])),
        ("ubi_events", event("q1", "click", "d2", 1)),
        ("ubi_events", event("q1", "hover", "d3", 2)),
    ]))
    log = read(path)
    session = log.sessions["q1"]
    assert session.shown() == ["d1", "d2", "d3"] and session.clicked == {"d2": 2}
    assert log.counts.as_dict() == {"queries": 1, "events": 2, "impressions": 0, "clicks": 1,
                                    "other_actions": 1, "events_without_query": 0,
                                    "other_application": 0}


def test_a_folder_of_plain_lines_and_search_hits_with_impression_events(tmp_path):
    folder = tmp_path / "ubi"
    folder.mkdir()
    write_lines(folder / "ubi_queries.jsonl", [query("q1", "Parse  Flags")])
    write_lines(folder / "ubi_events.jsonl", [
        {"_index": "ubi_events", "_id": "e1", "_source": event("q1", "impression", "d9", 0)},
        event("q1", "impression", "d8", 1), event("q1", "click", "d8", 1),
        {"action_name": "click", "event_attributes": {"object": {"object_id": "x"}}}])
    log = read(folder)
    assert log.sessions["q1"].shown() == ["d9", "d8"]
    assert log.counts.events_without_query == 1
    assert log.counts.impressions == 2


@pytest.mark.parametrize(("line", "words"), [
    ("{not json", "line 2: not valid JSON"),
    ('["a"]', "line 2: expected a UBI query or event"),
    ('{"action_name": "click", "query_id": "q1"}', 'line 2: a click event needs "event_'),
    ('{"action_name": "click", "query_id": "q1", "event_attributes": {"object": {}}}',
     "line 2: \"event_attributes.object.object_id\" must be"),
    ('{"action_name": "click", "query_id": "q1", "event_attributes": {"object": '
     '{"object_id": "d"}, "position": {"ordinal": -1}}}', "ordinal\" must be a whole number"),
    ('{"action_name": 3, "query_id": "q1"}', '"action_name" must be a string'),
    ('{"user_query": "x"}', 'line 2: no "query_id"'),
    ('{"query_id": "q2", "timestamp": "yesterday"}', '"timestamp" must be ISO 8601'),
    ('{"query_id": "q2", "query_response_hit_ids": {"a": 1}}', "must be a list"),
    ('{"action_name": "impression", "query_id": "q1", "event_attributes": {"object": '
     '{"object_id": "d"}}}', "an impression needs"),
])
def test_malformed_documents_are_one_error_with_file_and_line(tmp_path, line, words):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(query("q1", "x")) + "\n" + line + "\n")
    with pytest.raises(UsageError, match=r"UBI log .*log\.jsonl, line 2") as raised:
        read(path)
    assert words in str(raised.value)


def test_a_bulk_action_without_its_document_and_missing_logs(tmp_path):
    path = write_lines(tmp_path / "cut.ndjson", [{"index": {"_index": "ubi_events"}}])
    with pytest.raises(UsageError, match="_bulk action with no document"):
        read(path)
    with pytest.raises(NotFoundError):
        read(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="holds no"):
        read(tmp_path / "empty")


def test_application_filter_and_timestamps(tmp_path):
    path = write_lines(tmp_path / "log.jsonl", [
        {**query("q1", "a b c", ["d1"]), "application": "shop"},
        {**query("q2", "a b c", ["d1"], ts="1767225600000"), "application": "docs"}])
    log = read(path, application="docs")
    assert list(log.sessions) == ["q2"] and log.counts.other_application == 1
    assert log.sessions["q2"].time == 1767225600.0


def test_sources_parse(tmp_path):
    assert parse_source("ubi:").kind == CLUSTER_UBI
    assert parse_source("ubi:shop").application == "shop"
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "judgments.json").write_text("{}")
    assert parse_source(str(tmp_path / "j")).kind == FOLDER
    assert parse_source(str(tmp_path)).kind == UBI_FILES
    with pytest.raises(UsageError, match="no such file or folder"):
        parse_source(str(tmp_path / "nope"))


# --- the click model ---------------------------------------------------------------------


def simulate(alpha: dict[str, float], gamma: list[float], sessions: int, seed: int = 0):
    """Sessions of one query whose results are shown in a random order each time: clicks by
    the PBM itself, so the model must recover what generated them."""
    rng = random.Random(seed)
    docs = list(alpha)
    pairs = {d: i for i, d in enumerate(docs)}
    out = []
    for _ in range(sessions):
        order = docs[:]
        rng.shuffle(order)
        for rank, doc in enumerate(order, 1):
            clicked = rng.random() < gamma[rank - 1] * alpha[doc]
            out.append(clickmodel.Impression(pairs[doc], rank, clicked))
    return out, pairs


def test_em_recovers_attractiveness_and_examination_when_rankings_vary():
    alpha = {"a": 0.9, "b": 0.6, "c": 0.3, "d": 0.1, "e": 0.05}
    gamma = [1.0, 0.7, 0.5, 0.35, 0.25]
    impressions, pairs = simulate(alpha, gamma, 20_000)
    fitted = clickmodel.fit(impressions, len(pairs))
    scale = fitted.gamma[0]  # the model is identified up to one factor between the two
    for doc, a in alpha.items():
        assert fitted.alpha[pairs[doc]] * scale == pytest.approx(a, abs=0.03)
    assert np.allclose(fitted.gamma / scale, gamma, atol=0.04)


def test_a_click_deep_down_outweighs_one_at_the_top():
    # d1 shown at rank 1 in 10 searches, clicked twice; d2 at rank 8, clicked twice.
    impressions = [clickmodel.Impression(0, 1, i < 2) for i in range(10)]
    impressions += [clickmodel.Impression(1, 8, i < 2) for i in range(10)]
    fitted = clickmodel.fit(impressions, 2)
    assert fitted.alpha[1] > fitted.alpha[0] * 3
    assert grade(float(fitted.alpha[1])) == 2 and grade(float(fitted.alpha[0])) == 0


def test_grades_and_evidence_rules(tmp_path):
    rows = []
    for n in range(4):  # "read config" asked four times: d1 clicked every time at rank 1
        rows += [query(f"a{n}", "Read  config", ["d1", "d2"],
                       ts=f"2026-01-0{n + 1}T00:00:00Z"),
                 event(f"a{n}", "click", "d1", 0)]
    rows += [query("b", "write cache", ["d3", "d4"], ts="2026-02-01T00:00:00Z"),
             event("b", "click", "d4", 1)]
    rows += [query("c", "nothing clicked here", ["d5"], ts="2026-03-01T00:00:00Z")]
    rows += [query("d", "fetched unseen", [], ts="2026-03-02T00:00:00Z"),
             event("d", "fetch", "d7")]  # no rank: set aside
    log = read(write_lines(tmp_path / "log.jsonl", rows))
    found = judgments_from_log(log, "test")
    read_config, write_cache = query_id("read config"), query_id("write cache")
    assert found.qrels == {read_config: {"d1": 2, "d2": 0}, write_cache: {"d3": 0, "d4": 2}}
    assert found.queries[read_config] == "Read config"
    skipped = found.manifest["counts"]["skipped"]
    assert skipped["queries_without_attractive_result"] == 1
    assert skipped["clicks_without_rank"] == 1 and skipped["searches_without_results"] == 1
    assert found.older == [read_config] and found.newer == [write_cache]
    assert found.metadata[read_config]["sessions"] == 4
    strict = judgments_from_log(log, "test", UbiOptions(min_impressions=2))
    assert list(strict.qrels) == [read_config]
    assert strict.manifest["counts"]["skipped"]["pairs_below_min_impressions"] == 3
    with pytest.raises(UsageError, match="no query of test has a result clicked"):
        judgments_from_log(log, "test", UbiOptions(min_impressions=5))


def test_the_cli_writes_a_folder_and_refuses_malformed_logs_with_exit_2(tmp_path):
    rows = [query("a", "read config", ["d1", "d2"]), event("a", "click", "d1", 0),
            query("b", "write cache", ["d3"], ts="2026-02-01T00:00:00Z"),
            event("b", "click", "d3", 0)]
    log = write_lines(tmp_path / "log.jsonl", rows)
    out = tmp_path / "j"
    result = CliRunner().invoke(cli.app, ["judgments", "ubi", str(log), "--out", str(out),
                                          "--json"])
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    assert manifest["source"] == "ubi" and manifest["counts"]["judged_queries"] == 2
    assert read_folder(out).describe()["split"] == {
        "older_queries": 1, "newer_queries": 1, "by": "first search time",
        "older_share": 0.5, "newer_from": "2026-02-01T00:00:00+00:00"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(query("a", "x")) + "\n{\"action_name\": \"click\"}\n")
    refused = CliRunner().invoke(cli.app, ["judgments", "ubi", str(bad), "--out",
                                           str(tmp_path / "none")])
    assert refused.exit_code == 2
    assert "bad.jsonl, line 2" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "none").exists()
