"""The one output boundary (``qidf_ctl.channels``): every channel a secret could leave by,
driven with registered secrets: the streams (a secret written in pieces, a library's
``print``), Python warnings (a client library's, as opensearch-py raises them for a
``Warning`` header: one ``warning: the server said`` line, redacted, no file:line), logging
(a library's handler opened on the real stderr before the guard), and real ``qidf``
processes against stand-in servers that echo the credentials in a ``Warning`` header and in
their bodies: ``show`` (text and ``--json``), ``search`` and ``mcp``, with a password, an API
key and a profile. ``tests/unit/test_secrets_output.py`` runs the whole matrix in process."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from qidf_ctl import channels
from qidf_ctl.cluster.redact import register_api_key, register_basic
from tests import secrets_matrix
from tests.support import netstubs

SECRET = "Zq#pa/ss@wo:rd%41"


@contextlib.contextmanager
def guarded():
    """The guard around a test's body (pytest puts its capture of the streams in place at
    the call, after the fixtures)."""
    register_basic("probe-user", SECRET)
    channels.install()
    try:
        yield
    finally:
        channels.uninstall()


def test_a_secret_written_in_pieces_is_one_text_to_redact(capsys):
    with guarded():
        sys.stdout.write("password " + SECRET[:5])
        sys.stdout.write(SECRET[5:] + " end\n")
        print("the library printed", SECRET, file=sys.stderr)
        sys.stderr.write("partial " + SECRET)
        sys.stderr.flush()
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    assert captured.out == "password *** end\n"
    assert captured.err == "the library printed ***\npartial ***"


def test_a_server_warning_is_one_redacted_line_without_file_and_line(capsys):
    from opensearchpy.exceptions import OpenSearchWarning

    with guarded():
        for _ in range(3):  # shown once per text, however many answers carry it
            warnings.warn(f"probe-user:{SECRET} was used", category=OpenSearchWarning,
                          stacklevel=1)
        warnings.warn("a second thing the server said", category=OpenSearchWarning,
                      stacklevel=1)
    err = capsys.readouterr().err
    assert err == ("warning: the server said: *** was used\n"
                   "warning: the server said: a second thing the server said\n")


def test_another_warning_is_one_line_too(capsys):
    with guarded():
        warnings.warn(f"token {SECRET}", category=UserWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert err == "warning: UserWarning: token ***\n" and ".py:" not in err


def test_logging_is_redacted_whatever_the_handler(capsys):
    """A handler opened on the real stderr before the guard (a library's own) and the root
    logger's: both write records whose message and arguments are already redacted."""
    register_api_key("kid9:Zq-key-9")
    raw = io.StringIO()
    library = logging.getLogger("some.client.library")
    library.addHandler(logging.StreamHandler(raw))
    library.propagate = True
    root = logging.getLogger()
    root_handler = logging.StreamHandler(sys.stderr)
    root.addHandler(root_handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    channels.install()
    try:
        library.warning("request failed: %s", {"auth": "kid9:Zq-key-9"})
        library.debug("< %s", "Zq-key-9 and kid9")
    finally:
        channels.uninstall()
        library.handlers.clear()
        root.removeHandler(root_handler)
        root.setLevel(old_level)
    logged = raw.getvalue() + capsys.readouterr().err
    assert secrets_matrix.leaks("kid9:Zq-key-9", logged) == []
    assert "request failed: {'auth': '***'}" in logged and "< *** and ***" in logged


def test_uninstall_gives_everything_back():
    before = (sys.stdout, sys.stderr, warnings.showwarning, logging.getLogRecordFactory(),
              list(warnings.filters))
    channels.install()
    channels.install()  # again: nothing more
    assert isinstance(sys.stderr, channels.RedactingStream)
    channels.uninstall()
    assert (sys.stdout, sys.stderr, warnings.showwarning, logging.getLogRecordFactory(),
            list(warnings.filters)) == before


# Real processes: the guard as the installed command has it (entry.main), with Python's own
# warnings machinery (not pytest's) and the clients' own code paths.

QIDF = [sys.executable, "-m", "qidf_ctl"]
SECRETS = [SECRET, "kZ:Q7"]  # a long one with every special character; id:key of short parts


def _channels(secret: str, folder: Path, n: int) -> list[tuple[str, list[str], dict[str, str]]]:
    config = folder / f"config-{n}.toml"
    config.write_text('[clusters.p]\nurl = "http://127.0.0.1:1"\nuser = "probe-user"\n'
                      'password_env = "QIDF_PROBE_SECRET"\n', encoding="utf-8")
    return [("--password", ["--user", "probe-user", "--password", secret], {}),
            ("QIDF_API_KEY", [], {"QIDF_API_KEY": secret}),
            ("profile password_env", ["--profile", "p"],
             {"QIDF_CONFIG": str(config), "QIDF_PROBE_SECRET": secret})]


def _commands(url: str) -> list[tuple[str, list[str]]]:
    return [("show", ["show", "code-search", "--url", url]),
            ("show --json", ["show", "code-search", "--url", url, "--json"]),
            ("search", ["search", "code-search", "handleWebSocketUpgrade", "--q", "0.3",
                        "--url", url]),
            ("mcp", ["mcp", "code-search", "--url", url])]


MCP_SESSION = "".join(json.dumps(m) + "\n" for m in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "search_code", "arguments": {"query": "handleWebSocketUpgrade"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "fetch_document", "arguments": {"id": "x"}}}))


def _run(argv: list[str], env: dict[str, str], stdin: str) -> tuple[int, str]:
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("QIDF_", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
                                 "https_proxy"))}
    full.update({"QIDF_RETRIES": "0", "QIDF_HOME": env.get("QIDF_HOME", "/nonexistent"),
                 **env})
    proc = subprocess.run([*QIDF, *argv], input=stdin, capture_output=True, text=True,
                          env=full, timeout=120, errors="surrogateescape")
    return proc.returncode, proc.stdout + proc.stderr


def test_no_secret_from_real_processes_on_any_channel(tmp_path):
    """Every command against a server that echoes the credentials in its error body and in a
    ``Warning`` header, and ``show`` against one whose successful answer holds them too: the
    warning is shown, as one redacted line; no spelling of the secret anywhere; no library
    file:line; no traceback. (A process takes 1-5 s to start: the whole matrix runs in
    process, tests/unit/test_secrets_output.py.)"""
    errors, success = netstubs.EchoCredentials("json-400"), netstubs.EchoCredentials("root-200")
    cases = []
    try:
        for n, secret in enumerate(SECRETS):
            for k, (name, extra, env) in enumerate(_channels(secret, tmp_path, n)):
                for command, argv in _commands(errors.url):
                    stdin = MCP_SESSION if command == "mcp" else ""
                    cases.append((name, command, secret, [*argv, *extra], env, stdin))
                command, argv = _commands(success.url)[k % 2]  # show, show --json
                cases.append((name, f"{command} (a 200 first)", secret, [*argv, *extra], env,
                              ""))
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda c: _run(c[3], c[4], c[5]), cases))
    finally:
        errors.shutdown()
        success.shutdown()
    problems, warned, missing = [], 0, []
    for (name, command, secret, _, _, _), (code, output) in zip(cases, results, strict=True):
        user = "probe-user" if "pass" in name else "u"
        found = secrets_matrix.leaks(secret, output, user)
        heard = "warning: the server said: the request carried" in output
        warned += heard
        if not heard:
            missing.append((name, command, output[-300:]))
        if found or "Traceback" in output or "Warning: " in output or ".py:" in output \
                or code == 0:
            problems.append((name, command, repr(secret), code, found, output[-300:]))
    assert problems == [], "\n".join(map(str, problems))
    assert missing == [], "\n".join(map(str, missing))  # every process heard the server
    secrets_matrix.report("unit: real processes (show, show --json, search, mcp), echo in "
                          "bodies and a Warning header", len(cases), len(problems), len(SECRETS))
