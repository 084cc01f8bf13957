"""TEMPORARY stand-in for ``qidf judgments git`` (issue 32 item 1, branch i32-judgments),
with the same interface, so that the benchmark's pipeline is built around the product's
command and switches to it by one line (``judgments.command``). Delete this module once the
command exists.

    python -m qidf_research.filetasks.standin_judgments git REPO --index INDEX \
        --path-field FIELD --out DIR [--since DATE] [--until DATE] [--max N] [--url URL]

It writes ``DIR/queries.jsonl`` (BEIR: ``_id`` the commit, ``text`` the cleaned message,
``metadata.time`` the committer time) and ``DIR/qrels.tsv`` (BEIR TSV: the changed files that
the index holds, matched by the path field), and ``DIR/summary.json`` with every skip
counted. The rules are the issue's: merges, bulk commits (more than ``MAX_FILES`` files),
release and dependency-bump commits, and commits touching only tests, docs, vendored or
generated files are skipped; trailers, PR/issue numbers and URLs leave the message.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_research.filetasks import pathrules
from qidf_research.filetasks.gitio import git

MAX_FILES = 50
_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)+:\s+\S")  # Key-Word: value
_KNOWN_TRAILERS = re.compile(
    r"^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|helped-by|"
    r"suggested-by|cc|change-id|reviewed-on|fixes|closes|resolves|refs|see-also|mentored-by|"
    r"original-commit|backport-of|pr-url|bug|thanks-to|requested-by|based-on-patch-by|"
    r"improved-by|noticed-by|inspired-by|dependabot|updated-dependencies|dependency-name|"
    r"dependency-type|update-type|dependency-version)\s*:", re.IGNORECASE)
_URL = re.compile(r"https?://\S+|www\.\S+")
_REFS = re.compile(r"\(\s*(#\d+\s*,?\s*)+\)|(?:[\w.-]+/[\w.-]+)?#\d+\b|\bGH-\d+\b|\[ci skip\]"
                   r"|\[skip ci\]", re.IGNORECASE)
_RELEASE = re.compile(
    r"^\s*(\W*(chore|build)\W*(\(\w*(release|deps?|version)\w*\))?\W*)?"
    r"(release|releasing|bump|prepare|preparing|version|update (the )?changelog|v?\d+\.\d+)"
    r"|\brelease notes\b|\bbump (version|to v?\d)|^\s*(merge|revert \"merge)\b"
    r"|\bbump [\w@/.-]+ from \S+ to \S+|\bupdate dependency\b", re.IGNORECASE)
_STYLE_BOT = re.compile(r"^(apply fixes from styleci|update (changelog|readme)\b)",
                        re.IGNORECASE)


@dataclass
class Commit:
    sha: str
    time: int
    message: str
    changed: list[str]  # paths after the commit (added, modified, renamed to, copied to)


def read_log(repo: Path, since: str | None = None, until: str | None = None
             ) -> Iterator[Commit]:
    """Non-merge commits reachable from HEAD, newest first, with the paths they changed."""
    args = ["log", "--no-merges", "-z", "--name-status", "-M", "--format=%x1e%H%x00%ct%x00%B"]
    if since:
        args.append(f"--since={since}")
    if until:
        args.append(f"--until={until}")
    raw = git(repo, *args, "HEAD")
    for record in raw.split(b"\x1e")[1:]:
        parts = record.split(b"\0")
        sha, ct, body = parts[0].decode(), int(parts[1]), parts[2]
        changed: list[str] = []
        rest = [p for p in parts[3:]]
        i = 0
        while i < len(rest):
            status = rest[i].strip(b"\n").decode()
            if not status:
                i += 1
                continue
            if status[0] in "RC":
                changed.append(rest[i + 2].decode("utf-8", errors="replace"))
                i += 3
            else:
                if status[0] in "AM":
                    changed.append(rest[i + 1].decode("utf-8", errors="replace"))
                i += 2
        yield Commit(sha, ct, body.decode("utf-8", errors="replace"), changed)


def clean_message(message: str) -> str:
    """The message without trailers, PR/issue numbers, URLs and blank runs."""
    lines = message.strip().split("\n")
    while len(lines) > 1 and (not lines[-1].strip() or _KNOWN_TRAILERS.match(lines[-1].strip())
                              or _TRAILER.match(lines[-1].strip())):
        lines.pop()
    kept = lines[:1] + [ln for ln in lines[1:] if not _KNOWN_TRAILERS.match(ln.strip())]
    text = "\n".join(kept)
    text = _URL.sub(" ", text)
    text = _REFS.sub(" ", text)
    text = "\n".join(ln.rstrip() for ln in re.sub(r"[ \t]+", " ", text).split("\n"))
    text = re.sub(r"\n\s*\n+", "\n\n", text)
    return text.strip()


def skip_reason(commit: Commit, message: str) -> str | None:
    subject = commit.message.strip().split("\n", 1)[0]
    if not commit.changed:
        return "no_changed_file"
    if len(commit.changed) > MAX_FILES:
        return "bulk"
    if _RELEASE.search(subject) or _STYLE_BOT.match(subject):
        return "release_or_bump"
    r = pathrules.rules()
    if all(any(r[k](p) for k in ("test", "doc", "vendored", "generated"))
           for p in commit.changed):
        return "tests_docs_vendored_only"
    if len(re.findall(r"\w+", message)) < 2:
        return "empty_message"
    return None


def match_paths(cluster: Cluster, index: str, path_field: str, paths: list[str]
                ) -> dict[str, str]:
    """path -> document id, for the paths the index holds (a terms query on the field)."""
    found: dict[str, str] = {}
    for start in range(0, len(paths), 1000):
        batch = paths[start:start + 1000]
        resp = cluster.request("POST", index_path(index, "_search"), {
            "size": len(batch), "_source": [path_field], "track_total_hits": False,
            "query": {"terms": {path_field: batch}}})
        for hit in resp["hits"]["hits"]:
            value = hit["_source"].get(path_field)
            if isinstance(value, str):
                found[value] = hit["_id"]
    return found


def judgments_git(repo: Path, cluster: Cluster, index: str, path_field: str, out: Path,
                  since: str | None = None, until: str | None = None,
                  max_n: int | None = None) -> dict[str, object]:
    skipped: Counter[str] = Counter()
    candidates: list[tuple[Commit, str]] = []
    seen = 0
    for commit in read_log(repo, since, until):
        seen += 1
        message = clean_message(commit.message)
        reason = skip_reason(commit, message)
        if reason:
            skipped[reason] += 1
            continue
        candidates.append((commit, message))
    paths = sorted({p for c, _ in candidates for p in c.changed})
    found = match_paths(cluster, index, path_field, paths)
    kept: list[tuple[Commit, str, list[str]]] = []
    unmatched_files = 0
    for commit, message in candidates:
        docs = [found[p] for p in commit.changed if p in found]
        unmatched_files += sum(p not in found for p in commit.changed)
        if not docs:
            skipped["no_file_in_index"] += 1
            continue
        if max_n is not None and len(kept) >= max_n:
            skipped["over_max"] += 1
            continue
        kept.append((commit, message, docs))
    out.mkdir(parents=True, exist_ok=True)
    with (out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for commit, message, _ in kept:
            fh.write(json.dumps({"_id": commit.sha, "text": message,
                                 "metadata": {"time": commit.time}}, ensure_ascii=False) + "\n")
    with (out / "qrels.tsv").open("w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for commit, _, docs in kept:
            for doc in dict.fromkeys(docs):
                fh.write(f"{commit.sha}\t{doc}\t1\n")
    summary: dict[str, object] = {
        "tool": "research stand-in for qidf judgments git", "commits_read": seen,
        "kept": len(kept), "skipped": dict(sorted(skipped.items())),
        "changed_files_not_in_index": unmatched_files}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="standin_judgments")
    ap.add_argument("source", choices=["git"])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--index", required=True)
    ap.add_argument("--path-field", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--since")
    ap.add_argument("--until")
    ap.add_argument("--max", type=int, dest="max_n")
    ap.add_argument("--url", default=None)
    args = ap.parse_args(argv)
    cluster = Cluster.connect(ConnectionSettings.from_options(url=args.url))
    summary = judgments_git(args.repo, cluster, args.index, args.path_field, args.out,
                            args.since, args.until, args.max_n)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
