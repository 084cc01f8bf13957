"""A file the user named (queries, qrels, a run, qidf.toml, a saved plan, a secret), read in
one place, so that every reader refuses the same things in the same words: the file, the line
and what was expected, as a usage error; never an exception from deeper down.

What is refused, and why:

- a path that does not exist is *not found* (exit 5: errors.py documents "the index, alias,
  field or file named does not exist"); a folder, a path that cannot be opened (permissions,
  a NUL in the name, a loop of links) is a *usage* error (exit 2);
- bytes that are not UTF-8 text. A UTF-16 or UTF-32 file (what PowerShell's ``>`` writes),
  by its byte-order mark or, without one, by the NUL bytes every other character carries;
  any other NUL byte (a binary file: an archive, a model, a compressed file); invalid UTF-8,
  with the line it is on. A UTF-8 byte-order mark is dropped: Windows editors write one, and
  it hides nothing;
- more than ``MAX_BYTES``: the readers hold a file in memory. Pipes and devices are read too
  (``--queries <(zcat q.jsonl.gz)`` is a pipe; ``/dev/stdin`` reads standard input because an
  argument named it), in chunks up to that bound: ``/dev/zero`` ends at its first chunk
  (NUL bytes), not when memory does.

JSON (a JSONL line, a saved plan) is read strictly with ``loads_json``: ``NaN``,
``Infinity`` and numbers that overflow to infinity are refused (Python's json accepts them),
a key given twice is refused (json keeps the last silently), and nesting deeper than the
parser's recursion limit is one error instead of a ``RecursionError``. TOML (qidf.toml, the
user's config file) is read with ``loads_toml``: nesting deeper than ``MAX_DEPTH`` (arrays and
tables in each other) is refused before anything walks it (the parser itself recursed until
``RecursionError`` on a deep enough file).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.errors import NotFoundError, UsageError

MAX_BYTES = 1 << 30  # 1 GiB: far above any query log, qrels or run qidf is meant to read
CHUNK = 1 << 20
_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"),
)
UTF8_BOM = "\ufeff"
SHOWN = 60  # characters of a bad value a message quotes
_BLANK_SEPARATED = re.compile(r"[^ \t\f\v]+")


def shown(value: Any, limit: int = SHOWN) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages (a value may be huge)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "...(cut)"


def fields(line: str) -> list[str]:
    """The blank-separated fields of a TREC line: split on ASCII blanks only (``str.split``
    would also split on the no-break and other Unicode spaces an id may hold)."""
    return _BLANK_SEPARATED.findall(line)


def kind_of(value: Any) -> str:
    """What a JSON value is, in the words a message uses ("a number", "null"...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int | float):
        return f"a number ({shown(value, 20)})"
    if isinstance(value, str):
        return f"a string ({shown(value, 30)})"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


@dataclass(frozen=True)
class TextFile:
    """The decoded text of one file, and how messages name it."""

    path: str
    what: str  # "queries file", "TREC run"...
    option: str | None
    text: str

    @property
    def label(self) -> str:
        return f"{self.what} {self.path}" + (f" ({self.option})" if self.option else "")

    def error(self, message: str, line: int | None = None) -> UsageError:
        where = f", line {line}" if line is not None else ""
        return UsageError(f"{self.label}{where}: {message}")

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number, line without its line break); only ``\\n`` ends a line (a ``\\r``
        before it is dropped), so text with other Unicode line separators stays whole."""
        for number, line in enumerate(self.text.split("\n"), 1):
            yield number, line[:-1] if line.endswith("\r") else line


def _label(path: str, what: str, option: str | None) -> str:
    return f"{what} {path}" + (f" ({option})" if option else "")


def check_file(path: str, what: str, option: str | None = None) -> tuple[Path, os.stat_result]:
    """``path`` (``~`` expanded) and its stat, if it names something that is not a folder:
    not found (exit 5) when nothing is there, a usage error for a folder, an empty path or
    one that cannot be looked at."""
    label = _label(path, what, option)
    if not path:
        raise UsageError(f"{what}{f' ({option})' if option else ''}: the path is empty")
    file = Path(path).expanduser()
    try:
        info = file.stat()
    except FileNotFoundError:
        raise NotFoundError(f"{label} not found") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {label}: {_reason(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{label} is a folder: give the file inside it")
    return file, info


def _read_bytes(path: str, what: str, option: str | None, max_bytes: int) -> bytes:
    label = _label(path, what, option)
    file, info = check_file(path, what, option)
    if info.st_size > max_bytes:
        raise UsageError(f"{label} is larger than {max_bytes >> 20} MiB, more than qidf reads")
    chunks: list[bytes] = []
    size = 0
    try:
        with open(file, "rb") as fh:
            while chunk := fh.read(CHUNK):
                if b"\x00" in chunk and not _utf16_or_32(chunks[0] if chunks else chunk):
                    at = size + chunk.index(b"\x00")
                    raise UsageError(f"{label} is binary, not text: it holds a NUL byte "
                                     f"(byte {at})")
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    raise UsageError(f"{label} is larger than {max_bytes >> 20} MiB, more "
                                     "than qidf reads")
    except OSError as exc:
        raise UsageError(f"cannot read {label}: {_reason(exc)}") from None
    return b"".join(chunks)


def _reason(exc: BaseException) -> str:
    return (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).lower()


def _utf16_or_32(head: bytes) -> str | None:
    """"UTF-16" or "UTF-32" when ``head`` starts like such a file (a byte-order mark, or
    ASCII text with a NUL after or before every character); None otherwise."""
    for mark, name in _BOMS:
        if head.startswith(mark):
            return name
    sample = head[:64]
    if len(sample) < 8 or not sample.strip(b"\x00"):
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if (even == 0) != (odd == 0) and max(even, odd) * 8 >= 3 * len(sample):
        return "UTF-16"  # 3/4+ of one byte lane NUL, none in the other: ASCII in UTF-16
    lanes = [sample[i::4].count(0) for i in range(4)]
    if lanes.count(0) == 1 and min(n for n in lanes if n) * 8 >= len(sample):
        return "UTF-32"
    return None


def decode(raw: bytes, label: str) -> str:
    """UTF-8 text from ``raw``; a usage error naming ``label`` and the line otherwise."""
    other = _utf16_or_32(raw[:64])
    if other:
        raise UsageError(f"{label} is {other} text: save it as UTF-8 (e.g. iconv -f "
                         f"{other} -t UTF-8, or your editor's 'UTF-8' encoding)")
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise UsageError(f"{label} is binary, not text: it holds a NUL byte (byte {nul})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UsageError(f"{label}, line {line}: not UTF-8 text (byte {exc.start}: "
                         f"{raw[exc.start:exc.start + 1]!r}); save the file as UTF-8") from None
    return text.removeprefix(UTF8_BOM)


def read(path: str | os.PathLike[str], what: str, option: str | None = None,
         max_bytes: int = MAX_BYTES) -> TextFile:
    """The file at ``path`` as UTF-8 text; ``what`` and ``option`` name it in messages."""
    path = os.fspath(path)
    raw = _read_bytes(path, what, option, max_bytes)
    return TextFile(path, what, option, decode(raw, _label(path, what, option)))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:30]} is too large (it overflows to infinity)")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {shown(key, 40)} appears twice in one object")
        out[key] = value
    return out


MAX_DEPTH = 64  # tables and arrays inside each other; qidf's files need 4


def depth(value: Any) -> int:
    """How deeply ``value``'s dicts and lists nest (iteratively: no recursion to exhaust)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                break
            todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                   else item))
    return deepest


def loads_toml(text: str, label: str) -> dict[str, Any]:
    """TOML text, its nesting bounded; a usage error naming ``label`` otherwise."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{label}: not valid TOML: {exc}") from None
    except RecursionError:
        raise UsageError(f"{label}: nested deeper than qidf reads (at most {MAX_DEPTH} "
                         "tables and arrays inside each other)") from None
    if depth(data) > MAX_DEPTH:
        raise UsageError(f"{label}: nested deeper than qidf reads (at most {MAX_DEPTH} "
                         "tables and arrays inside each other)")
    return data


def loads_json(text: str) -> Any:
    """Strict JSON; ``ValueError`` with a message that fits after "not valid JSON: "."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                          object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError("nested deeper than qidf reads") from None
