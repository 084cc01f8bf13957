"""The request log: every HTTP request qidf sends, as one line on stderr (``--verbose``) and
as JSON lines in a file (``--trace FILE``), for someone debugging a 403 on a managed cluster.

What a line holds: the method, the path (index names as sent, percent-encoded), the query
parameters (values of any whose name suggests a credential masked), the status, the time
and the size of the answer. Never a header or a body. Every line goes through ``redact``
(the one redaction the product has) before it is written.

The transport (``transport.logged``) brackets each qidf request; the connections qidf builds
(``build.py``) note each HTTP attempt inside it (status, bytes, seconds), so a retried
request shows each attempt. A transport that notes nothing (a caller's own client, a test's
fake) gets one line per request, with 200 for a success and the size of the JSON answer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any
from urllib.parse import parse_qsl

from qidf_ctl import outfile
from qidf_ctl.cluster.query import spell, target
from qidf_ctl.cluster.redact import MASK, redact
from qidf_ctl.errors import UsageError

# Query parameters whose values could be credentials (none that qidf sends are, but a path
# written by a caller may carry one): their values are never logged.
_SECRET_PARAM = re.compile(r"(?i)(token|secret|passw|key|auth|sign|credential|session|"
                           r"scroll_id)")


@dataclass(frozen=True)
class Attempt:
    """One HTTP exchange as the connection saw it; ``status`` None: no answer."""

    status: int | None
    nbytes: int | None
    seconds: float
    error: str | None = None
    ended: float = dataclasses.field(default_factory=time.time)  # wall clock, for "ts"


_ATTEMPTS: ContextVar[list[Attempt] | None] = ContextVar("qidf_request_attempts",
                                                         default=None)


def note_attempt(status: int | None, nbytes: int | None, seconds: float,
                 error: str | None = None) -> None:
    """Called by a connection for each HTTP attempt; kept only while a request is logged."""
    attempts = _ATTEMPTS.get()
    if attempts is not None:
        attempts.append(Attempt(status, nbytes, seconds, error))


def shown_query(params: Mapping[str, Any] | None) -> dict[str, str]:
    """Query parameters as logged: values of credential-like names masked."""
    return {str(k): MASK if _SECRET_PARAM.search(str(k)) else redact(spell(v))
            for k, v in (params or {}).items() if v is not None}


def _json_size(response: Any) -> int | None:
    if response is None or isinstance(response, bool):
        return None
    try:
        return len(json.dumps(response, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):
        return None


class RequestLog:
    """Where request lines go: ``verbose`` (a writer of one text line) and/or a trace file
    (JSON lines, appended, flushed line by line so a killed run keeps what it sent)."""

    def __init__(self, verbose: Callable[[str], None] | None = None,
                 trace: IO[str] | None = None, trace_path: str | None = None) -> None:
        self.verbose = verbose
        self.trace = trace
        self.trace_path = trace_path
        self.requests = 0
        self._lock = threading.Lock()

    @classmethod
    def open(cls, verbose: Callable[[str], None] | None, trace_path: str | None
             ) -> RequestLog | None:
        """The log a command line asks for (None: neither option). The trace file is opened
        now, so that a path qidf cannot write is refused before any work."""
        if verbose is None and not trace_path:
            return None
        trace = None
        if trace_path:
            path = outfile.check(trace_path, "--trace")  # a FIFO, a device, a long name...
            trace = outfile.open_append(path, "--trace")
        return cls(verbose, trace, trace_path)

    def close(self) -> None:
        if self.trace is not None:
            self.trace.close()
            self.trace = None

    def note(self, message: str) -> None:
        """A line for --verbose only (e.g. which cluster and profile a command uses)."""
        if self.verbose is not None:
            with self._lock:
                self.verbose(redact(message))

    def record(self, method: str, path: str, params: Mapping[str, Any] | None,
               attempts: list[Attempt], seconds: float, *, response: Any = None,
               error: Any = None) -> None:
        """One line per attempt (or one for the request when no attempt was noted)."""
        base, _, inline = path.partition("?")
        query = shown_query({**dict(_inline_pairs(inline)), **dict(params or {})})
        if not attempts:
            status = getattr(error, "status", None) if error is not None else 200
            attempts = [Attempt(status, None if error is not None else _json_size(response),
                                seconds)]
        failure = None
        if error is not None:
            failure = getattr(error, "error_type", "") or type(error).__name__
        with self._lock:
            for number, attempt in enumerate(attempts, start=1):
                last = number == len(attempts)
                self._write(method, base, query, attempt, number if len(attempts) > 1 else 0,
                            attempt.error or (failure if last else None))

    def _write(self, method: str, path: str, query: dict[str, str], attempt: Attempt,
               number: int, error: str | None) -> None:
        self.requests += 1
        ms = round(attempt.seconds * 1000, 1)
        if self.verbose is not None:
            status = attempt.status if attempt.status is not None else "no answer"
            size = f", {attempt.nbytes:,} bytes" if attempt.nbytes is not None else ""
            more = f" ({error})" if error else ""
            again = f" [attempt {number}]" if number else ""
            self.verbose(redact(f"request: {method} {target(path, query)} -> {status}, "
                                f"{ms:.0f} ms{size}{more}{again}"))
        if self.trace is not None:
            started = datetime.fromtimestamp(attempt.ended - attempt.seconds, timezone.utc)
            line: dict[str, Any] = {
                "ts": started.isoformat(timespec="milliseconds"),  # when the attempt began
                "method": method, "path": path, "status": attempt.status, "ms": ms,
                "bytes": attempt.nbytes}
            if query:
                line["query"] = query
            if error:
                line["error"] = error
            if number:
                line["attempt"] = number
            try:
                self.trace.write(redact(json.dumps(line, ensure_ascii=False)) + "\n")
                self.trace.flush()
            except OSError as exc:
                self._stop_trace(exc)

    def _stop_trace(self, exc: OSError) -> None:
        """The trace file cannot take another line (a full disk, a size limit): the trace
        stops and the command is told, once. Within a change, the change then settles (its
        own requests go on untraced) or, between steps, stays journaled for the next qidf
        command: the request in hand was sent, only its line is missing."""
        with contextlib.suppress(OSError):
            assert self.trace is not None
            self.trace.close()
        self.trace = None
        raise UsageError(f"--trace {self.trace_path}: cannot write to it "
                         f"({exc.strerror or exc}): the trace stopped, and so did the "
                         "command; free the space or give another file")


def _inline_pairs(inline: str) -> list[tuple[str, str]]:
    return parse_qsl(inline, keep_blank_values=True) if inline else []


def start_request() -> tuple[list[Attempt], Any, float]:
    """Begin collecting the attempts of one request (``transport.logged``)."""
    attempts: list[Attempt] = []
    return attempts, _ATTEMPTS.set(attempts), time.monotonic()


def end_request(token: Any) -> None:
    _ATTEMPTS.reset(token)
