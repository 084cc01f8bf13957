"""The ``qidf`` application: the typer app, ``--version``, and the entry point.

Command groups live in their own modules and register on ``app`` when the ``cli`` package
imports them. Every library error becomes one line on stderr and a documented exit code
(``qidf_ctl.errors``); nothing printed contains a password or API key.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Annotated

import typer

from qidf_ctl import __version__
from qidf_ctl.cli.boundary import DEBUG_ENV, report_error
from qidf_ctl.cli.output import out
from qidf_ctl.errors import EXIT_CODES, EXIT_FAILED, EXIT_INTERRUPTED

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


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: usage errors also become one line (no usage box, no traceback)."""
    # A CI job that times out sends SIGTERM: raise KeyboardInterrupt instead of dying, so
    # that the library's cleanup (reopening an index, releasing a lease) still runs.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        code = app(standalone_mode=False)
    except typer.Exit as exc:
        code = exc.exit_code
    except typer.Abort:
        report_error("interrupted", EXIT_INTERRUPTED, "interrupted")
        code = EXIT_INTERRUPTED
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
    sys.exit(code if isinstance(code, int) else 0)
