"""Index files of the Debian archive (package descriptions and their translations), fetched
with apt itself and checked against the SHA-256 pinned in benchmarks/retrieval/sources.json.

The long package descriptions are not in the Packages files: since Debian 7 they live in
``main/i18n/Translation-LANG``, one stanza per description. ``apt-get update`` fetches them
into a lists directory of our own (``.qidf/sources/apt/``; the system's apt state is not
touched), verifies them against the suite's signed InRelease, and stores them lz4-compressed.
The pin is the SHA-256 of the uncompressed file as that InRelease lists it: a suite that has
moved on since (a point release) fails loudly instead of building a different corpus.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_research.sources.pinned import PINS, SOURCES, Log

PIN_KEY = "debian-descriptions"
APT = SOURCES / "apt"
MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


@dataclass(frozen=True)
class Description:
    """One stanza of a Translation file: the package, its summary line and long text."""

    package: str
    summary: str
    body: str  # paragraphs joined by blank lines; Debian's " ." separators resolved


def pins() -> dict[str, Any]:
    return dict(json.loads(PINS.read_text())[PIN_KEY])


def _list_name(suite: str, lang: str) -> str:
    host = MIRROR.split("//", 1)[1].replace("/", "_")
    return f"{host}_dists_{suite}_main_i18n_Translation-{lang.replace('_', '%5f')}.lz4"


def _apt_update(suites: list[str], langs: list[str], log: Log) -> None:
    lists = APT / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    source_list = APT / "sources.list"
    source_list.write_text("".join(f"deb [signed-by={KEYRING}] {MIRROR} {s} main\n"
                                   for s in suites))
    log(f"apt-get update ({', '.join(suites)}; Translation-{','.join(langs)})")
    subprocess.run(["apt-get", "update", "-q",
                    f"-o=Dir::Etc::SourceList={source_list}",
                    "-o=Dir::Etc::SourceParts=/nonexistent",
                    f"-o=Dir::State::Lists={lists}",
                    f"-o=Acquire::Languages={','.join(langs)}",
                    "-o=Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"],
                   check=True, capture_output=True)


def translation(suite: str, lang: str, log: Log) -> Path:
    """The uncompressed Translation-LANG of ``suite``, fetched once and checked against its
    pin (``suites.SUITE.LANG`` in sources.json)."""
    expected = pins()["suites"][suite][lang]
    out = APT / "translations" / f"{suite}-{lang}"
    if out.is_file() and hashlib.sha256(out.read_bytes()).hexdigest() == expected:
        return out
    listed = APT / "lists" / _list_name(suite, lang)
    if not listed.is_file():
        wanted: dict[str, dict[str, str]] = pins()["suites"]
        _apt_update(sorted(wanted), sorted({x for v in wanted.values() for x in v
                                            if not x.startswith("_")}), log)
    if not listed.is_file():
        raise FileNotFoundError(f"apt did not fetch {suite} Translation-{lang}")
    data = subprocess.run(["lz4cat", str(listed)], check=True, capture_output=True).stdout
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise RuntimeError(f"{suite} Translation-{lang} has SHA-256 {got}, pinned {expected}: "
                           "the suite moved on since the corpus was pinned (a point release); "
                           "re-pin it in benchmarks/retrieval/sources.json and say so")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return out


_FIELD = re.compile(r"^Description-([A-Za-z_]+): ?(.*)$")


def _body(lines: list[str]) -> str:
    """Debian's extended description: a leading space on every line, " ." a blank line."""
    out = []
    for line in lines:
        text = line[1:] if line.startswith(" ") else line
        out.append("" if text.strip() == "." else text)
    return "\n".join(out).strip()


def descriptions(path: Path) -> Iterator[Description]:
    """Every stanza of one Translation file."""
    package, summary, inside = "", "", False
    body: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            if not line.strip():
                if package and summary:
                    yield Description(package, summary.strip(), _body(body))
                package, summary, body, inside = "", "", [], False
                continue
            if line.startswith("Package: "):
                package = line.split(":", 1)[1].strip()
                inside = False
            elif m := _FIELD.match(line):
                summary, body, inside = m.group(2), [], True
            elif inside and line.startswith(" "):
                body.append(line)
            else:
                inside = False
    if package and summary:
        yield Description(package, summary.strip(), _body(body))
