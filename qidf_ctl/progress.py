"""The progress callbacks library functions take, so that they run with or without a terminal.

``Progress`` gets one message per step (a spinner's text); ``BarFactory`` opens a progress bar
for ``total`` items and yields ``Advance``. ``console.bars`` draws them on a terminal; the
defaults here draw nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Progress = Callable[[str], None]
Advance = Callable[[int], None]
BarFactory = Callable[[str, "int | None"], AbstractContextManager[Advance]]


def quiet(message: str) -> None:
    return None


def _ignore(n: int = 1) -> None:
    return None


@contextmanager
def no_bar(description: str, total: int | None) -> Iterator[Advance]:
    yield _ignore
