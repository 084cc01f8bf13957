"""SIGINT and SIGTERM during a change: finish the step under way, then settle.

A CI runner that times out sends SIGTERM; a person presses Ctrl-C. Dying in the middle of an
HTTP call would leave the index in an unknown state (closed, write-blocked), so while a change
runs the first signal only sets a flag (``qidf_ctl.interrupts.deferred``): the step in flight
completes, the operation is then rolled back or finished (whichever is nearer to a
consistent index) and the command exits with 130. A second signal stops waiting: the
journal stays for ``qidf recover``. A signal after the last step leaves the change made:
the command records and prints it, then exits 130 (``interrupts.hold``).
"""

from __future__ import annotations

import contextlib
import signal
from types import TracebackType

from qidf_ctl import interrupts

HANDLED = interrupts.HANDLED


class SignalGuard:
    """Context manager deferring SIGINT/SIGTERM while a change runs (main thread only;
    elsewhere it only reads the flag, which stays unset)."""

    def __init__(self) -> None:
        self._region: contextlib.ExitStack | None = None

    @property
    def received(self) -> int | None:
        return interrupts.received()

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received else ""

    def __enter__(self) -> SignalGuard:
        self._region = contextlib.ExitStack()
        self._region.enter_context(interrupts.deferred())
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._region is not None:
            self._region.close()
            self._region = None
