"""``qidf mcp`` on stdio spoken to line by line, as a client does: each request is sent once
the answer to the one before has come (a client that closes stdin ends the session and
cancels what is in flight), so that a test sees every answer, and the raw lines a test
wants to send (a truncated JSON-RPC line, unknown arguments) go out as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(number: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment without any QIDF_ or proxy variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("QIDF_") and k.lower() not in ("http_proxy", "https_proxy")}
    env.update({"QIDF_RETRIES": "0", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    env.update(extra or {})
    return env


def exchange(argv: list[str], messages: list[dict[str, Any] | str | Callable[[], Any]],
             env: dict[str, str], timeout: float = 180
             ) -> tuple[int, list[dict[str, Any]], str]:
    """Start ``qidf mcp`` with ``argv``, send the initialize handshake then ``messages``
    (an object, or a raw line sent as is; a callable is run there, between two requests),
    each after the answer to the one before (a notification or a raw line without an id:
    at once), then close stdin (which ends the server). Returns the exit code, the answers,
    and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "qidf_ctl", "mcp", *argv],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    err_chunks: list[str] = []
    reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()),
                              daemon=True)
    reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    answers: list[dict[str, Any]] = []
    try:
        for message in [INITIALIZE, INITIALIZED, *messages]:
            if callable(message):
                message()
                continue
            line = message if isinstance(message, str) else json.dumps(message)
            try:
                proc.stdin.write(line.rstrip("\n") + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                break
            wanted = message.get("id") if isinstance(message, dict) else "any"
            if wanted is None:
                continue
            while True:
                got = proc.stdout.readline()
                if not got:
                    break
                answer = json.loads(got)
                answers.append(answer)
                if wanted == "any" or answer.get("id") == wanted:
                    break
            if not got:
                break
        proc.stdin.close()
        rest = proc.stdout.read()
        answers += [json.loads(line) for line in rest.splitlines() if line.strip()]
        proc.wait(timeout=60)
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    return proc.returncode, answers, "".join(err_chunks)


def by_id(answers: list[dict[str, Any]], number: int) -> dict[str, Any]:
    found = [a for a in answers if a.get("id") == number]
    assert found, f"no answer to request {number}: {answers}"
    return found[0]


def tool_text(answer: dict[str, Any]) -> tuple[bool, str]:
    """(is an error, the text) of a tools/call answer."""
    result = answer["result"]
    return bool(result.get("isError")), result["content"][0]["text"]
