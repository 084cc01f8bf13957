"""A bare repository whose HEAD is the pinned snapshot commit, sharing the fetched mirror's
objects (git alternates: nothing is copied). Whatever reads "the repository" (the judgments
command reads HEAD's history) then sees exactly the pinned history, even after the mirror
is fetched again."""

from __future__ import annotations

from pathlib import Path

from qidf_research.filetasks.gitio import GitError, git, rev_parse
from qidf_research.filetasks.sources import WORK, Source

BRANCH = "refs/heads/snapshot"


def pinned(source: Source, root: Path = WORK / "repos") -> Path:
    """The pinned bare repository of ``source`` (made once; HEAD checked every time)."""
    mirror = source.mirror
    if not (mirror / "objects").is_dir():
        raise SystemExit(f"{source.repo} is not fetched: no bare git directory at {mirror} "
                         "(bring it with the search tool's fetch)")
    path = root / f"{source.key}.git"
    if not (path / "objects").is_dir():
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "--quiet", "--bare")
    alternates = path / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(str((mirror / "objects").resolve()) + "\n", encoding="utf-8")
    try:
        git(path, "update-ref", BRANCH, source.commit)
    except GitError as exc:
        raise SystemExit(f"{source.repo}: the pinned commit {source.commit} is not in "
                         f"{mirror} ({exc})") from None
    git(path, "symbolic-ref", "HEAD", BRANCH)
    if rev_parse(path, "HEAD") != source.commit:
        raise SystemExit(f"{path}: HEAD is not {source.commit}")
    return path
