"""Progress and output on the terminal: progress to stderr, results to stdout.

Kept apart from the library so that library functions only take a ``progress`` callback and
stay usable from Python without a terminal.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from qidf_ctl.cluster.redact import redact, redact_tree
from qidf_ctl.progress import BarFactory


class RedactingConsole(Console):
    """A console that never shows a registered secret (``cluster.redact``): each text is
    redacted before rich wraps or cuts it (a secret cut in two would escape a later pass),
    and what rich renders (tables, progress lines) is redacted again before it is
    written."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(redact(o) if isinstance(o, str) else o for o in objects), **kwargs)

    def _render_buffer(self, buffer: Any) -> str:
        return redact(super()._render_buffer(buffer))


err = RedactingConsole(stderr=True, highlight=False, soft_wrap=True)
out = RedactingConsole(highlight=False, soft_wrap=True)


def emit_json(payload: Any) -> None:
    """One machine-readable object on stdout, for CI; every string in it redacted first
    (after json.dumps a secret would be escaped, and no longer the text redact knows)."""
    text = json.dumps(payload, sort_keys=True, default=str)
    clean = redact_tree(json.loads(text), external=False)
    sys.stdout.write(json.dumps(clean, indent=2, sort_keys=True) + "\n")


@contextmanager
def step_status(quiet: bool = False) -> Iterator[Any]:
    """A spinner on stderr whose text follows the library's progress messages."""
    if quiet or not err.is_terminal:
        yield (lambda message: err.print(f"[dim]{escape(redact(message))}[/dim]")
               if not quiet else None)
        return
    with err.status("working") as status:
        yield lambda message: status.update(escape(redact(message)))


@contextmanager
def bar(description: str, total: int | None, quiet: bool = False) -> Iterator[Any]:
    """A progress bar on stderr; yields ``advance(n)``."""
    if quiet:
        yield lambda n=1: None
        return
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn()]
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(escape(redact(description)), total=total)
        yield lambda n=1: progress.advance(task, n)


def bars(quiet: bool = False) -> BarFactory:
    """The library's ``bar`` argument: progress bars on stderr, none when ``quiet``."""
    return lambda description, total: bar(description, total, quiet=quiet)
