"""Credentials never reach output, in any spelling a library or a server can derive.

Two layers. URLs lose their ``user:password@`` part. And every secret qidf was given (a
password, an API key, a bearer token, an AWS secret) is registered when it is read, with
every form it can be echoed in: as is, percent-encoded, JSON- and repr-escaped, base64 (of
itself, of ``user:password`` as a Basic header carries it, of ``id:key`` as an ApiKey
header does), and the decoded parts (``user:password`` and ``id:key`` in clear, the key of a
base64 API key, the signature of a JWT). A server or a proxy in front of it that answers
with the decoded credentials in its error body is masked like the header it decoded them
from.

Short secrets. Masking a secret of one to three characters wherever its characters occur
would garble every message (a password ``a`` in "a qidf bug"; ``1`` in "exit 1"), and not
masking it leaks it. So a short form is masked

- as a whole token (not inside a longer word or number) in text that came from outside
  qidf: a server's answer, a client library's exception (``redact_external``, used where
  such text enters a message: ``cluster.failures``), where qidf's own words are not;
- in qidf's own output only where a credential can stand (``redact``): after a word that
  names one (password, token, key, secret, credentials, authorization, basic, bearer...)
  and a separator, or between ``:`` and ``@`` of a userinfo.

The longer forms a short secret has (``user:ab``, base64 of ``user:ab``, ``ab`` percent- or
base64-encoded when that is 4+ characters) are masked everywhere like any long one.

Names that may be secrets. A URL's userinfo without a ``:`` (``http://NAME@host``) is a user
name to the URL's rules and to qidf (which asks for its password), but people also put a
token there; it is registered with ``register_name``: masked wherever it stands as a whole
name (not inside a longer word, an option or an identifier: ``user`` never blanks the
``user`` of ``--user``), in qidf's words and in outside text alike.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any
from urllib.parse import quote, quote_plus

# Greedy up to the last "@" of the token: a password may itself hold "/", "#" or "@".
_USERINFO = re.compile(r"(\w+://)\S*@")
MASK = "***"
SHORT = 4  # forms shorter than this are masked as whole tokens only (see the docstring)
_CREDENTIAL_WORD = (r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_ -]?key|key|"
                    r"credentials?|authori[sz]ation|auth|basic|bearer|apikey)")
_long: set[str] = set()
_short: set[str] = set()
_names: set[str] = set()  # register_name: whole names only, in every text
_compiled: dict[str, re.Pattern[str] | None] = {}


def _spellings(value: str) -> set[str]:
    """A text and the encodings a library or a server may print it in."""
    forms = {value, value.strip(), quote(value, safe=""), quote(value), quote_plus(value),
             repr(value)[1:-1], json.dumps(value)[1:-1],
             json.dumps(value, ensure_ascii=False)[1:-1],
             value.encode("utf-8", "surrogateescape").decode("latin-1")}
    raw = value.encode("utf-8", "surrogateescape")
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        token = encode(raw).decode("ascii")
        forms |= {token, token.rstrip("=")}
    forms |= {line for line in value.splitlines() if line.strip()}
    return {f for f in forms if f.strip()}


def _add(forms: set[str]) -> None:
    for form in forms:
        (_long if len(form) >= SHORT else _short).add(form)
    _compiled.clear()


def register_secret(value: str | None) -> None:
    """Remember ``value`` (and its encoded spellings) as something output must never show."""
    if not value or not value.strip():
        return
    _add(_spellings(value))


def register_name(value: str | None) -> None:
    """Remember ``value`` (a URL's lone userinfo: a user name or a token) as something output
    shows only masked, wherever it stands as a whole name (see the module docstring)."""
    if not value or not value.strip():
        return
    _names.update(_spellings(value))
    _compiled.clear()


def register_basic(username: str, password: str) -> None:
    """A Basic header is base64("user:password"): that, and ``user:password`` in clear (what
    a server decoding it echoes), reveal the password too."""
    register_secret(password)
    _add(_spellings(f"{username}:{password}"))


def _b64_text(value: str) -> str | None:
    """``value`` decoded from base64 (either alphabet, padding optional) when that gives
    printable UTF-8; None otherwise."""
    text = value.strip()
    if not text or len(text) % 4 == 1:
        return None
    padded = text + "=" * (-len(text) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            decoded = decode(padded.encode("ascii")).decode("utf-8")
        except (binascii.Error, UnicodeError, ValueError):
            continue
        if decoded and decoded.isprintable():
            return decoded
    return None


def register_api_key(value: str) -> None:
    """An API key as given (``id:key`` or its base64) with both forms and both parts: a
    server that decodes the header may echo ``id:key``, the id or the key."""
    register_secret(value)
    pair = value.strip() if ":" in value else _b64_text(value)
    if pair and ":" in pair:
        key_id, _, key = pair.partition(":")
        register_secret(pair)
        register_secret(key_id)
        register_secret(key)


def register_token(value: str) -> None:
    """A bearer token; a JWT's signature (its third part) too, which a server may quote
    apart from the token."""
    register_secret(value)
    parts = value.strip().split(".")
    if len(parts) == 3 and all(parts):
        register_secret(parts[2])


def _pattern(kind: str) -> re.Pattern[str] | None:
    """The compiled alternation of the registered forms: "long" (anywhere), "token" (short
    ones as whole tokens), "context" (short ones where a credential stands)."""
    if not _compiled:
        longs = sorted(_long, key=len, reverse=True)
        shorts = "|".join(map(re.escape, sorted(_short, key=len, reverse=True)))
        _compiled["long"] = re.compile("|".join(map(re.escape, longs))) if longs else None
        _compiled["token"] = (re.compile(rf"(?<![A-Za-z0-9])(?:{shorts})(?![A-Za-z0-9])")
                              if shorts else None)
        names = "|".join(map(re.escape, sorted(_names, key=len, reverse=True)))
        _compiled["name"] = (re.compile(rf"(?<![\w-])(?:{names})(?![\w-])") if names
                             else None)
        _compiled["context"] = re.compile(
            rf"(?i)(\b{_CREDENTIAL_WORD}[\"']?(?:\s*[:=]\s*|\s+)[\"']?)(?:{shorts})"
            rf"(?=[\"'\s,;)}}\]@]|$)|(:)(?:{shorts})(?=@)") if shorts else None
    return _compiled[kind]


def redact(text: str) -> str:
    """``text`` without user:password@ in URLs and without any registered secret (short
    ones where a credential can stand: see the module docstring)."""
    text = _USERINFO.sub(r"\1", text)
    long_forms = _pattern("long")
    if long_forms is not None:
        text = long_forms.sub(MASK, text)
    context = _pattern("context")
    if context is not None:
        text = context.sub(lambda m: (m.group(1) or m.group(2)) + MASK, text)
    names = _pattern("name")
    if names is not None:
        text = names.sub(MASK, text)
    return text


def redact_external(text: str) -> str:
    """Text a server or a library wrote (an answer's body, an exception): ``redact``, and
    short secrets wherever they stand as a whole token."""
    text = redact(text)
    token = _pattern("token")
    return token.sub(MASK, text) if token is not None else text


def redact_tree(value: Any, external: bool = True) -> Any:
    """``value`` (a parsed answer, or a payload about to be printed) with every string in it
    (keys too) redacted: ``redact_external`` for what came from outside, else ``redact``."""
    clean = redact_external if external else redact
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {(clean(k) if isinstance(k, str) else k): redact_tree(v, external)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(v, external) for v in value]
    return value


def forget_all() -> None:
    """Tests only: start from no registered secret."""
    _long.clear()
    _short.clear()
    _names.clear()
    _compiled.clear()
