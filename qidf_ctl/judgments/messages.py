"""A commit message as a search query: what a developer wrote about the change, without what
tools and conventions add to it.

Removed, and why each would mislead a search for the changed files:

- trailers (``Signed-off-by:``, ``Co-authored-by:``, ``Reviewed-by:``, ``Change-Id:`` and any
  ``Token-Like: value`` line of the last paragraph, git's own trailer rule): names and
  e-mail addresses match documents that list authors, not the code changed;
- git's and GitHub's boilerplate: ``(cherry picked from commit ...)``, ``This reverts commit
  ...``, ``Merge pull request #12 from ...``, ``Merge branch ...``; a revert's subject
  ``Revert "x"`` keeps ``x``, which does say what changed;
- PR and issue references (``#123``, ``GH-123``, ``owner/repo#123``, ``(#123)``) and the
  verbs that link them (``Fixes #12`` loses the whole phrase), URLs, e-mail addresses, bare
  commit hashes (7-40 hex digits with at least one digit and one letter), CI markers
  (``[skip ci]``, ``[ci skip]``);
- repeated whitespace and markdown bullets: one line of words.

The subject and the body are both kept (bug-localization datasets query with the summary and
the description); ``subject_only`` keeps the first line.
"""

from __future__ import annotations

import re

_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:\s+\S.*$")
_KNOWN_TRAILERS = re.compile(
    r"^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|"
    r"suggested-by|helped-by|cc|change-id|reviewed-on|bug|fixes|closes|resolves|refs?|"
    r"see-also|pr-url|pull-request|backport-of|original-commit|git-svn-id|release-note)"
    r"\s*:.*$", re.IGNORECASE | re.MULTILINE)
_CHERRY = re.compile(r"^\s*\(cherry picked from commit [0-9a-f]+\)\s*$",
                     re.IGNORECASE | re.MULTILINE)
_REVERTS = re.compile(r"^\s*This reverts commit [0-9a-f]+\.?\s*$", re.IGNORECASE | re.MULTILINE)
_MERGE_PR = re.compile(r"^\s*Merge (pull request|PR) #?\d+ from \S+\s*$",
                       re.IGNORECASE | re.MULTILINE)
_MERGE_BRANCH = re.compile(r"^\s*Merge (remote-tracking )?branch\b.*$",
                           re.IGNORECASE | re.MULTILINE)
_AUTO_MERGE = re.compile(r"^\s*Auto merge of #\d+ - \S+, r=\S+\s*$",
                         re.IGNORECASE | re.MULTILINE)
_REVERT_SUBJECT = re.compile(r'^\s*Revert\s+"(.*)"\s*$', re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|ftp|git|ssh)://\S+|\bwww\.\S+", re.IGNORECASE)
_EMAIL = re.compile(r"<?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b>?")
_LINKED = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|part of|related "
                     r"to|addresses)\s*:?\s+(?:[\w.-]+/[\w.-]+)?(?:#|GH-)\d+",
                     re.IGNORECASE)
_REFERENCE = re.compile(r"\(?(?:\b[\w.-]+/[\w.-]+)?(?:#|\bGH-)\d+\)?", re.IGNORECASE)
_HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
_CI = re.compile(r"\[(?:skip ci|ci skip|no ci|skip actions|actions skip)\]", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)
_EMPTY_PARENS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*\]")


def _without_trailers(text: str) -> str:
    """Drop the known trailers anywhere, and the last paragraph when every line of it is a
    ``Key: value`` trailer (git interpret-trailers' rule)."""
    text = _KNOWN_TRAILERS.sub("", text)
    paragraphs = re.split(r"\n\s*\n", text.strip())
    if len(paragraphs) > 1:
        last = [line for line in paragraphs[-1].splitlines() if line.strip()]
        if last and all(_TRAILER.match(line.strip()) for line in last):
            paragraphs = paragraphs[:-1]
    return "\n\n".join(paragraphs)


def clean_message(message: str, subject_only: bool = False) -> str:
    """The words of ``message`` a search for the changed files should use (see the module
    docstring for what goes), on one line; "" when nothing is left."""
    text = message.replace("\r\n", "\n").strip()
    lines = text.splitlines()
    if lines:
        reverted = _REVERT_SUBJECT.match(lines[0])
        if reverted:
            lines[0] = reverted.group(1)
            text = "\n".join(lines)
    if subject_only:
        text = text.split("\n", 1)[0]
    for pattern in (_CHERRY, _REVERTS, _MERGE_PR, _MERGE_BRANCH, _AUTO_MERGE):
        text = pattern.sub("", text)
    text = _without_trailers(text)
    text = _URL.sub(" ", text)
    text = _EMAIL.sub(" ", text)
    text = _LINKED.sub(" ", text)
    text = _REFERENCE.sub(" ", text)
    text = _HASH.sub(" ", text)
    text = _CI.sub(" ", text)
    text = _BULLET.sub(" ", text)
    text = _EMPTY_PARENS.sub(" ", text)
    return " ".join(text.split())


_WORD = re.compile(r"[^\W_]{2,}")


def word_count(text: str) -> int:
    """Words of two letters or digits or more: what a "too short to search with" rule
    counts (``wip``, ``fix typo`` and ``v2`` are short)."""
    return len(_WORD.findall(text))
