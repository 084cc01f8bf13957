"""The ``qidf`` application: the typer app, ``--version``, and the entry point.

Command groups live in their own modules and register on ``app`` when the ``cli`` package
imports them. Every library error becomes one line on stderr and a documented exit code
(``qidf_ctl.errors``); nothing printed contains a password or API key.
"""

from __future__ import annotations

import signal
import sys
from typing import Annotated

import typer

from qidf_ctl import __version__
from qidf_ctl.cli.boundary import report_error
from qidf_ctl.cli.output import out
from qidf_ctl.errors import EXIT_CODES, EXIT_INTERRUPTED

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
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        report_error(f"{exc.format_message()}{hint}", exc.exit_code, "usage")
        code = exc.exit_code
    sys.exit(code if isinstance(code, int) else 0)
