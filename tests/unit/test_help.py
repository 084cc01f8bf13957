"""Help that wraps to the terminal: every command's and group's --help rendered at 80 and 140
columns, checked for line breaks rich did not make, values cut short, and an example.

A line break inside a paragraph is rich's only when the next word would not have fitted on
the line: a break before that is hand-made (a docstring's own line break), the defect of
issue 25 ("(close, update, reopen; or" / "--strategy clone:" / "searches keep working).").
The same rule applies inside the option tables, cell by cell, with the cell's width.

The tables read like typer's own docs (issue 35): no <bool>/<str> labels, FLOAT and INTEGER
for numbers, choices never cut, room for the help at 80 columns, one way to write usage
lines, and the generated CLI reference says the same. Run on typer 0.21.2, 0.24.2, 0.27.3
and 0.29.2 (``pip install --target DIR typer==V`` and ``PYTHONPATH=DIR``).
"""

from __future__ import annotations

import itertools
import re
import typing

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
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width)},
                                prog_name="qidf")
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


# --- The option tables read like typer's own docs (issue 35) ------------------------------
# A flag shows no type; a value shows what to type (TEXT, INTEGER, FLOAT, a PATH, or its
# choices); nothing is cut mid-word; the help column keeps room to read at 80 columns; usage
# lines name arguments one way. The same on every typer version pyproject allows: the checks
# read the click parameters through ``_kind``, which knows both parameter models (typer's own
# from 0.2x, click's before).

MIN_HELP_COLUMN = 34  # characters of help per line in every table at 80 columns
TYPE_LABEL = re.compile(r"<[a-z][a-z0-9_.|\[\], -]*>")  # typer's <bool>, <str>, <a|b>
USAGE = re.compile(r"^ Usage: qidf(?: [a-z][a-z-]*)* \[OPTIONS\]"
                   r"(?: (?:COMMAND \[ARGS\]\.\.\.|\[?[A-Z][A-Z0-9_]*\]?(?:\.\.\.)?))*\s*$")
NUMERIC_TEXT = {"--k1": "FLOAT", "--b": "FLOAT", "--q": "FLOAT"}  # numbers read as text


def _command(path: tuple[str, ...]) -> typer.core.TyperCommand:
    command = COMMAND
    for name in path:
        command = command.get_command(None, name)  # type: ignore[attr-defined]
    return command


def _kind(param) -> tuple[str, list[str] | None]:
    """(``flag``, ``integer``, ``float``, ``text`` or ``other``; the choices or None) of a
    click parameter, on typer's parameter model (0.2x: ``type_descriptor``) or click's."""
    descriptor = getattr(param, "type_descriptor", None)
    if getattr(param, "is_flag", False):
        return "flag", None
    if descriptor is not None:
        if descriptor.is_choice:
            return "other", [str(getattr(c, "value", c)) for c in descriptor.choices]
        annotation = descriptor.annotation
        if descriptor.is_list:
            annotation = typing.get_args(annotation)[0]
        name = {int: "integer", float: "float", str: "text"}.get(annotation, "other")
        return name, None
    choices = getattr(param.type, "choices", None)
    if choices:
        return "other", [str(getattr(c, "value", c)) for c in choices]
    name = param.type.name.split()[0]
    return (name if name in ("integer", "float", "text") else "other"), None


def _options(path: tuple[str, ...]) -> list:
    return [p for p in _command(path).params
            if p.param_type_name == "option" and not getattr(p, "hidden", False)]


def _row(text: str, param) -> str:
    """The line of the rendered help where ``param``'s row starts."""
    name = max(param.opts, key=len)
    # the names column: right after the border, or after the [required] column
    found = re.search(rf"^│ (?:[* ]  )?(?:-\w, )?{re.escape(name)}(?=[ ,/]).*$", text, re.M)
    assert found, f"no row for {name}"
    return found.group(0)


def _metavar(row: str, param) -> str:
    """What the row shows between the option's names and its help."""
    names = re.escape(max(param.opts, key=len))
    rest = re.sub(rf"^│ (?:[* ]  )?(?:-\w, )?{names}(?:, -\w)?(?: ?/ ?--[\w-]+)?", "", row)
    words = rest.split()
    first_help = (param.help or "").split()[:1]
    return "" if words[:1] == first_help else (words[0] if words else "")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "qidf")
def test_types_read_like_typers_docs(path, width):
    """No <bool>, <str> or <int> labels; a flag shows no type, --help included; a number
    shows INTEGER or FLOAT, --k1, --b and --q (read as text, validated once) too."""
    text = render(path, width)
    assert not TYPE_LABEL.findall(text), TYPE_LABEL.findall(text)[:5]
    for param in _options(path):
        kind, choices = _kind(param)
        shown = _metavar(_row(text, param), param)
        name = max(param.opts, key=len)
        if kind == "flag":
            assert shown == "", f"{name} is a flag but shows {shown!r}"
        elif kind in ("integer", "float"):
            assert shown == kind.upper() if kind == "float" else shown == "INTEGER", (name, shown)
        elif name in NUMERIC_TEXT:
            assert shown.startswith(NUMERIC_TEXT[name]), (name, shown)
        elif choices:  # in the type column, or listed in the help cell under the name
            named = name.lstrip("-").replace("-", "_").upper()
            assert shown in (f"[{'|'.join(choices)}]", named), (name, shown)
            assert shown != named or f"[choices: {', '.join(choices)}" in " ".join(
                line.strip("│ ") for line in text.splitlines()), (name, shown)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "qidf")
def test_choices_are_never_cut(path, width):
    """A choice list short enough for the type column appears there whole (a|b|c on one
    line); a longer one is listed in the help cell, broken between choices, never inside
    one."""
    text = render(path, width)
    lines = text.splitlines()
    for param in _options(path):
        _, choices = _kind(param)
        shown = _metavar(_row(text, param), param)
        listed = choices or (shown.strip("[]").split("|") if "|" in shown else None)
        if not listed:
            continue
        whole = "|".join(listed)
        if shown == f"[{whole}]":
            assert any(whole in line for line in lines), f"{whole!r} is cut in {path}"
        for choice in listed:
            alone = re.compile(rf"(?:^|[\s\[|,]){re.escape(choice)}(?:$|[\s\]|,])")
            assert any(alone.search(line.strip("│ ")) for line in lines), (
                f"choice {choice!r} of {param.opts[0]} is cut in {path}")


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "qidf")
def test_the_help_column_has_room_at_80_columns(path):
    """apply --help once gave its descriptions about 21 characters (--stats took 29 lines)."""
    text = render(path, 80)
    box: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("╭"):
            box = []
        elif line.startswith("╰") and box is not None:
            inner = [row[:row.rindex(BOX_SIDE)] for row in box if BOX_SIDE in row[1:]]
            room = max(len(row) for row in inner) - _help_column(inner)
            assert room >= MIN_HELP_COLUMN, f"{room} characters of help in {path}"
            box = None
        elif box is not None:
            box.append(line)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "qidf")
def test_usage_lines_name_arguments_one_way(path):
    """INDEX when required, [INDEX] when not, FILES... for several: never {index}."""
    usage = next(line for line in render(path, 140).splitlines() if "Usage:" in line)
    assert USAGE.match(usage), usage


def test_the_cli_reference_shows_what_help_shows():
    """docs/reference/cli.md is rendered from the app: the same types and usage lines."""
    import importlib.util
    import sys
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "scripts" / "docs" / "cli_reference.py"
    spec = importlib.util.spec_from_file_location("cli_reference", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    page = module.render(cli.app)
    assert "&lt;str&gt;" not in page and "&lt;bool&gt;" not in page and "<str>" not in page
    assert "| `--k1 FLOAT` |" in page and "| `--json` |" in page
    assert "| `--strategy [close|clone|reopen]` |" in page  # a code span keeps its pipes
    usages = re.findall(r"^\$ (qidf.*)$", page, re.M)
    assert "qidf apply [OPTIONS] [INDEX]" in usages and "qidf search [OPTIONS] INDEX TEXT" in usages
    assert not [u for u in usages if "{" in u]
