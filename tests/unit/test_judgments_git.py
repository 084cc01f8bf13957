"""``qidf judgments git``: the history reader, the message cleaner, the filters, today's names,
the split and the folder, on a repository each test builds with ``git init`` and a few
commits (renames, a merge, trailers, a bulk commit, a docs-only commit), its bare clone and a
shallow clone; paths are matched against a fake index that answers like the engine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from qidf_ctl import cli
from qidf_ctl.errors import UsageError
from qidf_ctl.evaluation.files import read_qrels, read_queries
from qidf_ctl.judgments import GitOptions, Rules, filters, history, judgments_from_git
from qidf_ctl.judgments.folder import read_folder, write_folder
from qidf_ctl.judgments.matching import SCAN, TERMS, path_field
from qidf_ctl.judgments.messages import clean_message, word_count
from qidf_ctl.judgments.split import time_split
from tests.support.git_history import DAY, T0, build_history


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_history(tmp_path_factory.mktemp("history") / "work")


# --- the history reader ------------------------------------------------------------------


def test_history_reads_every_commit_with_its_files_renames_and_merges(repo):
    commits = list(history.read_commits(history.open_repository(repo)))
    assert len(commits) == 15
    assert commits[0].message.startswith("Remove the old helper")
    merges = [c for c in commits if c.is_merge]
    assert len(merges) == 1 and merges[0].changes == ()
    renamed = next(c for c in commits if c.message.startswith("Rename the lexer"))
    assert [(ch.status, ch.path, ch.old_path) for ch in renamed.changes] == [
        ("R", "src/scanner.go", "src/lexer.go")]
    trailers = next(c for c in commits if c.message.startswith("Parser calls"))
    assert "Signed-off-by" in trailers.message  # the reader keeps the message whole
    assert trailers.time == T0 + DAY


def test_a_bare_clone_reads_the_same_history(repo, tmp_path):
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    opened = history.open_repository(bare)
    assert opened.bare
    assert [c.sha for c in history.read_commits(opened)] == [
        c.sha for c in history.read_commits(history.open_repository(repo))]


def test_a_shallow_clone_is_refused_with_one_line(repo, tmp_path):
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow)],
                   check=True)
    with pytest.raises(UsageError, match=r"shallow clone.*--unshallow"):
        history.open_repository(shallow)


def test_a_folder_that_is_not_a_repository_is_refused(tmp_path):
    with pytest.raises(UsageError, match="not a git repository"):
        history.open_repository(tmp_path)
    with pytest.raises(UsageError, match="no such file or folder"):
        history.open_repository(tmp_path / "missing")


def test_a_range_and_dates_select_commits(repo):
    opened = history.open_repository(repo)
    since = history.parse_day("2023-11-20", "--since")  # T0 is 2023-11-14
    recent = list(history.read_commits(opened, since=since))
    assert recent and all(c.time >= since.timestamp() for c in recent)
    assert history.count_commits(opened, since=since) == len(recent)
    with pytest.raises(UsageError, match="not a commit"):
        history.check_range(opened, "nosuchref..main")
    with pytest.raises(UsageError, match="--range takes"):
        history.check_range(opened, "--output=/tmp/x")
    with pytest.raises(UsageError, match="ISO date"):
        history.parse_day("2 weeks ago", "--since")


def test_the_parser_stops_git_when_the_caller_stops(repo):
    stream = history.read_commits(history.open_repository(repo))
    first = next(stream)
    stream.close()
    assert first.sha


# --- messages ----------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "cleaned"), [
    ("Fix the lexer (#123)\n\nSigned-off-by: A <a@b.org>\nCo-authored-by: B <b@c.org>",
     "Fix the lexer"),
    ('Revert "Add fast path to parser"\n\nThis reverts commit 0123456789abcdef0123.',
     "Add fast path to parser"),
    ("Merge pull request #42 from someone/branch\n\nHandle empty input in reader",
     "Handle empty input in reader"),
    ("Fixes #77: parse negative numbers. See https://github.com/o/r/issues/77",
     ": parse negative numbers. See"),
    ("cargo: resolve features GH-1234 and rust-lang/cargo#99 [skip ci]",
     "cargo: resolve features and"),
    ("Handle CRLF\r\n\r\n(cherry picked from commit abcdef1234567)\r\n", "Handle CRLF"),
    ("- bullet one\n- bullet two\n\nReviewed-on: https://review.example/1\nChange-Id: I12ab",
     "bullet one bullet two"),
    ("Use 0.5 instead of deadbeef1 for the seed", "Use 0.5 instead of for the seed"),
    ("Note the contract of Read\n\nSee also the io docs.", "Note the contract of Read See "
     "also the io docs."),
])
def test_messages_lose_trailers_references_urls_and_boilerplate(message, cleaned):
    assert clean_message(message) == cleaned


def test_subject_only_and_word_count():
    assert clean_message("Subject line here\n\nA long body.", subject_only=True) == \
        "Subject line here"
    assert word_count("fix typo") == 2
    assert word_count("wip") == 1
    assert word_count("v2 x") == 1


# --- filters -----------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "kind"), [
    ("src/parser.go", "code"), ("src/parser_test.go", "test"), ("tests/x.rs", "test"),
    ("pkg/testdata/a.go", "test"), ("app/FooTest.java", "test"), ("ui/a.spec.ts", "test"),
    ("test_x.py", "test"), ("docs/a.go", "docs"), ("README", "docs"), ("NOTES.md", "docs"),
    ("vendor/github.com/x/y.go", "vendored"), ("third_party/z.c", "vendored"),
    ("api/x.pb.go", "generated"), ("k8s/zz_generated.deepcopy.go", "generated"),
    ("web/app.min.js", "generated"), ("Cargo.lock", "lock"), ("go.sum", "lock"),
    ("src/testing/testing.go", "code"), ("src/lockfile.go", "code"),
])
def test_paths_are_classified_by_folders_and_names(path, kind):
    assert filters.kind_of(path) == kind


@pytest.mark.parametrize(("message", "release"), [
    ("Release v1.2.0", True), ("v1.2.3", True), ("1.2.3-rc.1", True),
    ("Bump version to 0.4", True), ("chore(release): 2.0.0", True),
    ("Bump serde from 1.0.1 to 1.0.2", True), ("chore(deps): bump tokio", True),
    ("Prepare release 3.1", True), ("version bump", True),
    ("Release lock before parsing", False), ("Fix version parsing in manifest", False),
    ("Bump the stack size of the parser thread", False),
])
def test_release_commits_are_recognised_by_their_subject(message, release):
    assert filters.is_release(message) is release


# --- renames, split ----------------------------------------------------------------------


def test_time_split_older_choose_newer_report():
    split = time_split([("c", 3), ("a", 1), ("b", 2), ("d", 4)], 0.5)
    assert split.older == ("a", "b") and split.newer == ("c", "d") and split.cut_time == 3
    assert time_split([("a", 1), ("b", 2)], 1.0).newer == ()
    assert time_split([("a", 1), ("b", 2), ("c", 3)], 0.1).older == ("a",)
    with pytest.raises(UsageError, match="--split"):
        time_split([("a", 1)], 0.0)


# --- the whole path against a fake index -------------------------------------------------


class PathIndex:
    """Answers ``_field_caps``, ``terms`` searches with doc values, ``_count`` and scrolls over
    documents whose path field holds the given paths, like the engine."""

    def __init__(self, paths: dict[str, str], kind: str = "keyword", sub: bool = False):
        self.docs = paths  # id -> path
        self.kind, self.sub = kind, sub
        self.requests: list[tuple[str, str, Any]] = []

    def request(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.requests.append((method, path, body))
        if path.endswith("/_field_caps"):
            fields = {"path": {self.kind: {"type": self.kind}}, "body": {"text": {}},
                      "size": {"long": {}}}
            if self.sub:
                fields["path.keyword"] = {"keyword": {}}
            return {"fields": fields}
        if path.endswith("/_count"):
            return {"count": len(self.docs)}
        if path == "/_search/scroll":
            return {"_scroll_id": "s", "hits": {"hits": []}}
        if method == "DELETE":
            return {}
        query = body["query"]
        if "terms" in query:
            (name, wanted), = query["terms"].items()
            hits = [{"_id": i, "fields": {name: [p]}} for i, p in self.docs.items()
                    if p in wanted]
            return {"hits": {"total": {"value": len(hits)}, "hits": hits}}
        hits = [{"_id": i, "_source": {"path": p}, "fields": {"path": [p]}}
                for i, p in self.docs.items()]
        return {"_scroll_id": "s", "hits": {"total": {"value": len(hits)},
                                            "hits": hits[:body.get("size", 10)]}}


TODAY = {"d-parser": "src/parser.go", "d-scanner": "src/scanner.go", "d-readme": "README.md",
         "d-guide": "docs/guide.md"}


def _judge(repo: Path, index: PathIndex, **kw: Any):
    options = GitOptions(rules=Rules(max_files=5), **kw)
    return judgments_from_git(index, str(repo), "code", "path", options)  # type: ignore[arg-type]


def test_judgments_from_the_history_count_every_skip(repo):
    found = _judge(repo, PathIndex(TODAY))
    counts = found.manifest["counts"]
    skipped = counts["skipped"]
    assert counts["commits_read"] == 15
    assert skipped["merge"] == 1 and skipped["bulk"] == 1 and skipped["only_docs"] == 1
    assert skipped["release"] == 2 and skipped["short_message"] == 1
    # Only added files (the initial import, the helper's addition) or only deleted ones (its
    # removal): no file that existed before and after the commit.
    assert skipped["no_answer"] == 3
    assert skipped["no_files"] == 1
    # The helper's modification: the file was deleted by a later commit.
    assert skipped["not_in_index"] == 1
    assert counts["answer_files"]["deleted_since"] == 1
    messages = sorted(found.queries.values())
    assert messages == sorted([
        "Parser calls the lexer for every token The parser now tokenizes lazily. See",
        "Speed up the lexer's identifier scanning", "Rename the lexer to scanner everywhere",
        "Scanner handles unicode identifiers in names"])
    by_text = {t: found.qrels[q] for q, t in found.queries.items()}
    # lexer.go was renamed to scanner.go later: the older commit's answer is today's file.
    assert by_text["Speed up the lexer's identifier scanning"] == {"d-scanner": 1}
    assert counts["answer_files"]["via_rename"] == 1
    assert found.manifest["index"]["matched_by"] == TERMS
    assert len(found.older) == 2 and len(found.newer) == 2
    older_times = [found.metadata[q]["time"] for q in found.older]
    newer_times = [found.metadata[q]["time"] for q in found.newer]
    assert max(older_times) < min(newer_times)


def test_max_keeps_the_newest_judged_commits(repo):
    found = _judge(repo, PathIndex(TODAY), max_queries=1)
    assert list(found.queries.values()) == ["Scanner handles unicode identifiers in names"]


def test_a_text_path_field_is_scanned_and_a_keyword_sub_field_looked_up(repo):
    index = PathIndex(TODAY, kind="text")
    assert path_field(index, "code", "path").strategy == SCAN  # type: ignore[arg-type]
    found = _judge(repo, index)
    assert found.manifest["index"]["matched_by"] == SCAN and len(found.queries) == 4
    sub = PathIndex(TODAY, kind="text", sub=True)
    pf = path_field(sub, "code", "path")  # type: ignore[arg-type]
    assert (pf.strategy, pf.field) == (TERMS, "path.keyword")


def test_a_path_field_that_matches_nothing_is_one_usage_error(repo):
    with pytest.raises(UsageError, match=r"no file changed.*such as 'project/src/parser.go'"):
        _judge(repo, PathIndex({"x": "project/src/parser.go"}))
    found = _judge(repo, PathIndex({"x": "project/src/parser.go"}), path_prefix="project/")
    assert list(found.queries.values()) == [  # parser.go's only judged commit
        "Parser calls the lexer for every token The parser now tokenizes lazily. See"]
    with pytest.raises(UsageError, match="is not a field"):
        judgments_from_git(PathIndex(TODAY), str(repo), "code", "nope")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="is a long field"):
        judgments_from_git(PathIndex(TODAY), str(repo), "code", "size")  # type: ignore[arg-type]


def test_the_folder_round_trips_and_the_evaluation_readers_read_it(repo, tmp_path):
    found = _judge(repo, PathIndex(TODAY))
    write_folder(tmp_path / "j", found)
    assert read_queries(tmp_path / "j" / "queries.jsonl") == found.queries
    assert read_qrels(tmp_path / "j" / "qrels.tsv") == found.qrels
    assert set(read_qrels(tmp_path / "j" / "older.qrels.tsv")) == set(found.older)
    back = read_folder(tmp_path / "j")
    assert back.older == found.older and back.newer == found.newer
    assert list(back.queries) == [*found.older, *found.newer]  # oldest first
    assert back.describe()["split"]["older_queries"] == 2
    manifest = json.loads((tmp_path / "j" / "judgments.json").read_text())
    assert manifest["source"] == "git" and manifest["format"] == 1
    with pytest.raises(UsageError, match=r"holds no judgments\.json"):
        read_folder(tmp_path)


def test_the_cli_refuses_bad_input_with_exit_2_and_writes_nothing(repo, tmp_path):
    runner = CliRunner()
    out = tmp_path / "out"
    for args, words in (
            ([str(tmp_path)], "not a git repository"),
            ([str(repo), "--since", "yesterday"], "ISO date"),
            ([str(repo), "--split", "1.5"], "--split"),
    ):
        result = runner.invoke(cli.app, ["judgments", "git", *args, "--index", "code",
                                         "--path-field", "path", "--out", str(out),
                                         "--url", "http://127.0.0.1:9"])
        assert result.exit_code == 2, result.output
        assert words in result.output and "Traceback" not in result.output
        assert not out.exists()
