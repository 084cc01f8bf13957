"""The file-localization builders on a tiny repository the test makes with ``git init``:
the corpus from a commit's tree (the product's path rules), the judgments folder read back
with its split, the pinned snapshot, the guard over curves and the report's recovery rule."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from qidf_research.filetasks import corpus, judgments, pin, report, split
from qidf_research.filetasks.curves import Curves
from qidf_research.filetasks.decisions import guarded
from qidf_research.filetasks.sources import Source

from qidf_ctl.judgments import Judgments, write_folder


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
    _commit(r, {"doc/guide.md": b"guide\n"}, "docs: write the guide", 1_700_000_200)
    _commit(r, {"src/server.go": b"package server\nfunc handleUpgrade() { dial() }\n",
                "src/client.go": None}, "server: call dial directly", 1_700_000_300)
    _git(r, "mv", "src/server.go", "src/srv.go")
    _git(r, "commit", "-q", "-m", "Release 1.2.0", when=1_700_000_400)
    return r


def test_corpus_keeps_text_files_and_counts_what_it_leaves_out(repo: Path) -> None:
    built = corpus.build(repo, _git(repo, "rev-parse", "HEAD~1"))
    assert sorted(built.docs) == ["README.md", "doc/guide.md", "src/server.go"]
    assert built.skipped == {"binary": 1, "empty": 1, "vendored": 1, "generated": 1}
    assert corpus.build(repo, "HEAD~1").docs == built.docs
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


def test_lock_files_stay_out(tmp_path: Path) -> None:
    r = tmp_path / "locks"
    r.mkdir()
    _git(r, "init", "-q", "-b", "main")
    _commit(r, {"Cargo.lock": b"[[package]]\n", "src/lib.rs": b"pub fn f() {}\n"}, "init", 1)
    built = corpus.build(r, "HEAD")
    assert list(built.docs) == ["src/lib.rs"] and built.skipped == {"lock": 1}


def _folder(tmp_path: Path, times: dict[str, int], older: list[str]) -> Path:
    stamp = "2023-11-14T22:13:{:02d}+00:00"
    found = Judgments(
        {q: f"message {q}" for q in times}, {q: {f"src/{q}.go": 1} for q in times},
        older, [q for q in times if q not in older], {"source": "git"},
        {q: {"commit": q, "time": stamp.format(t)} for q, t in times.items()})
    write_folder(tmp_path / "j", found)
    return tmp_path / "j"


def test_the_commands_split_is_kept_in_time_order(tmp_path: Path) -> None:
    found = judgments.read(_folder(tmp_path, {"c": 3, "a": 1, "b": 2, "d": 4, "e": 5},
                                   ["b", "a"]))
    s = split.of(found)
    assert s.older == ("a", "b") and s.newer == ("c", "d", "e")
    assert s.newer_from.startswith("2023-11-14T22:13:03")
    assert split.latest(s, 1) == ("b",)
    assert found.qrels["a"] == {"src/a.go": 1}


def test_a_split_without_a_newer_half_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="both halves"):
        split.of(judgments.read(_folder(tmp_path, {"a": 1, "b": 2}, ["a", "b"])))


def test_the_judgments_command_line() -> None:
    argv = judgments.command(Path("/r.git"), "idx", "path", Path("/out"), max_n=10)
    assert argv[1:] == ["-m", "qidf_ctl", "judgments", "git", "/r.git", "--index", "idx",
                        "--path-field", "path", "--out", "/out", "--max", "10", "--json"]


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
    assert _git(pinned, "rev-list", "--count", "HEAD") == "3"
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
