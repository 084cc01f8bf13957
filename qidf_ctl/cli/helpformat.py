"""``--help`` laid out as typer's own documentation shows it, on every typer version qidf allows.

typer's rich help changed between 0.21 and 0.29: newer versions label every parameter with
its Python type (``<bool>`` beside each flag, ``--help`` included; ``<str>`` for numbers read
as text; ``<close|clone|reopen>`` folded mid-word), name required arguments ``{index}`` in the
usage line, and give the description column what is left after seven columns (about 21
characters of ``apply --help`` at 80 columns). So qidf draws the help itself, from click's
parameters (names, metavar, default, environment variable, panel), which both versions
fill the same way:

- a flag shows no type; a value shows its metavar: what its declaration says (``FLOAT|auto``
  for a q read as text), else what its type implies (TEXT, INTEGER, FLOAT, PATH, the
  choices as ``[a|b|c]``), read from either parameter model (``_implied``);
- the names and the metavar never wrap; the help column takes the rest, at least
  ``MIN_HELP`` characters: choices that would leave it less (or that are longer than
  ``METAVAR_COLUMN``) are listed on a line of the help cell, wrapped between choices;
- usage lines name arguments one way: ``INDEX`` required, ``[INDEX]`` optional, ``X...``
  repeated.

The CLI reference (``scripts/docs/cli_reference.py``) reads the same functions, so the site
shows what the terminal shows.
"""

from __future__ import annotations

import enum
import inspect
import os
import types
import typing
from pathlib import Path
from typing import Any

import typer
import typer.core
import typer.models
from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

ARGUMENTS = "Arguments"
OPTIONS = "Options"
COMMANDS = "Commands"
METAVAR_COLUMN = 24  # longer choices are listed in the help cell
MIN_HELP = 34  # characters of help a line keeps at 80 columns: choices move to make room
BY_TYPE = {bool: "", int: "INTEGER", float: "FLOAT", str: "TEXT", Path: "PATH"}
CLICK_NAMES = {"boolean": "", "integer": "INTEGER", "float": "FLOAT", "text": "TEXT",
               "path": "PATH", "file": "FILE"}


# --- The metavar of a value --------------------------------------------------------------


def _base(annotation: Any) -> Any:
    """The value type of an option: ``Optional[X]`` and ``list[X]`` give ``X``."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = kept[0] if len(kept) == 1 else str
    if typing.get_origin(annotation) in (list, tuple, set):
        annotation = typing.get_args(annotation)[0]
    return annotation


def _choices(values: Any) -> str:
    return "[" + "|".join(str(getattr(v, "value", v)) for v in values) + "]"


def metavar_of_type(annotation: Any) -> str:
    """TEXT, INTEGER, FLOAT, PATH, ``[a|b]`` for an Enum, nothing for a flag."""
    base = _base(annotation)
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return _choices(base)
    if base in BY_TYPE:
        return BY_TYPE[base]
    return str(getattr(base, "__name__", "value")).upper()


def _implied(param: Any) -> str:
    """The metavar a parameter's type implies, on typer's own parameter model (0.2x:
    ``type_descriptor``, from the annotation) or on click's (``param.type``); TEXT when
    neither is recognised."""
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:
        if getattr(descriptor, "is_choice", False) and descriptor.choices:
            return _choices(descriptor.choices)
        return metavar_of_type(getattr(descriptor, "annotation", str))
    kind = getattr(param, "type", None)
    choices = getattr(kind, "choices", None)
    if choices:
        return _choices(choices)
    name = str(getattr(kind, "name", "text")).split()[0]
    return CLICK_NAMES.get(name, "TEXT")


# --- What one parameter shows --------------------------------------------------------------


def metavar(param: Any) -> str:
    """What to type after an option (nothing for a flag)."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    return param.metavar if param.metavar is not None else _implied(param)


def names(param: Any) -> str:
    """``--file, -f`` for an option (long names first), ``INDEX`` for an argument."""
    if param.param_type_name == "argument":
        return argument_name(param)
    opts = [*param.opts, *getattr(param, "secondary_opts", [])]
    long = [o for o in opts if o.startswith("--")]
    short = [o for o in opts if not o.startswith("--")]
    return ", ".join(long + short)


def argument_name(param: Any) -> str:
    name = (param.name or "").upper()
    return f"{name}..." if param.nargs != 1 else name


def range_text(param: Any) -> str:
    """``x>=1``, ``1<=x<=100`` for an option with bounds (typer's own notation)."""
    low = getattr(param, "min", None)
    high = getattr(param, "max", None)
    kind = getattr(param, "type", None)
    if low is None and high is None and kind is not None:
        low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    if low is not None and high is not None:
        return f"{low}<=x<={high}"
    if low is not None:
        return f"x>={low}"
    if high is not None:
        return f"x<={high}"
    return ""


def default_text(param: Any) -> str:
    """The default as ``[default: ...]`` shows it; "" when there is none to show."""
    show = getattr(param, "show_default", None)
    if isinstance(show, str):
        return show
    if show is False or getattr(param, "is_flag", False) or param.required:
        return ""
    value = param.default
    if callable(value) or value is None or value == [] or value == ():
        return ""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(getattr(v, "value", v)) for v in value)
    return str(value)


def extras(param: Any) -> list[str]:
    """The lines typer puts under an option's help: range, environment variable, default,
    required."""
    found = []
    bounds = range_text(param)
    if bounds:
        found.append(f"[{bounds}]")
    envvar = getattr(param, "envvar", None)
    if envvar and getattr(param, "show_envvar", False):
        shown = envvar if isinstance(envvar, str) else ", ".join(envvar)
        found.append(f"[env var: {shown}]")
    default = default_text(param)
    if default:
        found.append(f"[default: {default}]")
    if param.required:
        found.append("[required]")
    return found


def usage_pieces(command: Any, ctx: Any) -> list[str]:
    """``[OPTIONS]``, then each argument: ``INDEX``, ``[INDEX]``, ``INDICES...``; a group's
    ``COMMAND [ARGS]...``."""
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    pieces = ["[OPTIONS]"] if any(p.param_type_name == "option" for p in params) else []
    for p in params:
        if p.param_type_name == "argument":
            name = argument_name(p)
            pieces.append(name if p.required else f"[{name.removesuffix('...')}]"
                          + ("..." if p.nargs != 1 else ""))
    if hasattr(command, "list_commands"):
        pieces += ["COMMAND", "[ARGS]..."]
    return pieces


# --- Drawing ------------------------------------------------------------------------------


def _console() -> Console:
    """typer's console settings: width from TERMINAL_WIDTH, else COLUMNS (rich reads it)."""
    width = os.environ.get("TERMINAL_WIDTH", "")
    forced: bool | None = bool(os.environ.get("GITHUB_ACTIONS") or os.environ.get("FORCE_COLOR")
                               or os.environ.get("PY_COLORS")) or None
    if os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        forced = False
    return Console(width=int(width) if width.isdigit() else None, force_terminal=forced,
                   highlight=False)


def _markup(text: str, style: str = "") -> Text:
    return Text.from_markup(text, style=style, emoji=False)


def _named(param: Any) -> str:
    """An option's name in capitals (``--queries-are`` -> ``QUERIES_ARE``)."""
    longest = max(param.opts, key=len, default=param.name or "value")
    return longest.lstrip("-").replace("-", "_").upper()


def _choice_list(shown: str) -> bool:
    return shown.startswith("[") and "|" in shown


def column_metavar(param: Any, limit: int = METAVAR_COLUMN) -> str:
    """The metavar column: the metavar, or for choices longer than ``limit``, the option's
    name in capitals (the choices then get a line of their own in the help cell)."""
    shown = metavar(param)
    return shown if len(shown) <= limit or not _choice_list(shown) else _named(param)


def choices_line(param: Any, limit: int = METAVAR_COLUMN) -> str:
    """``[choices: a, b, c]`` for choices not in the metavar column (``column_metavar``):
    wrapped between choices, never inside one."""
    shown = metavar(param)
    if len(shown) <= limit or not _choice_list(shown):
        return ""
    return f"[choices: {', '.join(shown.strip('[]').split('|'))}]"


def _help_cell(param: Any, limit: int) -> Text:
    lines: list[Text] = []
    if param.help:
        lines.append(_markup(" ".join(param.help.split())))
    if param.param_type_name == "option" and choices_line(param, limit):
        lines.append(Text(choices_line(param, limit), style="yellow"))
    lines += [Text(extra, style="dim") for extra in extras(param)]
    return Text("\n").join(lines)


def _limit(params: list[Any], width: int) -> int:
    """The longest metavar the column keeps so that the help column keeps ``MIN_HELP``
    characters at ``width`` (longer choice lists move into the help cell)."""
    options = [p for p in params if p.param_type_name == "option"]
    fixed = 4 + max((len(names(p)) for p in params), default=0) + 2  # panel, names, gap
    if any(p.required for p in params):
        fixed += 3
    limit = METAVAR_COLUMN
    while limit > 0:
        widest = max((len(column_metavar(p, limit)) for p in options), default=0)
        if width - fixed - (widest + 2 if widest else 2) >= MIN_HELP:
            break
        limit = widest - 1 if widest else 0
    return limit


def _panel(title: str, table: Table) -> Panel:
    return Panel(table, title=title, title_align="left", border_style="dim",
                 box=box.ROUNDED)


def _table() -> Table:
    return Table(box=None, show_header=False, expand=True, padding=(0, 1), pad_edge=False,
                 show_edge=False)


def params_panel(title: str, params: list[Any], width: int = 80) -> Panel:
    """One panel of arguments or options: [required], names, metavar, help, for a console
    ``width`` wide."""
    limit = _limit(params, width)
    table = _table()
    required = any(p.required for p in params)
    if required:
        table.add_column(no_wrap=True, style="red")
    table.add_column(no_wrap=True, style="bold cyan")
    table.add_column(no_wrap=True, style="yellow")
    table.add_column(ratio=1, overflow="fold")
    for p in params:
        shown = "" if p.param_type_name == "argument" else column_metavar(p, limit)
        row: list[RenderableType] = [Text(names(p)), Text(shown), _help_cell(p, limit)]
        table.add_row(*([Text("*" if p.required else ""), *row] if required else row))
    return _panel(title, table)


def _short_help(command: Any) -> str:
    text = command.short_help or inspect.cleandoc(command.help or "").split("\n\n")[0]
    return " ".join(text.split())


def commands_panels(group: Any, ctx: Any) -> list[Panel]:
    panels: dict[str, Table] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or getattr(command, "hidden", False):
            continue
        title = getattr(command, "rich_help_panel", None) or COMMANDS
        if title not in panels:
            table = panels[title] = _table()
            table.add_column(no_wrap=True, style="bold cyan")
            table.add_column(ratio=1)
        deprecated = " (deprecated)" if getattr(command, "deprecated", False) else ""
        panels[title].add_row(Text(name), _markup(_short_help(command) + deprecated))
    return [_panel(title, table) for title, table in panels.items()]


def _description(command: Any) -> RenderableType:
    paragraphs = inspect.cleandoc(command.help or "").partition("\f")[0].split("\n\n")
    parts: list[RenderableType] = []
    if getattr(command, "deprecated", False):
        parts.append(Text("(deprecated)", style="red"))
    for number, paragraph in enumerate(p for p in paragraphs if p.strip()):
        if number:
            parts.append(Text(""))
        verbatim = all(line.startswith("  ") for line in paragraph.splitlines())
        text = paragraph if verbatim else " ".join(paragraph.split())
        parts.append(_markup(text, "bold" if number == 0 else ""))
    return Group(*parts)


def render(command: Any, ctx: Any, width: int = 80) -> list[RenderableType]:
    """The help of one command or group for a console ``width`` wide, in order."""
    usage = " ".join([ctx.command_path, *usage_pieces(command, ctx)])
    found: list[RenderableType] = [Padding(Text(f"Usage: {usage}", style="bold"), 1)]
    if command.help:
        found.append(Padding(_description(command), (0, 1, 1, 1)))
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [p for p in params if p.param_type_name == "argument"]
    if arguments:
        found.append(params_panel(ARGUMENTS, arguments, width))
    panels: dict[str, list[Any]] = {OPTIONS: []}
    for p in params:
        if p.param_type_name == "option":
            panels.setdefault(getattr(p, "rich_help_panel", None) or OPTIONS, []).append(p)
    found += [params_panel(title, ps, width) for title, ps in panels.items() if ps]
    if hasattr(command, "list_commands"):
        found += commands_panels(command, ctx)
    if command.epilog:
        found.append(Padding(_markup(" ".join(command.epilog.split())), 1))
    return found


def print_help(command: Any, ctx: Any) -> None:
    console = _console()
    for part in render(command, ctx, console.width):
        console.print(part)


class QidfCommand(typer.core.TyperCommand):
    """A typer command whose --help and usage line are drawn by this module."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return usage_pieces(self, ctx)


class QidfGroup(typer.core.TyperGroup):
    """A typer group whose --help and usage line are drawn by this module."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return usage_pieces(self, ctx)


def install(app: typer.Typer) -> None:
    """This module's help (and usage line) on every command and group of ``app``."""
    app.info.cls = QidfGroup
    for command in app.registered_commands:
        command.cls = QidfCommand
    for group in app.registered_groups:
        group.cls = QidfGroup
        if group.typer_instance is not None:
            install(group.typer_instance)
