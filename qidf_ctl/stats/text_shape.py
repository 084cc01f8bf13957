"""What raw text looks like: code, or prose. Read from a sample of documents or of queries.

Why raw text and not the index's terms: the analyzer lowercases and splits, so a term list
cannot tell ``getValue()`` from "get value". Code has braces, brackets, semicolons,
assignments and calls (``name(`` with no space); prose has almost none of them, and its
parentheses follow a space ("(development files)"). Docstrings are prose that mention
identifiers. A text looks like code when its **code punctuation share**, the characters
``{ } [ ] ; = < >`` plus two for every call parenthesis (a letter, digit or underscore right
before ``(``), per non-space character, is at least ``CODE_TEXT_MIN``, **or** when most of
its lines are code lines (``code_lines``: Ruby, shell, SQL, Lua, Elixir, Haskell and
configuration files write blocks with words, not punctuation). The punctuation rule alone
(``punctuation_code_share``, the detector before issue 36) is kept as a statistic.

Every statistic here is a share over sampled texts or words: it estimates a property of
the population the sample was drawn from and has no size term, so an index of 10^3 or 10^7
documents is read the same way.

How these shares separate code, docstrings and prose on the benchmark's corpora, and the
thresholds the default predictor uses: benchmarks/retrieval/predictor.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from qidf_ctl.stats.code_lines import CODE_LINE_SHARE_MIN, CODE_LINES_MIN, code_by_lines

CODE_CHARS = frozenset("{}[];=<>")
CALL = re.compile(r"[A-Za-z0-9_]\(")
CODE_TEXT_MIN = 0.03
# A text's shape is read on its first MAX_TEXT_CHARS characters: a whole source file (a
# file-level index) is judged by its first few hundred lines, which keeps the sample's cost
# flat whatever the documents' length.
MAX_TEXT_CHARS = 20_000
IDENTIFIER_CHARS = 2_000  # the identifier-word share: each text's first 2,000 characters
# A whitespace-separated word shaped like an identifier: snake_case, camelCase, a dotted or
# ::/-> path, or a call.
IDENTIFIER_WORD = re.compile(
    r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Za-z_]\.[A-Za-z_]|::|->|[A-Za-z0-9_]\(")

DEFINITIONS: dict[str, tuple[str, str]] = {
    "code_like_share": (
        "share of texts that look like code",
        f"texts whose code punctuation ({{ }} [ ] ; = < >, and 2 per call parenthesis "
        f"'name(') is at least {CODE_TEXT_MIN:g} of their non-space characters, or at least "
        f"{CODE_LINE_SHARE_MIN:.0%} of whose non-comment lines (and {CODE_LINES_MIN} or more) "
        "are code lines: statements, declarations, block keywords, assignments, "
        "configuration entries or markup tags of a mainstream language"),
    "punctuation_code_share": (
        "share of texts with code punctuation",
        f"texts whose code punctuation is at least {CODE_TEXT_MIN:g} of their non-space "
        "characters (the code test before issue 36)"),
    "code_punctuation": (
        "mean code punctuation share",
        "per-text share of non-space characters that are code punctuation, averaged"),
    "mean_words": (
        "mean words per text",
        "whitespace-separated words per sampled text, averaged"),
    "identifier_words": (
        "identifier-shaped word share",
        "share of whitespace-separated words that are snake_case, camelCase, a.b, a::b, a->b "
        "or name("),
}


def code_punctuation_share(text: str) -> float:
    """Code punctuation per non-space character (0 for an empty text)."""
    text = text[:MAX_TEXT_CHARS]
    non_space = len("".join(text.split()))
    if not non_space:
        return 0.0
    marks = sum(text.count(c) for c in CODE_CHARS) + 2 * len(CALL.findall(text))
    return marks / non_space


def looks_like_code(text: str) -> bool:
    return code_punctuation_share(text) >= CODE_TEXT_MIN or code_by_lines(text[:MAX_TEXT_CHARS])


@dataclass(frozen=True)
class TextShape:
    """Shape statistics of a sample of texts (documents' field values, or queries)."""

    texts: int
    code_like_share: float
    code_like_interval: tuple[float, float]  # Wilson 95%, for the sample's size
    code_punctuation: float
    identifier_words: float
    mean_words: float
    punctuation_code_share: float = math.nan

    def as_dict(self) -> dict[str, object]:
        return {**self.__dict__, "code_like_interval": list(self.code_like_interval)}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a share (no interval without texts)."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def text_shape(texts: Sequence[str]) -> TextShape:
    """The shape of ``texts`` (empty texts count: an empty field value is not code)."""
    n = len(texts)
    shares = [code_punctuation_share(t) for t in texts]
    punctuated = sum(1 for s in shares if s >= CODE_TEXT_MIN)
    code = sum(1 for t, s in zip(texts, shares, strict=True)
               if s >= CODE_TEXT_MIN or code_by_lines(t[:MAX_TEXT_CHARS]))
    words = [w for t in texts for w in t.split()]
    read = [w for t in texts for w in t[:IDENTIFIER_CHARS].split()]
    ident = sum(1 for w in read if IDENTIFIER_WORD.search(w))
    return TextShape(
        texts=n,
        code_like_share=code / n if n else math.nan,
        code_like_interval=wilson(code, n),
        code_punctuation=sum(shares) / n if n else math.nan,
        identifier_words=ident / len(read) if read else math.nan,
        mean_words=len(words) / n if n else math.nan,
        punctuation_code_share=punctuated / n if n else math.nan,
    )
