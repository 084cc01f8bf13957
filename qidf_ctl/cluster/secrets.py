"""Reading a secret (password, API key, bearer token) from an option, a variable or a file.

A secret that is present but empty, or a file that holds two lines, is a mistake to report,
not "no credentials": sending no credentials turns the real problem into a confusing 401
later. No message here ever contains the secret, and every secret read is registered with
``redact`` so that nothing downstream can print it either.
"""

from __future__ import annotations

from qidf_ctl import textfile
from qidf_ctl.cluster.redact import register_api_key, register_secret, register_token
from qidf_ctl.errors import UsageError

MAX_SECRET_BYTES = 64 << 10  # a password, key or token is one line; a JWT a few KiB


def _check_text(text: str, where: str) -> str:
    """One line of printable text; says what is wrong, never what the text is."""
    if not text.strip():
        raise UsageError(f"{where} is empty: give the secret, or leave the option out")
    if "\n" in text or "\r" in text:
        raise UsageError(f"{where} holds more than one line: a secret is one line")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise UsageError(f"{where} contains a control character (e.g. a tab or NUL)")
    return text


def _register(text: str, what: str) -> None:
    """Register ``text`` with the forms its kind can be echoed in (redact)."""
    {"API key": register_api_key, "bearer token": register_token}.get(what, register_secret)(
        text)


def read_file(path: str, what: str, option: str) -> str:
    """The secret in ``path``: its text without the final line break. The file is read like
    every other input (``qidf_ctl.textfile``: a missing file is not found, exit 5; a folder,
    binary or UTF-16 content a usage error), and no message quotes what it holds."""
    file = textfile.read(path, f"{what} file", option, max_bytes=MAX_SECRET_BYTES)
    text = file.text
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith("\n"):
        text = text[:-1]
    _register(text, what)
    return _check_text(text, file.label)


def read_secret(what: str, value: str | None, path: str | None, option: str,
                file_option: str) -> str | None:
    """``value`` (from ``option`` or its variable) or the content of ``path``; None when
    neither is given. Both given is an error: which one was meant?"""
    if value is not None and path:
        raise UsageError(f"give {option} or {file_option}, not both")
    if path:
        return read_file(path, what, file_option)
    if value is None:
        return None
    _register(value, what)
    return _check_text(value, f"the {what} given with {option}")
