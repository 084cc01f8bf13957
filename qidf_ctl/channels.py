"""One output boundary: every byte the ``qidf`` process prints goes through the one redaction.

A secret can reach a terminal or a log by more ways than qidf's own messages. A server (or a
proxy) can put the credentials it decoded in a ``Warning`` header, which opensearch-py turns
into a Python warning that the ``warnings`` module prints raw, with the library's file and
line; a client library logs through ``logging``; a library or a thread may ``print``. So the
CLI (``cli.app.run``) puts three guards in place for the whole command, each ending in
``cluster.redact`` (the secrets registry):

- **the streams**: ``sys.stdout`` and ``sys.stderr`` are wrapped so that every line written
  to them, by whomever, is redacted before it reaches the file descriptor (qidf's own words:
  ``redact``; text from outside is cleaned where it enters, below). Lines are kept whole until
  their end or a flush, so a secret written in two pieces is still one text to redact;
- **warnings**: ``warnings.showwarning`` prints one line and no file:line. A client
  library's warning is what the server said (its ``Warning`` header): ``warning: the server
  said: ...``, redacted as text from outside (short secrets as whole tokens too), each text
  once per command;
- **logging**: every log record, whatever logger and handler it goes to (a library's own
  handler opened on the real stderr before the wrap included), carries its message already
  redacted as text from outside (a record factory).

Files qidf writes are redacted by their writers (the trace file: ``cluster.requestlog``; runs
and plans through ``clean_text``); the MCP tools redact their results and errors
(``agents.mcp_tools``); the MCP transport writes below ``sys.stdout`` and only carries those.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import warnings
from collections.abc import Callable
from typing import IO, Any

# The libraries whose warnings are a server's words (its ``Warning`` header).
SERVER_WARNING_MODULES = ("opensearchpy", "elasticsearch", "elastic_transport")


def _redact(text: str) -> str:
    from qidf_ctl.cluster.redact import redact

    return redact(text)


def _redact_external(text: str) -> str:
    from qidf_ctl.cluster.redact import redact_external

    return redact_external(text)


def clean_text(text: str) -> str:
    """``text`` as a file qidf writes may hold it: without any registered secret."""
    return _redact(text)


class RedactingStream:
    """A text stream that redacts each line before the stream below sees it (a partial line
    waits for its end or a flush: rich flushes after each refresh of a progress bar)."""

    def __init__(self, raw: IO[str], clean: Callable[[str], str] = _redact) -> None:
        self.raw = raw
        self._clean = clean
        self._pending = ""
        self._lock = threading.RLock()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            self._pending += text
            if "\n" in self._pending:
                done, _, self._pending = self._pending.rpartition("\n")
                self.raw.write(self._clean(done + "\n"))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                pending, self._pending = self._pending, ""
                self.raw.write(self._clean(pending))
            self.raw.flush()

    def isatty(self) -> bool:
        return bool(self.raw.isatty())

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer, name...
        return getattr(self.raw, name)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def server_warning(category: type[Warning]) -> bool:
    """Whether a warning of ``category`` carries a server's words (a client library's)."""
    return getattr(category, "__module__", "").split(".")[0] in SERVER_WARNING_MODULES


class _State:
    def __init__(self) -> None:
        self.installed = False
        self.streams: tuple[Any, Any] | None = None
        self.warnings: Any = None  # the catch_warnings that restores them
        self.factory: Callable[..., logging.LogRecord] | None = None
        self.shown: set[str] = set()
        self.lock = threading.Lock()


_state = _State()


def warning_line(message: Warning | str, category: type[Warning]) -> str:
    """The one line a warning becomes (never the library's file and line)."""
    text = one_line(_redact_external(str(message)))
    if server_warning(category):
        return f"warning: the server said: {text}"
    return f"warning: {category.__name__}: {text}"


def _showwarning(message: Warning | str, category: type[Warning], filename: str,
                 lineno: int, file: IO[str] | None = None, line: str | None = None) -> None:
    text = warning_line(message, category)
    with _state.lock:
        if text in _state.shown:
            return
        _state.shown.add(text)
    stream = file if file is not None else sys.stderr
    with contextlib.suppress(OSError, ValueError):  # no stderr (closed, a reader gone)
        stream.write(text + "\n")
        stream.flush()


def _record_factory(base: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a library's record whose arguments do not fit its format
            message = f"{record.msg!r} {record.args!r}"
        record.msg, record.args = _redact_external(message), None
        return record

    return make


def install() -> None:
    """Put the three guards in place (see the module docstring); again: nothing more."""
    if _state.installed:
        return
    _state.installed = True
    _state.shown = set()
    _state.streams = (sys.stdout, sys.stderr)
    sys.stdout = RedactingStream(sys.stdout)  # type: ignore[assignment]
    sys.stderr = RedactingStream(sys.stderr)  # type: ignore[assignment]
    _state.warnings = warnings.catch_warnings()
    _state.warnings.__enter__()
    warnings.showwarning = _showwarning
    for module in SERVER_WARNING_MODULES:
        # Once per text (``_showwarning``), not once per line of the library: a server's
        # second, different warning is news too.
        warnings.filterwarnings("always", module=rf"{module}(\.|$)")
    _state.factory = logging.getLogRecordFactory()
    logging.setLogRecordFactory(_record_factory(_state.factory))


def uninstall() -> None:
    """The streams, warnings and logging as they were (a CLI run inside another program:
    the tests call the CLI in their own process)."""
    if not _state.installed:
        return
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, RedactingStream):
            with contextlib.suppress(OSError, ValueError):  # a reader gone
                stream.flush()
    if _state.streams is not None:
        sys.stdout, sys.stderr = _state.streams
    if _state.warnings is not None:
        _state.warnings.__exit__(None, None, None)
        _state.warnings = None
    if _state.factory is not None:
        logging.setLogRecordFactory(_state.factory)
    _state.installed = False
