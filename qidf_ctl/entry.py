"""The ``qidf`` process: the signal handler first, then the imports, then the command.

Importing the CLI takes one to two seconds (typer, rich, the clients, numpy). A SIGTERM in
that time used to end the process with Python's default (status 143, no line); with the
handler set before the imports it is an interruption like any other: one ``error:`` line
and exit 130 (``qidf_ctl.interrupts``).

The process leaves through ``os._exit`` once its output is flushed and its exit code
decided (``interrupts.finish``, which turns a signal received meanwhile into 130; one during
the flush too). The
interpreter's shutdown after it (modules torn down, idle threads joined) does nothing qidf
needs, and it was where a late signal found Python's default handler again (143); and under
``python -m`` CPython exits by SIGINT (status -2) instead of with the code given whenever a
KeyboardInterrupt ended a string it ``exec``'d (what building a dataclass does during an
import), even though the interruption was handled.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from qidf_ctl import interrupts
from qidf_ctl.errors import EXIT_INTERRUPTED


def _exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone (`qidf ... | head`)
            stream.flush()
    os._exit(interrupts.exit_code(code))  # a signal during the flush still says 130


def main() -> None:
    interrupts.install()
    interrupts.mark_server(sys.argv[1:])
    try:
        import qidf_ctl.cli  # noqa: F401 - registers every command on the app
        from qidf_ctl.cli.app import run
    except KeyboardInterrupt:
        if interrupts.is_server():  # a server stopped while it started: as meant, exit 0
            sys.stderr.write(f"qidf {sys.argv[1]} stopped\n")
            _exit(interrupts.finish(0, final=True))
            return
        if "--json" in sys.argv[1:]:
            sys.stdout.write(json.dumps({"error": {"message": "interrupted", "exit_code":
                                                   EXIT_INTERRUPTED, "kind": "interrupted"}},
                                        indent=2, sort_keys=True) + "\n")
        sys.stderr.write("error: interrupted\n")
        _exit(interrupts.finish(EXIT_INTERRUPTED, final=True))
        return
    _exit(run(final=True))
