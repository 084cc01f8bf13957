"""Reading a secret (password, API key, bearer token) from an option, a variable or a file.

A secret that is present but empty, or a file that holds two lines, is a mistake to report,
not "no credentials": sending no credentials turns the real problem into a confusing 401
later. No message here ever contains the secret, and every secret read is registered with
``redact`` so that nothing downstream can print it either.
"""

from __future__ import annotations

from pathlib import Path

from qidf_ctl.cluster.redact import register_secret
from qidf_ctl.errors import UsageError


def _check_text(text: str, where: str) -> str:
    """One line of printable text; says what is wrong, never what the text is."""
    if not text.strip():
        raise UsageError(f"{where} is empty: give the secret, or leave the option out")
    if "\n" in text or "\r" in text:
        raise UsageError(f"{where} holds more than one line: a secret is one line")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise UsageError(f"{where} contains a control character (e.g. a tab or NUL)")
    return text


def read_file(path: str, what: str, option: str) -> str:
    """The secret in ``path``: its text without the final line break."""
    where = f"{what} file {path} ({option})"
    try:
        raw = Path(path).expanduser().read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{where} is not UTF-8 text") from None
    text = text.removeprefix("\ufeff")
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith("\n"):
        text = text[:-1]
    register_secret(text)
    return _check_text(text, where)


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
    register_secret(value)
    return _check_text(value, f"the {what} given with {option}")
