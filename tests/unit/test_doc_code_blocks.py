"""Code blocks that fit the page: no line of a fenced block in the README or the docs is longer
than 88 characters. Longer lines scroll sideways under the copy button on the site (the
stylesheet, docs/stylesheets/extra.css, makes room for 88 columns beside it), and a command
one has to scroll to read gets copied without being read.

Blocks of what a program prints or reads verbatim (``text``, ``json`` or no language: an error
line, a trace record, a role definition) are quoted as they are: wrapping them would misquote
them. Commands, scripts and configuration (every other language) fit."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 88
VERBATIM = {"", "text", "json"}
OPEN = re.compile(r"^\s*(`{3,}|~{3,})(\w*)")


def fenced_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, line, the block's language) of every line inside a fenced code block."""
    found: list[tuple[int, str, str]] = []
    closing: re.Pattern[str] | None = None
    language = ""
    for number, line in enumerate(text.splitlines(), 1):
        if closing is None:
            opened = OPEN.match(line)
            if opened:
                fence, language = opened.group(1), opened.group(2)
                closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        elif closing.match(line):
            closing = None
        else:
            found.append((number, line, language))
    return found


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_fenced_lines_are_found_and_fences_pair():
    text = "a\n```bash\nx\n  ```\n~~~~\n```\ny\n~~~\n~~~~~\nz\n"
    assert fenced_lines(text) == [(3, "x", "bash"), (6, "```", ""), (7, "y", ""),
                                  (8, "~~~", "")]
    assert len(fenced_lines((ROOT / "README.md").read_text())) >= 8


def test_no_code_block_line_is_longer_than_the_page_holds():
    too_long = [f"{page.relative_to(ROOT)}:{number}: {len(line)} characters"
                for page in pages()
                for number, line, language in fenced_lines(page.read_text())
                if len(line) > LIMIT and language not in VERBATIM]
    assert too_long == []


def test_commands_are_checked_and_quoted_output_is_not():
    page = "```bash\n" + "x" * 89 + "\n```\n```text\n" + "y" * 200 + "\n```\n"
    checked = [n for n, line, lang in fenced_lines(page)
               if len(line) > LIMIT and lang not in VERBATIM]
    assert checked == [2]
