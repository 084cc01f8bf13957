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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from qidf_ctl.progress import BarFactory

err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)


def emit_json(payload: Any) -> None:
    """One machine-readable object on stdout, for CI."""
    sys.stdout.write(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n")


@contextmanager
def step_status(quiet: bool = False) -> Iterator[Any]:
    """A spinner on stderr whose text follows the library's progress messages."""
    if quiet or not err.is_terminal:
        yield lambda message: err.print(f"[dim]{message}[/dim]") if not quiet else None
        return
    with err.status("working") as status:
        yield lambda message: status.update(message)


@contextmanager
def bar(description: str, total: int | None, quiet: bool = False) -> Iterator[Any]:
    """A progress bar on stderr; yields ``advance(n)``."""
    if quiet:
        yield lambda n=1: None
        return
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn()]
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda n=1: progress.advance(task, n)


def bars(quiet: bool = False) -> BarFactory:
    """The library's ``bar`` argument: progress bars on stderr, none when ``quiet``."""
    return lambda description, total: bar(description, total, quiet=quiet)
