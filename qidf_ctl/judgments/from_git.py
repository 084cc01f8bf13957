"""Judged queries from a repository's history: each kept commit's cleaned message is a query,
the index's documents for the files it changed are its answer (relevance 1).

This is how bug-localization studies and SWE-bench-style file retrieval are evaluated, and it
costs the user nothing: the history is there. The steps are modules of their own: reading
(``history``), cleaning (``messages``), filtering (``filters``), today's names
(``renames``), matching paths to documents (``matching``) and the time split (``split``).

The index holds today's files while a commit changed its parent's: a file's text has moved
on since (most for old commits), and a file created after the commit is in the index but was
not there to be found. That is the price of judging against a live index; the time split
keeps it the same for every q compared, and the docs say so.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from qidf_ctl.judgments import filters, history, matching
from qidf_ctl.judgments.filters import NOT_IN_INDEX, SHORT_MESSAGE, SKIP_REASONS, Rules
from qidf_ctl.judgments.folder import Judgments
from qidf_ctl.judgments.messages import clean_message, word_count
from qidf_ctl.judgments.renames import PathsToday
from qidf_ctl.judgments.split import DEFAULT_OLDER_SHARE, check_share, time_split
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet

SOURCE = "git"
FLUSH = 2_000  # candidate commits matched per round when --max may stop the read early


@dataclass
class Candidate:
    """A commit that passed the filters git alone decides, with its answer under today's
    names (``answers``: today's path -> the path the commit changed)."""

    commit: history.Commit
    text: str
    answers: dict[str, str]


@dataclass
class FileCounts:
    """What became of the answer files of the commits that reached matching."""

    matched: int = 0  # answer files found in the index
    via_rename: int = 0  # of those, found under the name a later commit gave them
    deleted_since: int = 0  # deleted by a later commit
    not_in_index: int = 0  # in today's tree (as far as the history says) but not indexed
    added_not_counted: int = 0  # added by the commit (not an answer without --include-added)
    deleted_by_commit: int = 0  # deleted by the commit itself (cannot be an answer)
    documents_per_path_above_1: int = 0  # matched paths held by several documents

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class GitOptions:
    """What to read and how (the CLI's options)."""

    rev_range: str = "HEAD"
    since: datetime | None = None
    until: datetime | None = None
    max_queries: int | None = None
    older_share: float = DEFAULT_OLDER_SHARE
    path_prefix: str = ""
    rules: Rules = field(default_factory=Rules)
    subject_only: bool = False
    field: str | None = None  # the text field queries search, recorded for the decision


def _candidates(commits: Iterator[history.Commit], options: GitOptions, today: PathsToday,
                skipped: Counter[str], files: FileCounts) -> Generator[Candidate, None, None]:
    for commit in commits:
        reason = filters.skip_reason(commit, options.rules)
        text = ""
        answers: dict[str, str] = {}
        if reason is None:
            text = clean_message(commit.message, options.subject_only)
            if word_count(text) < options.rules.min_words:
                reason = SHORT_MESSAGE
        if reason is None:
            for change in commit.changes:
                if change.status == "A" and not options.rules.include_added:
                    files.added_not_counted += 1
                elif change.status == "D":
                    files.deleted_by_commit += 1
            answers = {today.today(p): p for p in filters.answer_paths(commit, options.rules)}
            if not answers:
                reason = filters.NO_ANSWER
        today.see(commit)
        if reason is not None:
            skipped[reason] += 1
            continue
        yield Candidate(commit, text, answers)


def _counted(commits: Iterator[history.Commit], advance: Callable[[int], None],
             tally: list[int]) -> Iterator[history.Commit]:
    for commit in commits:
        tally[0] += 1
        advance(1)
        yield commit


def judgments_from_git(
    cluster: Cluster, repository: str | history.Repository, index: str, path_field: str,
    options: GitOptions | None = None, *, progress: Progress = quiet, bar: BarFactory = no_bar,
) -> Judgments:
    """Judged queries from ``repository``'s history against ``index`` (module docstring);
    every input is checked before the history is read, and a history none of whose changed
    paths the index holds is one usage error that shows a path of each."""
    started = time.monotonic()
    options = options or GitOptions()
    check_share(options.older_share)
    if options.max_queries is not None and options.max_queries < 1:
        raise UsageError(f"--max must be at least 1, got {options.max_queries}")
    repo = (repository if isinstance(repository, history.Repository)
            else history.open_repository(repository))
    rev_range = history.check_range(repo, options.rev_range) if options.rev_range != "HEAD" \
        else "HEAD"
    if not repo.head and rev_range == "HEAD":
        raise UsageError(f"repository {repo.path} has no commits")
    pf = matching.path_field(cluster, index, path_field)
    progress(f"matching paths by {pf.describe()}")
    total = history.count_commits(repo, rev_range, options.since, options.until)
    skipped: Counter[str] = Counter()
    files = FileCounts()
    today = PathsToday()
    found: dict[str, list[str]] = {}
    kept: list[tuple[Candidate, list[str]]] = []
    cap = options.max_queries
    tally = [0]
    with bar(f"reading {total:,} commits", total) as advance:
        commits = history.read_commits(repo, rev_range, options.since, options.until)
        stream = _candidates(_counted(commits, advance, tally), options, today, skipped, files)
        pending: list[Candidate] = []
        try:
            for candidate in stream:
                pending.append(candidate)
                if cap is not None and len(pending) >= FLUSH:
                    _match(cluster, pf, pending, options, found, kept, skipped, files, today)
                    pending = []
                    if len(kept) >= cap:
                        break
        finally:
            stream.close()
            commits.close()  # ends git log when --max stopped the read early
    read = tally[0]
    _match(cluster, pf, pending, options, found, kept, skipped, files, today, bar=bar)
    if cap is not None and len(kept) > cap:
        kept = kept[:cap]  # newest first: the newest ``cap`` commits
    if not kept:
        _nothing_judged(cluster, pf, str(repo.path), read, skipped, files, options)
    return _judgments(repo, index, pf, options, kept, read, skipped, files,
                      time.monotonic() - started)


def _match(cluster: Cluster, pf: matching.PathField, pending: list[Candidate],
           options: GitOptions, found: dict[str, list[str]],
           kept: list[tuple[Candidate, list[str]]], skipped: Counter[str], files: FileCounts,
           today: PathsToday, bar: BarFactory = no_bar) -> None:
    """Look up the paths not looked up yet, then keep each candidate with a document."""
    new = sorted({p for c in pending for p in c.answers} - found.keys())
    got = matching.lookup(cluster, pf, new, options.path_prefix, bar=bar)
    for path in new:
        found[path] = got.get(path, [])
    for candidate in pending:
        docs: list[str] = []
        for path, original in candidate.answers.items():
            ids = found[path]
            if ids:
                files.matched += 1
                files.via_rename += path != original
                files.documents_per_path_above_1 += len(ids) > 1
                docs.extend(ids)
            elif today.gone(original):
                files.deleted_since += 1
            else:
                files.not_in_index += 1
        if docs:
            kept.append((candidate, list(dict.fromkeys(docs))))
        else:
            skipped[NOT_IN_INDEX] += 1


def _nothing_judged(cluster: Cluster, pf: matching.PathField, repository: str, read: int,
                    skipped: Counter[str], files: FileCounts, options: GitOptions) -> None:
    if files.matched == 0 and skipped[NOT_IN_INDEX]:
        shown = ", ".join(repr(p) for p in matching.sample_paths(cluster, pf)) or "none"
        prefix = f" with --path-prefix {options.path_prefix!r}" if options.path_prefix else ""
        raise UsageError(
            f"no file changed in {repository}'s history is a document of {pf.index!r} by "
            f"--path-field {pf.named!r}{prefix} ({skipped[NOT_IN_INDEX]:,} commits tried; the "
            f"index holds paths such as {shown}): name the field that holds each file's path "
            "relative to the repository's root, or give --path-prefix")
    counts = ", ".join(f"{k} {v:,}" for k, v in skipped.items() if v) or "none"
    raise UsageError(f"no commit of {repository} made a judged query ({read:,} commits read; "
                     f"skipped: {counts}): widen --since/--until/--range or loosen the "
                     "filters (--max-files, --min-words)")


def _judgments(repo: history.Repository, index: str, pf: matching.PathField,
               options: GitOptions, kept: list[tuple[Candidate, list[str]]], read: int,
               skipped: Counter[str], files: FileCounts, seconds: float) -> Judgments:
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    metadata: dict[str, dict[str, Any]] = {}
    times = []
    for candidate, docs in sorted(kept, key=lambda k: (k[0].commit.time, k[0].commit.sha)):
        c = candidate.commit
        queries[c.sha] = candidate.text
        qrels[c.sha] = dict.fromkeys(docs, 1)
        metadata[c.sha] = {"commit": c.sha, "time": _iso(c.time),
                           "files": sorted(candidate.answers.values())}
        times.append((c.sha, c.time))
    split = time_split(times, options.older_share)
    manifest = {
        "source": SOURCE,
        "origin": f"git {repo.path}",
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "qidf_version": __version__,
        "repository": {"path": str(repo.path), "head": repo.head, "bare": repo.bare},
        "range": {"revisions": options.rev_range,
                  "since": options.since.isoformat() if options.since else None,
                  "until": options.until.isoformat() if options.until else None,
                  "max": options.max_queries,
                  "oldest_judged": _iso(min(t for _, t in times)),
                  "newest_judged": _iso(max(t for _, t in times))},
        "index": {"name": index, "concrete": pf.index, "path_field": pf.named,
                  "matched_by": pf.strategy, "lookup_field": pf.field,
                  "path_prefix": options.path_prefix, "how": pf.describe()},
        "field": options.field,
        "rules": {**options.rules.as_dict(), "message": "subject" if options.subject_only
                  else "subject and body", "relevance": "1 for every document of an "
                  "answer file"},
        "counts": {"commits_read": read, "judged_queries": len(queries),
                   "judgments": sum(len(v) for v in qrels.values()),
                   "skipped": {k: skipped.get(k, 0) for k in SKIP_REASONS},
                   "answer_files": files.as_dict()},
        "split": split.as_dict(),
        "seconds": round(seconds, 2),
    }
    return Judgments(queries, qrels, list(split.older), list(split.newer), manifest, metadata)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat()
