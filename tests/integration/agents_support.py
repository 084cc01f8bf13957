"""Starting ``qidf mcp`` as its clients do (a subprocess on stdio, or on streamable HTTP) and
talking to it with the ``mcp`` SDK's own client, for the agent integration tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

NO_PROXY = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def server_args(index: str, url: str, *extra: str) -> list[str]:
    return ["-m", "qidf_ctl", "mcp", index, "--url", url, "--retries", "0", *extra]


@asynccontextmanager
async def stdio_client(args: list[str], errlog: Path, env: dict[str, str] | None = None):
    """The SDK's client over stdio, the server's stderr kept in ``errlog``."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.stdio import stdio_client as transport

    params = StdioServerParameters(command=sys.executable, args=args,
                                   env={**NO_PROXY, **(env or {})})
    with errlog.open("w", encoding="utf-8") as log:
        async with Client(transport(params, errlog=log)) as client:
            yield client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def http_server(args: list[str], errlog: Path, timeout_s: float = 120
                ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``qidf mcp --transport http`` as a process; yields its endpoint once it listens."""
    port = free_port()
    env = {**os.environ, **NO_PROXY}
    with errlog.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen([sys.executable, *args, "--transport", "http", "--port",
                                 str(port)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=log, env=env)
        try:
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise AssertionError(f"qidf mcp exited {proc.returncode}: "
                                         f"{errlog.read_text()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.2)
            else:
                raise AssertionError(f"qidf mcp did not listen on {port}: {errlog.read_text()}")
            yield f"http://127.0.0.1:{port}/mcp", proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def error_line(result: Any) -> str:
    assert result.is_error
    (content,) = result.content
    text = content.text
    assert "\n" not in text and "Traceback" not in text and "File \"" not in text, text
    return text  # type: ignore[no-any-return]
