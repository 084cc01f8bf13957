"""A commit's paths under today's names: the index holds today's files, so a file a later
commit renamed is found under its new name, and one a later commit deleted is known as gone.

Commits come newest first (``git log``'s order), so when a commit is seen every later rename
is already known: ``a.go`` renamed to ``b.go`` and then to ``c.go`` resolves to ``c.go``. A
path deleted by a later commit and never re-created is "deleted since". Renames inside merge
commits are not seen (git log shows no diff for merges), nor renames git does not detect
(more changed than ``-M``'s 50% similarity): those files count as not in the index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qidf_ctl.judgments.history import Commit


@dataclass
class PathsToday:
    """Fed every commit of the history, newest first (kept or skipped: a bulk commit's
    renames count too)."""

    renamed: dict[str, str] = field(default_factory=dict)  # old path -> today's path
    deleted: set[str] = field(default_factory=set)  # deleted later, not re-created since
    created: set[str] = field(default_factory=set)  # added or renamed into by a later commit

    def today(self, path: str) -> str:
        """``path`` as today's tree names it (itself when no later commit renamed it)."""
        return self.renamed.get(path, path)

    def gone(self, path: str) -> bool:
        """Whether a later commit deleted ``path`` (under today's name) for good."""
        return self.today(path) in self.deleted

    def see(self, commit: Commit) -> None:
        """Learn ``commit``'s renames and deletions, after its own paths were resolved."""
        for change in commit.changes:
            if change.status == "R" and change.old_path is not None:
                self.renamed[change.old_path] = self.today(change.path)
                self.created.add(change.path)
            elif change.status == "D" and change.path not in self.created:
                self.deleted.add(change.path)
            elif change.status in "AC":
                self.created.add(change.path)
