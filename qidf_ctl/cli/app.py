"""The ``qidf`` application: the typer app, ``--version``, and the entry point.

Command groups live in their own modules and register on ``app`` when the ``cli`` package
imports them. Every library error becomes one line on stderr and a documented exit code
(``qidf_ctl.errors``); nothing printed contains a password or API key.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from qidf_ctl import __version__, channels, interrupts
from qidf_ctl.cli.boundary import DEBUG_ENV, report_error, reported, reset_reported
from qidf_ctl.cli.output import err, out
from qidf_ctl.errors import EXIT_CODES, EXIT_FAILED, EXIT_INTERRUPTED, QidfError, UsageError

EPILOG = "Exit codes: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items())

app = typer.Typer(
    help="q-logarithmic IDF for BM25 on Elasticsearch and OpenSearch: no reindex, no analyzer "
    "change.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        out.print(f"qidf {__version__}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")]
    = False,
) -> None:
    """q-logarithmic IDF for BM25 on Elasticsearch and OpenSearch: no reindex, no analyzer
    change."""


def _check_arguments(argv: list[str]) -> None:
    """Arguments are text: bytes that are not UTF-8 (Python hands them over as lone
    surrogates) would fail wherever they are encoded, in a header or a URL."""
    for number, arg in enumerate(argv, 1):
        if any("\ud800" <= ch <= "\udfff" for ch in arg):
            raise UsageError(f"argument {number} holds bytes that are not UTF-8 text: give "
                             "it again in UTF-8")


def run(final: bool = False) -> int:
    """The command line, as an exit code: usage errors also become one line (no usage box,
    no traceback). ``final``: this is the process's last act (``qidf_ctl.entry``)."""
    # A CI job that times out sends SIGTERM: it interrupts like Ctrl-C, waits while a change
    # runs and, once the change is made, until its result is printed (qidf_ctl.interrupts).
    interrupts.install()
    interrupts.mark_server(sys.argv[1:])
    channels.install()  # every byte printed from here goes through the one redaction
    reset_reported()
    try:
        if interrupts.received():  # during the imports, and a library swallowed it
            raise KeyboardInterrupt
        _check_arguments(sys.argv[1:])
        code = app(standalone_mode=False)
        if code == EXIT_INTERRUPTED and not reported():
            # typer turns a KeyboardInterrupt in its own parsing into a silent 130
            if interrupts.is_server():
                err.print(f"qidf {sys.argv[1]} stopped", markup=False)
                code = 0
            else:
                report_error("interrupted", EXIT_INTERRUPTED, "interrupted")
    except typer.Exit as exc:
        code = exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        if interrupts.is_server():  # stopped before it served: as meant (its help: exit 0)
            err.print(f"qidf {sys.argv[1]} stopped", markup=False)
            code = 0
        else:
            report_error("interrupted", EXIT_INTERRUPTED, "interrupted")
            code = EXIT_INTERRUPTED
    except QidfError as exc:  # the arguments themselves, before any command
        report_error(str(exc), exc.exit_code, type(exc).__name__)
        code = exc.exit_code
    except Exception as exc:
        # click's (or typer's vendored click's) ClickException and UsageError.
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            ctx = getattr(exc, "ctx", None)
            hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            report_error(f"{exc.format_message()}{hint}", exc.exit_code, "usage")
            code = exc.exit_code
        else:  # outside any command's boundary (option parsing): still one line
            if os.environ.get(DEBUG_ENV):
                raise
            report_error(f"unexpected {type(exc).__name__}: {exc} (a qidf bug: please "
                         f"report it; set {DEBUG_ENV}=1 to see the traceback)", EXIT_FAILED,
                         "bug")
            code = EXIT_FAILED
    code = code if isinstance(code, int) else 0
    held = interrupts.held_signal()
    final_code = interrupts.finish(code, final)
    if final_code != code:
        err.print(f"error: interrupted ({held}) after the change was made: it is complete "
                  "and its result is above; exiting 130" if held else
                  f"error: interrupted ({interrupts.name()})", markup=False)
    if not final:
        interrupts.uninstall()
        channels.uninstall()
    return final_code


def main() -> None:
    """Entry point (in-process: tests, ``qidf_ctl.cli.main``); the installed command is
    ``qidf_ctl.entry.main``, which sets the signal handler before these imports."""
    sys.exit(run())
