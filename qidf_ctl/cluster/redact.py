"""Credentials never reach output: every message goes through ``redact``.

Two layers. URLs lose their ``user:password@`` part. And every secret qidf was given (a
password, an API key, a bearer token, an AWS secret) is registered when it is read, so that
``redact`` can blank it, in the spellings a library might echo it in (as is, percent-encoded,
inside a Basic header's base64), wherever it turns up: in an exception text, in
``Invalid header value b'ApiKey ...'``, in a URL a client library printed.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import quote, quote_plus

# Greedy up to the last "@" of the token: a password may itself hold "/", "#" or "@".
_USERINFO = re.compile(r"(\w+://)\S*@")
MASK = "***"
# Shorter values are not registered: blanking "ab" everywhere would garble every message,
# and secrets that short are not secrets.
_MIN_SECRET = 4
_SECRETS: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember ``value`` (and its encoded spellings) as something output must never show."""
    if not value or len(value) < _MIN_SECRET:
        return
    forms = {value, quote(value, safe=""), quote_plus(value, safe=""), repr(value)[1:-1],
             value.encode("utf-8", "surrogateescape").decode("latin-1")}
    for line in value.splitlines():
        if len(line) >= _MIN_SECRET:
            forms.add(line)
    _SECRETS.update(f for f in forms if len(f) >= _MIN_SECRET)


def register_basic(username: str, password: str) -> None:
    """A Basic header's token is base64("user:password"): it reveals the password too."""
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    register_secret(token)


def redact(text: str) -> str:
    """``text`` without user:password@ in URLs and without any registered secret."""
    text = _USERINFO.sub(r"\1", text)
    for secret in sorted(_SECRETS, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text
