"""Help text as paragraphs that rich wraps to the terminal.

Docstrings are wrapped at 100 columns in the source; typer's rich help keeps those line
breaks, so at 80 columns a sentence broke twice (once by hand, once by rich). ``unwrap``
joins the lines of each paragraph, and ``apply`` does it for every command and group of the
app once, after they are registered. A paragraph whose lines are all indented (commands to
copy) is kept as written: it is meant to be read line by line.
"""

from __future__ import annotations

import inspect

import typer

# One command a paragraph, unindented: typer's rich help strips the indentation of a block
# that follows the first paragraph directly, and an example must fit on one line at 80
# columns (tests/unit/test_help.py).
EXAMPLE = "Example:"


def _verbatim(lines: list[str]) -> bool:
    return all(line.startswith("  ") for line in lines)


def unwrap(text: str | None) -> str | None:
    """``text`` with the line breaks inside each paragraph replaced by spaces."""
    if text is None:
        return None
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines = paragraph.splitlines()
        if not lines:
            continue
        paragraphs.append(paragraph if _verbatim(lines)
                          else " ".join(line.strip() for line in lines))
    return "\n\n".join(paragraphs)


def examples(text: str | None) -> list[str]:
    """The example commands of a help text: each paragraph ``Example: qidf ...``."""
    return [paragraph.strip().removeprefix(EXAMPLE).strip()
            for paragraph in (unwrap(text) or "").split("\n\n")
            if paragraph.strip().startswith(EXAMPLE)]


def apply(app: typer.Typer) -> None:
    """Unwrap the help of every command, group and group callback of ``app``, recursively."""
    for command in app.registered_commands:
        command.help = unwrap(command.help or inspect.getdoc(command.callback))
    if app.registered_callback is not None:
        callback = app.registered_callback
        callback.help = unwrap(callback.help or inspect.getdoc(callback.callback))
    app.info.help = unwrap(app.info.help) if isinstance(app.info.help, str) else app.info.help
    for group in app.registered_groups:
        if isinstance(group.help, str):
            group.help = unwrap(group.help)
        if group.typer_instance is not None:
            apply(group.typer_instance)
