"""A small git history built with ``git init`` for the judgments tests: fourteen commits on
main and a merged branch, each one a case the filters name (an initial import, trailers, a
docs-only commit, a rename, a bulk commit, releases, an empty commit, a short message, a
merge, a file added, changed and deleted)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

DAY = 86_400
T0 = 1_700_000_000


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.org",
           "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.org",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def write(repo: Path, path: str, text: str) -> None:
    file = repo / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, when=T0 + day * DAY)
    return git(repo, "rev-parse", "HEAD").strip()


def build_history(r: Path) -> Path:
    """The history in the new folder ``r`` (see the module docstring)."""
    r.mkdir(parents=True)
    git(r, "init", "-q", "-b", "main")
    write(r, "src/parser.go", "package p\nfunc Parse() {}\n")
    write(r, "src/lexer.go", "package p\nfunc Lex() {}\n")
    write(r, "README.md", "hello\n")
    commit(r, "Initial import of the parser and lexer", 0)  # only added files: no answer
    write(r, "src/parser.go", "package p\nfunc Parse() { Lex() }\n")
    commit(r, "Parser calls the lexer for every token (#12)\n\nThe parser now tokenizes "
           "lazily.\nSee https://example.org/issue/12\n\nSigned-off-by: A <a@example.org>\n"
           "Co-authored-by: B <b@example.org>", 1)
    write(r, "docs/guide.md", "guide\n")
    write(r, "README.md", "hello again\n")
    commit(r, "Document the parser in the guide", 2)  # docs only
    write(r, "src/lexer.go", "package p\nfunc Lex() { /* faster */ }\n")
    commit(r, "Speed up the lexer's identifier scanning", 3)
    git(r, "mv", "src/lexer.go", "src/scanner.go")
    commit(r, "Rename the lexer to scanner everywhere", 4)  # a rename: scanner.go counts
    for i in range(6):
        write(r, f"gen/file{i}.go", f"package gen\nvar X{i} = {i}\n")
    write(r, "src/parser.go", "package p\nfunc Parse() { Scan() }\n")
    commit(r, "Regenerate all the generated tables at once", 5)  # bulk with max_files 5
    write(r, "CHANGELOG.md", "1.2.0\n")
    commit(r, "Release v1.2.0", 6)  # a release (before only_docs)
    commit(r, "An empty commit to trigger the builds", 6)  # no files
    write(r, "VERSION", "1.2.0\n")
    commit(r, "v1.2.0", 7)
    write(r, "src/parser.go", "package p\nfunc Parse() { Scan(); Scan() }\n")
    commit(r, "wip", 8)  # too short
    git(r, "checkout", "-q", "-b", "feature")
    write(r, "src/scanner.go", "package p\nfunc Scan() { /* unicode */ }\n")
    commit(r, "Scanner handles unicode identifiers in names", 9)
    git(r, "checkout", "-q", "main")
    write(r, "src/old.go", "package p\n")
    commit(r, "Add an old helper to the parser package", 10)
    write(r, "src/old.go", "package p\nfunc Old() {}\n")
    commit(r, "Old helper learns to help the parser", 11)
    git(r, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature",
        when=T0 + 12 * DAY)
    git(r, "rm", "-q", "src/old.go")
    commit(r, "Remove the old helper from the parser", 13)
    return r


TODAY = ("src/parser.go", "src/scanner.go", "README.md", "docs/guide.md", "CHANGELOG.md",
         "VERSION")  # text files at HEAD (gen/ holds six more)
