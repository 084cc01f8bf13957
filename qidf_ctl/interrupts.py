"""SIGINT and SIGTERM for the whole ``qidf`` process: when a signal interrupts, when it waits.

A CI job that times out sends SIGTERM; a person presses Ctrl-C. Python's default for
SIGTERM is to die on the spot (status 143, no cleanup, no line saying so), which is what
happened whenever the signal came before the CLI had set its handler (the first second or
two are imports) or after it had exited its commands (the result being printed, the
interpreter shutting down). So the handler is installed first thing (``qidf_ctl.entry``,
before the imports) and the process moves through three regimes:

- **interruptible** (reading, measuring, printing a read-only result): the signal raises
  ``KeyboardInterrupt`` at once; the command's boundary prints ``error: interrupted`` and
  exits 130.
- **deferred** (``deferred()``, entered while a change runs: ``install.signals``): the first
  signal only sets a flag, the step in flight finishes and the operation settles; a second
  signal raises ``KeyboardInterrupt`` (stop waiting: the journal stays for ``qidf
  recover``).
- **held** (``hold()``, once a change is made, in commands whose change is what they are
  for: ``apply``, ``revert``, ``recover``, ``apply -f``; they say so with
  ``hold_when_changed``): every signal is only recorded until the process exits, so the
  change's result is recorded and printed whole; ``finish`` then turns exit 0 into 130 and
  the CLI says why on stderr. A change that would start after the hold (the next item of
  ``apply -f``) sees the signal and does not start. ``sweep``, whose installs are steps of
  a measurement, does not hold: a signal there ends the sweep, which gives the index its
  similarity back in a ``cleanup`` region (deferred, and not refused for the signal that
  led there).

A server (``qidf mcp``, ``mark_server``) is meant to end by a signal: one at any time, its
start-up and the imports included, ends it with exit 0, as its help says.

``finish`` decides the exit code; from then on a signal is only recorded (nothing is left to
stop), and ``exit_code`` turns a last-moment one into 130 right before the process leaves
(``qidf_ctl.entry``, through ``os._exit``: Python's shutdown would restore the fatal
default). What no program can catch is a signal before the interpreter has run any of qidf
(its first 0.05-0.2 s): nothing has been done then.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)
SERVER_COMMANDS = ("mcp",)  # they run until stopped: a signal is how they end (exit 0)


class _State:
    def __init__(self) -> None:
        self.received: int | None = None  # the first signal since the process (or a change)
        self.depth = 0  # deferred() regions entered and not left
        self.held = False  # a change was made: record signals until the process exits
        self.installed = False  # the CLI's handler is set (else: a library caller's process)
        self.hold_enabled = False  # the command's change is its result: hold once made
        self.exiting = False  # the exit code is decided: signals are only recorded
        self.previous: dict[int, Any] = {}  # a library caller's handlers, while deferred
        self.before: dict[int, Any] = {}  # the handlers install() replaced
        self.server = False  # a server command: a signal is how it is meant to end


_state = _State()


def _handle(signum: int, frame: FrameType | None) -> None:
    first = _state.received is None
    if first:
        _state.received = signum
    if _state.exiting or (_state.held and _state.depth == 0):
        return  # the change is made: the result is printed, then finish() exits 130
    if _state.depth > 0 and first:
        return  # the step in flight finishes; the operation then settles
    raise KeyboardInterrupt


def install() -> None:
    """The CLI's handler for SIGINT and SIGTERM, from now until the process exits (or
    ``uninstall``; main thread only). A fresh state, unless the handler is in place already:
    a signal a library swallowed while qidf was importing it is still one to act on."""
    if not _state.installed:
        reset()
    if threading.current_thread() is threading.main_thread():
        if not _state.installed:
            _state.before = {sig: signal.getsignal(sig) for sig in HANDLED}
        for sig in HANDLED:
            signal.signal(sig, _handle)
        _state.installed = True


def uninstall() -> None:
    """The handlers from before ``install`` back, for a CLI run inside another program (the
    tests call the CLI in their own process)."""
    if _state.installed and threading.current_thread() is threading.main_thread():
        for number, handler in _state.before.items():
            signal.signal(number, handler)
    _state.installed = False
    reset()


def reset() -> None:
    _state.received, _state.depth, _state.held, _state.hold_enabled = None, 0, False, False
    _state.exiting = False
    _state.previous = {}
    _state.server = False


def mark_server(argv: list[str]) -> None:
    """The command line runs a server (``SERVER_COMMANDS``): a signal ends it with exit 0."""
    _state.server = bool(argv) and argv[0] in SERVER_COMMANDS


def is_server() -> bool:
    return _state.server


def hold_when_changed() -> None:
    """This command's change is its result: once a change is made, hold (``hold``)."""
    _state.hold_enabled = True


def received() -> int | None:
    """The first signal received (since the outermost ``deferred`` region began)."""
    return _state.received


def name() -> str:
    return signal.Signals(_state.received).name if _state.received else ""


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Signals wait while the body runs (see the module docstring). Outside the CLI (a
    library caller) the handler is put in place for the body only, then the caller's
    handlers come back."""
    main = threading.current_thread() is threading.main_thread()
    outermost = _state.depth == 0
    if outermost and not _state.installed:
        _state.received = None  # a library caller's earlier signal was its own business
    if outermost and main and not _state.installed:
        _state.previous = {sig: signal.getsignal(sig) for sig in HANDLED}
        for sig in HANDLED:
            signal.signal(sig, _handle)
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if _state.depth == 0 and _state.previous:
            for number, handler in _state.previous.items():
                signal.signal(number, handler)
            _state.previous = {}


@contextlib.contextmanager
def cleanup() -> Iterator[None]:
    """Putting things back after an interruption (a sweep giving the index its similarity
    back): the body runs although a signal came (the one that led here), with signals
    deferred; a new one waits too, a second stops it."""
    came = _state.received
    _state.received = None
    try:
        with deferred():
            yield
    finally:
        _state.received = came or _state.received


def hold() -> bool:
    """A change is made: if the command asked (``hold_when_changed``), record signals until
    the process exits (130) so that its result is printed whole, and say True. False
    otherwise (a library caller, a sweep): the caller is then told by an exception."""
    if _state.installed and _state.hold_enabled:
        _state.held = True
    return _state.held


def ended_as_meant() -> None:
    """The signal received was how this command is meant to end (a server stopped with
    Ctrl-C or SIGTERM, as a service manager stops it): exit 0, not 130."""
    _state.received = None


def held_signal() -> str:
    """The signal held since a change was made ("" if none): the command exits 130."""
    return name() if _state.held else ""


def finish(code: int, final: bool = False) -> int:
    """The exit code, once the command is done and its output written: a signal received
    meanwhile (held since the change was made, or swallowed by a library before it could
    interrupt) turns 0 into 130. ``final`` (the real process, about to exit): from here a
    signal is only recorded, for ``exit_code``."""
    if final:
        _state.exiting = True
    return exit_code(code)


def exit_code(code: int) -> int:
    """``code``, or 130 for a 0 when a signal was received (not for a server, which a signal
    is meant to stop): the process's last word."""
    return 130 if _state.received is not None and code == 0 and not _state.server else code
