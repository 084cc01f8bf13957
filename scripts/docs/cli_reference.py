"""The CLI reference, rendered from the typer app itself so that it cannot drift from it.

Walks ``typer.main.get_command(app)``: every command and group in the order ``qidf --help``
lists them, with its help, usage, arguments and options as ``--help`` shows them (the same
help records, so defaults and environment variables are the terminal's). Options that a set of
commands share word for word (the connection options of every cluster command) are listed
once, and each command links to them.

    python scripts/docs/cli_reference.py > cli.md     (what the site's reference page holds)
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import typer
import typer.main
from rich.text import Text

from qidf_ctl.cli import helpformat

Row = tuple[str, str, str, str]  # option, meaning, default, environment variable
_ESCAPE = re.compile(r"([\\*_\[\]])")


@dataclass
class _Command:
    path: str  # "qidf engine start"
    command: Any
    ctx: Any
    panels: dict[str, list[Row]] = field(default_factory=dict)  # panel title -> rows
    arguments: list[Row] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return self.path.replace(" ", "-")


def _plain(markup: str) -> str:
    """Help text as the terminal shows it: typer's rich markup rendered, escapes undone."""
    return Text.from_markup(markup, emoji=False).plain


def _inline(text: str, *, cell: bool = False) -> str:
    """Plain text as Markdown: code spans kept, everything else escaped."""
    pieces = re.split(r"(`[^`]*`)", text)
    out = []
    for piece in pieces:
        if piece.startswith("`") and piece.endswith("`") and len(piece) > 1:
            out.append(piece)
            continue
        piece = _ESCAPE.sub(r"\\\1", piece).replace("<", "&lt;").replace(">", "&gt;")
        out.append(piece.replace("|", "\\|") if cell else piece)
    return "".join(out)


def _fence(body: str, lang: str = "") -> str:
    return f"```{lang}\n{body.rstrip()}\n```"


def _help_blocks(help_text: str) -> list[str]:
    """A docstring's paragraphs as Markdown blocks: prose joined, indented or ``\\b`` blocks
    kept as written, ``Example: qidf ...`` as a console block."""
    blocks: list[str] = []
    verbatim: list[str] = []
    for para in re.split(r"\n[ \t]*\n", inspect.cleandoc(help_text)):
        lines = para.splitlines()
        if para.startswith("\b") or all(line[:1] in (" ", "\t") for line in lines):
            verbatim.append(textwrap.dedent(para.lstrip("\b").strip("\n")))
            continue
        if verbatim:
            blocks.append(_fence("\n\n".join(verbatim), "bash"))
            verbatim = []
        example = re.match(r"Examples?:\s*", para)
        if example:
            commands = [c.strip() for c in para[example.end():].splitlines() if c.strip()]
            blocks.append("Example:\n\n" + _fence("\n".join(f"$ {c}" for c in commands),
                                                 "console"))
        else:
            blocks.append(_inline(_plain(" ".join(line.strip() for line in lines))))
    if verbatim:
        blocks.append(_fence("\n\n".join(verbatim), "bash"))
    return blocks


def _row(param: Any, ctx: Any) -> Row | None:
    """An option or argument as ``--help`` draws it (``qidf_ctl.cli.helpformat``): the
    same names, metavar, choices, range, default and environment variable."""
    if getattr(param, "hidden", False):
        return None
    names = helpformat.names(param)
    if param.param_type_name == "option":
        names = f"{names} {helpformat.column_metavar(param)}".strip()
    meaning = _plain(" ".join((param.help or "").split()))
    choices = helpformat.choices_line(param) if param.param_type_name == "option" else ""
    if choices:
        meaning += f" {choices.strip('[]').capitalize()}."
    bounds = helpformat.range_text(param)
    if bounds:
        meaning += f" Range: {bounds}."
    if param.required:
        meaning += " Required."
    envvar = getattr(param, "envvar", None) if getattr(param, "show_envvar", False) else None
    shown_env = envvar if isinstance(envvar, str) or envvar is None else ", ".join(envvar)
    return names, meaning.strip(), helpformat.default_text(param), shown_env or ""


def _collect(command: Any, ctx: Any, path: str) -> list[_Command]:
    if getattr(command, "hidden", False):
        return []
    found = _Command(path, command, ctx)
    for param in command.get_params(ctx):
        row = _row(param, ctx)
        if row is None:
            continue
        if param.param_type_name == "argument":
            found.arguments.append(row)
        else:
            panel = getattr(param, "rich_help_panel", None) or "Options"
            found.panels.setdefault(panel, []).append(row)
    commands = [found]
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            sub_ctx = typer.Context(sub, info_name=name, parent=ctx)
            commands += _collect(sub, sub_ctx, f"{path} {name}")
    return commands


def _shared_panels(commands: list[_Command]) -> dict[str, list[Row]]:
    """Panels (other than "Options") that every command having them has word for word."""
    seen: dict[str, list[list[Row]]] = defaultdict(list)
    for c in commands:
        for title, rows in c.panels.items():
            if title != "Options":
                seen[title].append(rows)
    return {title: versions[0] for title, versions in seen.items()
            if len(versions) > 1 and all(v == versions[0] for v in versions)}


def _table(rows: list[Row], first: str) -> list[str]:
    lines = [f"| {first} | meaning | default | environment |", "|---|---|---|---|"]
    for names, meaning, default, env in rows:
        cells = [f"`{names}`", _inline(meaning, cell=True),
                 f"`{default}`" if default else "", f"`{env}`" if env else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") + "-options"


def _section(c: _Command, shared: dict[str, list[Row]]) -> list[str]:
    usage = " ".join(helpformat.usage_pieces(c.command, c.ctx))
    lines = [f"## `{c.path}` {{ #{c.anchor} }}", "",
             _fence(f"$ {c.path} {usage}".rstrip(), "console"), ""]
    if getattr(c.command, "deprecated", False):
        lines += ["*Deprecated.*", ""]
    for block in _help_blocks(c.command.help or ""):
        lines += [block, ""]
    if c.arguments:
        lines += [*_table(c.arguments, "argument"), ""]
    for title, rows in c.panels.items():
        if title in shared:
            lines += [f"{title} options: [the {len(rows)} shared by every command that has "
                      f"them](#{_slug(title)}).", ""]
        else:
            lines += [f"**{title}**", "", *_table(rows, "option"), ""]
    if c.command.epilog:
        lines += [_inline(_plain(c.command.epilog)), ""]
    if hasattr(c.command, "list_commands"):
        lines += ["| command | what it does |", "|---|---|"]
        for name in c.command.list_commands(c.ctx):
            sub = c.command.get_command(c.ctx, name)
            if not getattr(sub, "hidden", False):
                summary = _inline(_plain(sub.get_short_help_str(limit=300)), cell=True)
                lines.append(f"| [`{c.path} {name}`](#{c.anchor}-{name}) | {summary} |")
        lines.append("")
    return lines


def render(app: typer.Typer, prog: str = "qidf") -> str:
    """Markdown for every command of ``app``: one section each, shared options once."""
    root = typer.main.get_command(app)
    commands = _collect(root, typer.Context(root, info_name=prog), prog)
    shared = _shared_panels(commands)
    lines: list[str] = []
    for c in commands:
        lines += _section(c, shared)
    for title, rows in shared.items():
        users = sum(1 for c in commands if title in c.panels)
        lines += [f"## {title} options {{ #{_slug(title)} }}", "",
                  f"The same {len(rows)} options on each of the {users} commands that take "
                  "them.", "", *_table(rows, "option"), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    from qidf_ctl.cli import app as qidf_app

    print(render(qidf_app), end="")
