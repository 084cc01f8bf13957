"""Help that wraps to the terminal: every command's and group's --help rendered at 80 and 140
columns, checked for line breaks rich did not make, values cut short, and an example.

A line break inside a paragraph is rich's only when the next word would not have fitted on
the line: a break before that is hand-made (a docstring's own line break), the defect of
issue 25 ("(close, update, reopen; or" / "--strategy clone:" / "searches keep working).").
The same rule applies inside the option tables, cell by cell, with the cell's width.
"""

from __future__ import annotations

import itertools
import re

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from qidf_ctl import cli
from qidf_ctl.cli import helptext

WIDTHS = (80, 140)
BOX_SIDE = "│"


def _paths(group: typer.core.TyperGroup, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, typer.core.TyperGroup):
            found += _paths(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


COMMAND = typer.main.get_command(cli.app)
PATHS = _paths(COMMAND)


def render(path: tuple[str, ...], width: int, app: typer.Typer = cli.app) -> str:
    # COLUMNS, not TERMINAL_WIDTH: typer reads that one once, when it first renders help.
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.output


def _breaks_in(paragraph: list[str], room: int) -> list[str]:
    """Line breaks in one paragraph (lines as rendered) made before the line was full."""
    bad = []
    for line, following in itertools.pairwise(paragraph):
        words = following.split()
        if not words or following.startswith("   "):  # an indented (verbatim) line
            continue
        if len(line.rstrip()) + 1 + len(words[0]) <= room:
            bad.append(f"{line.strip()!r} / {following.strip()!r}")
    return bad


def _help_column(inner: list[str]) -> int:
    """Where the table's last column starts: after the last gutter (two or more positions
    blank on every line) that has text to its right."""
    width = max(len(line) for line in inner)
    rows = [line.ljust(width) for line in inner]
    blank = [all(row[x] == " " for row in rows) for x in range(width)]
    column = 1
    for x in range(2, width):
        if not blank[x] and blank[x - 1] and blank[x - 2]:
            column = x
    return column


def _box_breaks(lines: list[str]) -> list[str]:
    """Hand-made breaks inside one table (the lines between its top and bottom border): a
    new row has text left of the help column; typer puts [default: ...], [env var: ...] and
    [required] on lines of their own."""
    inner = [line[:line.rindex(BOX_SIDE)] for line in lines if BOX_SIDE in line[1:]]
    if not inner:
        return []
    column = _help_column(inner)
    room = max(len(line) for line in inner) - column - 1
    bad: list[str] = []
    paragraph: list[str] = []
    for line in inner:
        cell = line[column:].rstrip()
        new_row = bool(line[1:column].strip())
        if new_row or not cell or cell.startswith("["):
            bad += _breaks_in(paragraph, room)
            paragraph = []
        if cell:
            paragraph.append(cell)
    return bad + _breaks_in(paragraph, room)


def hand_breaks(text: str, width: int) -> list[str]:
    """Every break in ``text`` (a rendered --help) that rich would not have made."""
    bad: list[str] = []
    paragraph: list[str] = []
    box: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("╭"):
            bad += _breaks_in(paragraph, width - 1)
            paragraph, box = [], []
        elif line.startswith("╰") and box is not None:
            bad += _box_breaks(box)
            box = None
        elif box is not None:
            box.append(line)
        elif not line.strip():
            bad += _breaks_in(paragraph, width - 1)
            paragraph = []
        else:
            paragraph.append(line)
    return bad + _breaks_in(paragraph, width - 1)


def test_the_check_finds_hand_made_breaks_and_accepts_rich_wrapping():
    """It can fail: docstrings rendered without unwrapping are caught (in a command's
    description and in a group's table of commands), the same unwrapped are not."""
    first = ("Install the q-log similarity on an index (close, update, reopen; or\n"
             "--strategy clone:\nsearches keep working).")
    doc = f"{first}\n\nThe oracle is the best q for these queries; the recommendation is the\n" \
          "reference q\n(--reference) unless another q beats it."

    def make(unwrapped: bool) -> typer.Typer:
        app = typer.Typer(rich_markup_mode="rich")

        @app.command("apply")
        def apply_(index: str) -> None:
            pass

        @app.command("show")
        def show(index: str) -> None:
            """Print the index's similarity."""

        app.registered_commands[0].help = helptext.unwrap(doc) if unwrapped else doc
        return app

    assert len(hand_breaks(render(("apply",), 80, make(False)), 80)) == 1
    assert len(hand_breaks(render((), 80, make(False)), 80)) == 1
    for path in (("apply",), ()):
        assert hand_breaks(render(path, 80, make(True)), 80) == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "qidf")
def test_help_wraps_only_where_rich_wraps(path, width):
    text = render(path, width)
    assert hand_breaks(text, width) == []
    assert "…" not in text, "a value was cut short"
    assert max(len(line) for line in text.splitlines()) <= width


@pytest.mark.parametrize("path", [p for p in PATHS if p], ids=" ".join)
def test_every_command_has_an_example_that_fits_on_one_line(path):
    command = COMMAND
    for name in path:
        command = command.get_command(None, name)  # type: ignore[attr-defined]
    if isinstance(command, typer.core.TyperGroup):
        return
    found = helptext.examples(command.help)
    assert found, f"qidf {' '.join(path)} has no 'Example: qidf ...' paragraph"
    assert all(e.startswith(f"qidf {' '.join(path)}") for e in found), found
    text = render(path, 80)
    rendered = [" ".join(line.split()) for line in text.splitlines()]
    for example in found:
        assert f"Example: {' '.join(example.split())}" in rendered, (
            f"{example!r} does not fit on one line at 80 columns")


def test_no_help_string_holds_a_line_break():
    """help= strings and docstrings after unwrapping: breaks only between paragraphs or in
    an indented example block."""
    for path in PATHS:
        command = COMMAND
        for name in path:
            command = command.get_command(None, name)  # type: ignore[attr-defined]
        for param in command.params:
            assert "\n" not in (getattr(param, "help", None) or ""), (path, param.name)
        for paragraph in (command.help or "").split("\n\n"):
            lines = paragraph.splitlines()
            assert len(lines) == 1 or all(line.startswith("  ") for line in lines), (
                path, paragraph)


def test_unwrap_keeps_paragraphs_and_indented_blocks():
    text = ("First line\n    goes on.\n\n    Example: qidf x --a\n\n      curl -d @a\n"
            "      curl -d @b\n")
    assert helptext.unwrap(text) == ("First line goes on.\n\nExample: qidf x --a\n\n"
                                     "  curl -d @a\n  curl -d @b")
    assert helptext.examples(text) == ["qidf x --a"]
    assert re.sub(r"\s+", " ", helptext.unwrap("a\nb\n\nc") or "") == "a b c"
