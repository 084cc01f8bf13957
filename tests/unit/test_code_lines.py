"""The line-shape code detector (issue 36) on real snippets (tests/fixtures/code_lines, each
from a permissively licensed file) and on text that must stay text: commit messages,
docstrings and prose. Every language here passes the product's test; the punctuation rule
alone (the test before) missed shell, SQL and YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from qidf_ctl.stats.code_lines import code_by_lines, code_line_counts, code_line_kind
from qidf_ctl.stats.text_shape import (
    CODE_TEXT_MIN,
    code_punctuation_share,
    looks_like_code,
    text_shape,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "code_lines"
CODE_FILES = sorted(p.name for p in FIXTURES.glob("*.txt") if p.name != "commit-messages.txt")


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CODE_FILES)
def test_every_fixture_language_looks_like_code(name):
    assert looks_like_code(read(name)), name


@pytest.mark.parametrize("name", ["shell-make.bash.txt", "python-textwrap.py.txt",
                                  "yaml-go-simdgen.yaml.txt"])
def test_the_lines_find_what_punctuation_alone_missed(name):
    text = read(name)
    assert code_punctuation_share(text) < CODE_TEXT_MIN  # the test before issue 36
    assert code_by_lines(text)


def test_commit_messages_read_as_text():
    messages = [m.strip() for m in read("commit-messages.txt").split("\x1e") if m.strip()]
    assert len(messages) >= 30
    shape = text_shape(messages)
    assert shape.code_like_share <= 0.1, [m for m in messages if looks_like_code(m)]


PROSE = [
    # a docstring of several lines (CPython's textwrap.dedent)
    "Remove any common leading whitespace from every line in `text`.\n\nThis can be used "
    "to make triple-quoted strings line up with the left\nedge of the display, while still "
    "presenting them in the source code\nin indented form.",
    # a commit message with a trailer and a conventional subject
    "fix: keep BM25 when the sample is mixed\n\nThe predictor read a mixed sample as code and"
    "\nmoved q off 1.\n\nSigned-off-by: A Developer <dev@example.org>",
    # a license paragraph
    "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR\nIMPLIED, "
    "INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,\nFITNESS FOR A "
    "PARTICULAR PURPOSE AND NONINFRINGEMENT.",
    # wrapped prose whose lines start with keywords
    "for the given key, returns the value\nif it is present; otherwise the default\nwith "
    "which the map was built.",
]


@pytest.mark.parametrize("text", PROSE)
def test_prose_docstrings_and_commit_messages_are_not_code(text):
    assert not code_by_lines(text)
    assert not looks_like_code(text)


@pytest.mark.parametrize("line, kind", [
    ("def each", "declaration"), ("end", "closer"), ("fi", "closer"),
    ("items.each do |x|", "block_word"), ("SELECT id, name FROM users;", "block_end"),
    ("lookup :: Ord k => k -> Map k a -> Maybe a", "signature"),
    ("local function f(x)", "declaration"), ("defmodule Foo.Bar do", "block_word"),
    ("name: qidf", "config_entry"), ("[tool.ruff]", "section"),
    ("export PATH=\"$HOME/bin:$PATH\"", "sigil"), ("set -e", "shell_builtin"),
    ("<div class=\"x\">", "markup"),
])
def test_line_kinds(line, kind):
    assert code_line_kind(line) == kind


@pytest.mark.parametrize("line", [
    "Returns the value of the key field.", "Note: this is slow.", "Signed-off-by: A <a@b>",
    "if the value is missing the default is used", "return the first element", "",
])
def test_prose_lines(line):
    assert code_line_kind(line) is None


def test_comments_and_doc_blocks_are_not_counted():
    code = '/* Copyright\n   Permission is hereby granted\n*/\nint x = 1;\nint y = 2;'
    assert code_line_counts(code) == (2, 2)
    python = 'def f():\n    """Return one.\n\n    More words here.\n    """\n    return 1'
    assert code_line_counts(python) == (2, 2)
    perl = "=head1 NAME\n\nFoo - a module\n\n=cut\n\nsub new {\n    my $class = shift;\n}"
    assert code_line_counts(perl) == (3, 3)


def test_one_line_is_never_code_by_its_lines():
    assert not code_by_lines("fix: handle nulls")  # a conventional commit subject
    assert not code_by_lines("x = 1")
