"""The one place where library errors become CLI output: one ``error:`` line on stderr (or
one JSON object with ``--json``) and a documented exit code, never a traceback."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer

from qidf_ctl import interrupts
from qidf_ctl.cli.output import emit_json, err
from qidf_ctl.cluster import redact
from qidf_ctl.cluster.redact import redact_external
from qidf_ctl.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, QidfError, UsageError
from qidf_ctl.formula import InvalidParameter

F = TypeVar("F", bound=Callable[..., Any])

DEBUG_ENV = "QIDF_DEBUG"  # set to 1 to see the traceback of an unexpected error


def wants_json() -> bool:
    """Whether the command line asked for JSON (errors then come as JSON too)."""
    return "--json" in sys.argv[1:]


_reported: list[int] = []  # the codes report_error printed (since reset_reported)


def reset_reported() -> None:
    _reported.clear()


def reported() -> bool:
    """Whether an error line was printed (since ``reset_reported``)."""
    return bool(_reported)


def report_error(message: str, code: int, kind: str = "error") -> None:
    """One line on stderr; with --json, also one JSON object on stdout for CI."""
    _reported.append(code)
    message = redact(" ".join(message.split()))  # one line, whatever the message held
    if wants_json():
        emit_json({"error": {"message": message, "exit_code": code, "kind": kind}})
    err.print(f"error: {message}", markup=False)


def _described(exc: BaseException) -> tuple[str, int, str]:
    """The message, exit code and kind ``one_line_errors`` gives an exception."""
    if isinstance(exc, InvalidParameter):
        return str(exc), EXIT_USAGE, "usage"
    if isinstance(exc, QidfError):
        return str(exc), exc.exit_code, type(exc).__name__
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", EXIT_INTERRUPTED, "interrupted"
    return (f"unexpected {type(exc).__name__}: {redact_external(str(exc))} (a qidf bug: "
            f"please report it; set {DEBUG_ENV}=1 to see the traceback)", EXIT_FAILED, "bug")


def fail_after(measured: dict[str, Any] | None, exc: BaseException) -> NoReturn:
    """Fail with ``exc`` after the work measured so far: with --json, one object holding
    what was measured and the error (stdout stays one object); as text, the error line (the
    caller printed the measurements)."""
    if isinstance(exc, OSError):
        exc = UsageError(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
    message, code, kind = _described(exc)
    message = redact(" ".join(message.split()))
    if wants_json():
        emit_json({**(measured or {}), "error": {"message": message, "exit_code": code,
                                                 "kind": kind}})
    err.print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def one_line_errors(func: F) -> F:
    """Turn every exception into one clear line and an exit code, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except InvalidParameter as exc:
            report_error(str(exc), EXIT_USAGE, "usage")
            raise typer.Exit(EXIT_USAGE) from None
        except QidfError as exc:
            report_error(str(exc), exc.exit_code, type(exc).__name__)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            if interrupts.is_server():  # a signal is how a server is meant to stop
                err.print(f"qidf {sys.argv[1]} stopped", markup=False)
                raise typer.Exit(0) from None
            report_error("interrupted", EXIT_INTERRUPTED, "interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # a bug: still one line, the traceback on request
            if os.environ.get(DEBUG_ENV):
                raise
            report_error(*_described(exc))
            raise typer.Exit(EXIT_FAILED) from None

    return wrapper  # type: ignore[return-value]
