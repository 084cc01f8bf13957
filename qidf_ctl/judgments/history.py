"""A repository's commits, read once through the git CLI: each commit's time, parents, message
and the files it changed (``git log --name-status -z -M``, parsed as it streams).

The git CLI rather than a library: it is on every machine that has a clone, reads bare
repositories and work trees alike, and its rename detection (``-M``) is the reference that
bug-localization datasets use. One ``git log`` call reads the whole range (about 4 s for
23,000 commits of rust-lang/cargo); merge commits come through it too, with no file list
(git shows none without ``-m``), so that they are counted as skipped rather than silently
absent.

A shallow clone is refused: its history stops at the graft, so "every commit since a date"
would quietly be a few of them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

from qidf_ctl.errors import QidfError, UsageError

# Field and record separators of the format below: bytes no commit message or path holds.
_RECORD = "\x1e"
_FIELD = "\x1f"
_FORMAT = f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%P{_FIELD}%B{_FIELD}"
_STATUS = re.compile(r"[ACDMRTUXB][0-9]*")
_CHUNK = 1 << 20
# A range is refs and revisions: no option (a leading dash), no whitespace or control bytes.
_RANGE = re.compile(r"[^\s\x00-\x1f\x7f-][^\s\x00-\x1f\x7f]*")


@dataclass(frozen=True)
class Change:
    """One file a commit changed: git's status letter (A added, M modified, D deleted,
    R renamed, C copied, T type changed), its path after the commit and, for R and C, before."""

    status: str
    path: str
    old_path: str | None = None


@dataclass(frozen=True)
class Commit:
    """A commit as git log gives it: ``time`` is the committer time (epoch seconds), the
    order git rewrites (rebases, cherry-picks) keep consistent with the branch."""

    sha: str
    time: int
    parents: int
    message: str
    changes: tuple[Change, ...] = ()

    @property
    def is_merge(self) -> bool:
        return self.parents > 1


@dataclass(frozen=True)
class Repository:
    """A git repository (bare or a work tree) known to be whole (not shallow)."""

    path: Path
    git_dir: Path
    bare: bool
    head: str  # the commit HEAD names, or "" in a repository without commits


def _git() -> str:
    found = shutil.which("git")
    if found is None:
        raise QidfError("qidf judgments git needs the git command, which is not installed "
                        "(e.g. apt-get install git)")
    return found


def _run(args: Sequence[str], repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_git(), "-C", str(repo), *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace", check=False)


def open_repository(path: str | Path) -> Repository:
    """The repository at ``path``, or one usage error naming what it is instead: a path that
    does not exist, a folder that is not a git repository, a shallow clone."""
    where = Path(path).expanduser()
    if not where.exists():
        raise UsageError(f"repository {path}: no such file or folder (give the path of a "
                         "clone or a bare repository)")
    if not where.is_dir():
        raise UsageError(f"repository {path}: not a folder (give the path of a clone or a "
                         "bare repository)")
    probe = _run(["rev-parse", "--is-bare-repository", "--absolute-git-dir",
                  "--is-shallow-repository"], where)
    if probe.returncode != 0:
        raise UsageError(f"repository {path}: not a git repository (git rev-parse: "
                         f"{_first_line(probe.stderr)})")
    bare, git_dir, shallow = [*probe.stdout.splitlines(), "", "", ""][:3]
    if shallow.strip() == "true":
        raise UsageError(f"repository {path} is a shallow clone: its history stops at the "
                         "graft; fetch the whole history first (git fetch --unshallow)")
    head = _run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], where)
    return Repository(where.resolve(), Path(git_dir.strip()), bare.strip() == "true",
                      head.stdout.strip() if head.returncode == 0 else "")


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no answer"


def parse_day(text: str, option: str) -> datetime:
    """A date or date-time in ISO 8601 (``2024-01-31``, ``2024-01-31T12:00:00+02:00``), as
    an aware datetime (UTC when no zone is given): reproducible, unlike git's "2 weeks ago"."""
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{option} takes an ISO date such as 2024-01-31 (or "
                         f"2024-01-31T12:00:00+00:00), got {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def check_range(repo: Repository, text: str) -> str:
    """``A..B`` (or one revision): refused unless git resolves every end of it."""
    if not _RANGE.fullmatch(text):
        raise UsageError(f"--range takes revisions such as v1.0..main or a commit, got "
                         f"{text!r}")
    ends = [part for part in re.split(r"\.\.\.?", text) if part]
    for end in ends or [text]:
        found = _run(["rev-parse", "--verify", "--quiet", f"{end}^{{commit}}"], repo.path)
        if found.returncode != 0:
            raise UsageError(f"--range {text}: {end!r} is not a commit of {repo.path}")
    return text


def _log_args(rev_range: str, since: datetime | None, until: datetime | None) -> list[str]:
    args = ["-c", "core.quotepath=off", "log", _FORMAT, "--name-status", "-z", "-M",
            "--no-color", "--no-ext-diff", "--no-textconv", "--date-order"]
    if since is not None:
        args.append(f"--since={since.isoformat()}")
    if until is not None:
        args.append(f"--until={until.isoformat()}")
    return [*args, rev_range, "--"]


def count_commits(repo: Repository, rev_range: str = "HEAD", since: datetime | None = None,
                  until: datetime | None = None) -> int:
    """How many commits ``read_commits`` will yield (merges included): a progress bar's
    total, from ``git rev-list --count`` (a fraction of a second on 20,000 commits)."""
    args = ["rev-list", "--count"]
    if since is not None:
        args.append(f"--since={since.isoformat()}")
    if until is not None:
        args.append(f"--until={until.isoformat()}")
    found = _run([*args, rev_range, "--"], repo.path)
    if found.returncode != 0:
        raise UsageError(f"git rev-list {rev_range} in {repo.path}: "
                         f"{_first_line(found.stderr)}")
    return int(found.stdout.strip() or 0)


def _header(token: str) -> Commit:
    sha, ctime, parents, rest = token[1:].split(_FIELD, 3)
    message = rest[:-1] if rest.endswith(_FIELD) else rest
    return Commit(sha, int(ctime), len(parents.split()), message)


class _Parser:
    """Commits from the NUL-separated tokens of ``git log -z --name-status``: a header token
    (``\\x1e`` sha, time, parents, message), then per file a status token and one path (two
    for renames and copies)."""

    def __init__(self) -> None:
        self.commit: Commit | None = None
        self.changes: list[Change] = []
        self.status: str | None = None
        self.old: str | None = None

    def feed(self, token: str) -> Commit | None:
        """The previous commit when ``token`` starts a new one, else None."""
        if self.status is not None:
            if self.status[0] in "RC" and self.old is None:
                self.old = token
                return None
            self.changes.append(Change(self.status[0], token, self.old))
            self.status, self.old = None, None
            return None
        if token.startswith(_RECORD):
            done = self.finish()
            self.commit = _header(token)
            return done
        status = token.lstrip("\n")
        if self.commit is None or not _STATUS.fullmatch(status):
            raise QidfError(f"git log gave output qidf cannot read (at {token[:40]!r}): "
                            "please report it with your git version")
        self.status = status
        return None

    def finish(self) -> Commit | None:
        if self.commit is None:
            return None
        done = Commit(self.commit.sha, self.commit.time, self.commit.parents,
                      self.commit.message, tuple(self.changes))
        self.commit, self.changes = None, []
        return done


def read_commits(repo: Repository, rev_range: str = "HEAD", since: datetime | None = None,
                 until: datetime | None = None) -> Generator[Commit, None, None]:
    """Every commit of ``rev_range`` (newest first, merges included), streamed from one
    ``git log``; the process is ended if the caller stops early."""
    if not repo.head and rev_range == "HEAD":
        return
    command = [_git(), "-C", str(repo.path), *_log_args(rev_range, since, until)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    parser = _Parser()
    rest = b""
    assert process.stdout is not None
    try:
        while True:
            chunk = process.stdout.read(_CHUNK)
            if not chunk:
                break
            *tokens, rest = (rest + chunk).split(b"\0")
            for raw in tokens:
                done = parser.feed(raw.decode("utf-8", errors="replace"))
                if done is not None:
                    yield done
        if rest:
            done = parser.feed(rest.decode("utf-8", errors="replace"))
            if done is not None:
                yield done
        last = parser.finish()
        if last is not None:
            yield last
        stderr = process.stderr.read() if process.stderr else b""
        if process.wait() != 0:
            raise UsageError(f"git log {rev_range} in {repo.path} failed: "
                             f"{_first_line(stderr.decode('utf-8', errors='replace'))}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
