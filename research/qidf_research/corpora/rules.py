"""CodeSearchNet's language-independent pair rules.

Kept separate from the parsers so every language is filtered by the same definitions and
the counts per stage mean the same thing across languages (Husain et al. 2019, sec. 2.1).
"""

from __future__ import annotations

import re

MIN_DOC_TOKENS = 3
MIN_CODE_LINES = 3

# CodeSearchNet's docstring tokenizer (function_parser/parsers/language_parser.py): words,
# plus runs of punctuation. "At least 3 tokens" is counted with it.
_DOC_TOKEN_RE = re.compile(
    r"[^\s,'\"`.():\[\]=*;>{\}+\-/\\]+|\\+|\.+|\(\)|\{\}|\[\]|\(+|\)+|:+|\[+|\]+|\{+|\}+|=+"
    r"|\*+|;+|>+|\++|-+|/+"
)


def doc_tokens(doc: str) -> list[str]:
    """Tokens of a docstring as CodeSearchNet counted them."""
    return [t for t in _DOC_TOKEN_RE.findall(doc) if t]


def first_paragraph(lines: list[str]) -> str:
    """Join the lines up to the first blank line into one space-separated string.

    Leading blank lines are skipped; CodeSearchNet's summary is this first paragraph.
    """
    out: list[str] = []
    for line in lines:
        text = line.strip()
        if not text:
            if out:
                break
            continue
        out.append(text)
    return " ".join(out)


def code_lines(code: str) -> int:
    """Non-blank lines of a function's code (its doc comment already removed)."""
    return sum(1 for line in code.splitlines() if line.strip())


def is_test_path(relpath: str) -> bool:
    """CodeSearchNet dropped every file whose path contains "test" (case-insensitive).

    That also drops test helpers such as Go's ``testing`` and ``net/http/httptest``: they
    are the code tests are written with, and their docs talk about tests, not tasks.
    """
    return "test" in relpath.lower()


_WS_RE = re.compile(r"\s+")


def normalize_doc(doc: str) -> str:
    """Docstring key for duplicate detection: case and whitespace folded."""
    return _WS_RE.sub(" ", doc).strip().lower()
