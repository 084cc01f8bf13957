"""The file-localization builders on a tiny repository the test makes with ``git init``:
the corpus from a commit's tree, the history reader and message cleaning of the judgments
stand-in, the time split, the pinned snapshot, and the report's recovery rule."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from qidf_research.filetasks import corpus, judgments, pin, report, split, standin_judgments
from qidf_research.filetasks.curves import Curves
from qidf_research.filetasks.decisions import guarded
from qidf_research.filetasks.sources import Source


def _git(repo: Path, *args: str, when: int = 1_700_000_000) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def _commit(repo: Path, files: dict[str, bytes | None], message: str, when: int) -> str:
    for path, data in files.items():
        target = repo / path
        if data is None:
            _git(repo, "rm", "-q", path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        _git(repo, "add", path)
    _git(repo, "commit", "-q", "-m", message, when=when)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "work"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    _commit(r, {"src/server.go": b"package server\nfunc handleUpgrade() {}\n",
                "README.md": b"# demo\n"}, "server: add the upgrade handler", 1_700_000_000)
    _commit(r, {"src/client.go": b"package client\nfunc dial() {}\n",
                "vendor/lib/x.go": b"package x\n", "logo.png": b"\x89PNG\0\0\0binary",
                "empty.txt": b"", "web/app.min.js": b"var a=1;"},
            "client: dial the server (#123)\n\nSee https://example.org/issue/9 for more.\n\n"
            "Signed-off-by: Someone <s@example.org>", 1_700_000_100)
    _commit(r, {"docs/guide.md": b"guide\n"}, "docs: write the guide", 1_700_000_200)
    _commit(r, {"src/server.go": b"package server\nfunc handleUpgrade() { dial() }\n",
                "src/client.go": None}, "server: call dial directly", 1_700_000_300)
    _git(r, "mv", "src/server.go", "src/srv.go")
    _git(r, "commit", "-q", "-m", "Release 1.2.0", when=1_700_000_400)
    return r


def test_corpus_keeps_text_files_and_counts_what_it_leaves_out(repo: Path) -> None:
    built = corpus.build(repo, _git(repo, "rev-parse", "HEAD~1"))
    assert sorted(built.docs) == ["README.md", "docs/guide.md", "src/server.go"]
    assert built.skipped == {"binary": 1, "empty": 1, "vendored": 1, "generated": 1}
    assert built.tree_files == 7
    assert "dial()" in built.docs["src/server.go"]


def test_corpus_size_cap(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus, "MAX_BYTES", 20)
    built = corpus.build(repo, "HEAD")
    assert built.skipped["over_size_cap"] == 1  # src/srv.go (client.go is deleted by then)
    assert "src/srv.go" not in built.docs


def test_corpus_round_trip(repo: Path, tmp_path: Path) -> None:
    built = corpus.build(repo, "HEAD")
    corpus.write(built, tmp_path / "task")
    assert corpus.read(tmp_path / "task") == built.docs
    manifest = json.loads((tmp_path / "task" / "corpus-manifest.json").read_text())
    assert manifest["documents"] == len(built.docs)


def test_history_reader_follows_renames_and_drops_deletions(repo: Path) -> None:
    log = list(standin_judgments.read_log(repo))
    assert [c.message.split("\n")[0] for c in log] == [
        "Release 1.2.0", "server: call dial directly", "docs: write the guide",
        "client: dial the server (#123)", "server: add the upgrade handler"]
    assert log[0].changed == ["src/srv.go"]  # renamed: the new path
    assert log[1].changed == ["src/server.go"]  # src/client.go was deleted
    assert log[1].time == 1_700_000_300


def test_messages_lose_trailers_references_and_urls() -> None:
    text = standin_judgments.clean_message(
        "client: dial the server (#123)\n\nSee https://example.org/x for more, fixes #9.\n\n"
        "Signed-off-by: A <a@b.c>\nCo-authored-by: B <b@c.d>\n")
    assert text == "client: dial the server\n\nSee for more, fixes ."
    assert standin_judgments.clean_message("io: add fill_buf") == "io: add fill_buf"


def test_skip_rules(repo: Path) -> None:
    log = {c.message.split("\n")[0]: c for c in standin_judgments.read_log(repo)}

    def reason(subject: str) -> str | None:
        c = log[subject]
        return standin_judgments.skip_reason(c, standin_judgments.clean_message(c.message))

    assert reason("Release 1.2.0") == "release_or_bump"
    assert reason("docs: write the guide") == "tests_docs_vendored_only"
    assert reason("server: call dial directly") is None
    many = standin_judgments.Commit("x", 0, "refactor everything",
                                    [f"f{i}.go" for i in range(60)])
    assert standin_judgments.skip_reason(many, many.message) == "bulk"


def test_time_split_is_deterministic() -> None:
    times = {"c": 3, "a": 1, "b": 1, "d": 4, "e": 5}
    s = split.halves(times)
    assert s.older == ("a", "b") and s.newer == ("c", "d", "e") and s.cut_time == 3
    assert split.latest(s, 1) == ("b",)
    with pytest.raises(ValueError):
        split.halves({"a": 1})


def test_judgments_read_times_from_metadata_or_git(repo: Path, tmp_path: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    first = _git(repo, "rev-list", "--max-parents=0", "HEAD")
    folder = tmp_path / "j"
    folder.mkdir()
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": head, "text": "a", "metadata": {"time": 5}}) + "\n"
        + json.dumps({"_id": first, "text": "b"}) + "\n")
    (folder / "qrels.tsv").write_text(f"query-id\tcorpus-id\tscore\n{head}\tsrc/srv.go\t1\n"
                                      f"{first}\tsrc/server.go\t1\n")
    got = judgments.read(folder, repo)
    assert got.times == {head: 5, first: 1_700_000_000}
    assert got.qrels[first] == {"src/server.go": 1}


def test_pin_points_head_at_the_snapshot(repo: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(mirrors / "o+n" / "repo")],
                   check=True)
    monkeypatch.setattr("qidf_research.filetasks.sources.MIRRORS", mirrors)
    snapshot = _git(repo, "rev-parse", "HEAD~2")
    src = Source("n", "o/n", "Go", "Go", snapshot, "", "MIT")
    pinned = pin.pinned(src, tmp_path / "pins")
    assert _git(pinned, "rev-parse", "HEAD") == snapshot
    assert len(list(standin_judgments.read_log(pinned))) == 3
    assert pin.pinned(src, tmp_path / "pins") == pinned  # idempotent


def test_guard_and_recovery() -> None:
    ids = [f"q{i}" for i in range(40)]
    per_query = {"baseline": dict.fromkeys(ids, 0.5), "1": dict.fromkeys(ids, 0.5),
                 "0.6": {q: 0.5 + (0.1 if i % 4 else -0.05) for i, q in enumerate(ids)}}
    curves = Curves("content", "BM25", per_query)
    assert guarded(curves, ids, 1.0, "BM25")["q"] == 0.6
    r = {"oracle": {"newer": {"q": 0.6}}, "newer": {
        "0.6": {"NDCG@10": {"mean": 0.56, "delta": 0.06, "p": 0.001}},
        "0.8": {"NDCG@10": {"mean": 0.53, "delta": 0.03, "p": 0.2}},
        "1": {"NDCG@10": {"mean": 0.5, "delta": 0.0, "p": None}}}}
    assert report.recovery(r, 0.8) == pytest.approx(0.5)
    r["newer"]["0.6"]["NDCG@10"]["p"] = 0.2
    assert report.recovery(r, 0.8) is None
