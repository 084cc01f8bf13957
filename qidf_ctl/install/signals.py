"""SIGINT and SIGTERM during a change: finish the step under way, then settle.

A CI runner that times out sends SIGTERM; a person presses Ctrl-C. Dying in the middle of an
HTTP call would leave the index in an unknown state (closed, write-blocked), so while a change
runs the first signal only sets a flag: the step in flight completes, the operation is then
rolled back or finished (whichever is nearer to a consistent index) and the command exits with
130. A second signal stops waiting: the journal stays for ``qidf recover``.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)


class SignalGuard:
    """Context manager deferring SIGINT/SIGTERM (main thread only; elsewhere it only reads
    the flag, which stays unset)."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received else ""

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None:
            raise KeyboardInterrupt  # the second signal: stop waiting
        self.received = signum

    def __enter__(self) -> SignalGuard:
        if threading.current_thread() is threading.main_thread():
            for sig in HANDLED:
                self._previous[sig] = signal.getsignal(sig)
                signal.signal(sig, self._handle)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
