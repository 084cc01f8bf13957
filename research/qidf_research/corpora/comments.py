"""Doc comments written as runs of line comments or one block comment, for the languages
whose docs sit in comments right above a definition (Haskell's Haddock, Lua's LDoc, C++'s
Doxygen): the comment markers removed and CodeSearchNet's first paragraph kept.

Lines starting with a tag (``@param``, ``\\param``, ``@since``) end the summary, as
javadoc's and rustdoc's summaries end before their tag sections.
"""

from __future__ import annotations

import re
from typing import Any

from qidf_research.corpora.rules import first_paragraph

_LINE_MARKER = re.compile(r"^\s*(---*\s?\|?|//[/!<]?|\*+/?|/\*[*!]?<?|\{-\s?\|?|-\})\s?")
_TAG = re.compile(r"^\s*[@\\][A-Za-z]")
# A file's header: license or copyright text is not the documentation of what follows.
_NAME_ONLY = re.compile(r"^[\w:~<>]+(\(\))?$")
_HEADER = re.compile(r"copyright|licen[cs]e|spdx", re.I)


def strip_markers(comment: str) -> list[str]:
    """The comment's lines without their markers (``--``, ``-- |``, ``///``, ``/**``, ``*``)."""
    body = comment.strip()
    if body.endswith("*/"):
        body = body[:-2]
    if body.endswith("-}"):
        body = body[:-2]
    return [_LINE_MARKER.sub("", line, count=1).rstrip() for line in body.splitlines()]


def summary(comments: list[str]) -> str:
    """The first paragraph of one or more adjacent comments, tags and headers left out."""
    lines: list[str] = []
    for c in comments:
        lines.extend(strip_markers(c))
    text = "\n".join(lines)
    if _HEADER.search(text[:300]):
        return ""
    kept: list[str] = []
    for line in lines:
        if _TAG.match(line):
            break
        kept.append(line)
    first = first_paragraph(kept)
    if _NAME_ONLY.match(first):  # abseil's "// StrSplit()" title line, then the text
        rest = kept[next(i for i, x in enumerate(kept) if x.strip()) + 1:]
        return first_paragraph(rest)
    return first


def adjacent_comments(node: Any, comment_types: frozenset[str]) -> list[Any]:
    """The comment nodes right above ``node``: each ends on the line before the next."""
    out: list[Any] = []
    row = node.start_point[0]
    prev = node.prev_sibling
    while prev is not None and prev.type in comment_types and prev.end_point[0] >= row - 1:
        out.append(prev)
        row = prev.start_point[0]
        prev = prev.prev_sibling
    return list(reversed(out))
