"""Man pages of a few thousand Debian packages: NAME summary -> DESCRIPTION, the man-page
control (``manpages-prose``, 994 pages) at production size.

Which packages: the pins (``debian-manpages`` in benchmarks/retrieval/sources.json) were
chosen once by ``python -m qidf_research.sources.debian_manpages --select``: every bookworm
main package with English man pages (``usr/share/man/manN/``, translations under
``usr/share/man/LANG/`` left out), ranked by pages per downloaded megabyte, taken until the
pinned number of raw pages is reached. That favours packages that are mostly documentation
(``libssl-doc``, ``manpages-dev``, the Perl module and Tcl/Tk reference pages) and small
command-line tools; it says nothing about their text. Packages whose ``Files: *`` license is
the AGPL, the SSPL or the BUSL are left out, as for the code corpora.

How a page becomes a pair: ``mandoc -T html`` renders it (man and mdoc macros, whatever
generated them: pod2man, DocBook, help2man, hand-written), its NAME line's summary (after
`` - `` or mdoc's `` — ``) is the query and its DESCRIPTION section the document, with
literal blocks (``<pre>``: examples, synopses) left out. ``.so`` redirects go. A page shipped
in two packages (the same NAME and DESCRIPTION) is kept once; then the prose controls'
filters apply (``prose.clean_pairs``): queries under 3 tokens, documents under 10 words, and
every copy of a summary or text that is still ambiguous.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from qidf_research.sources.html_text import html_sections
from qidf_research.sources.pinned import PINS, SOURCES, Log, _license_from_copyright

PIN_KEY = "debian-manpages"
MAN_ROOT = SOURCES / "debian-man"
_PAGE = re.compile(r"^usr/share/man/man\d\w*/[^/]+$")
_DROPPED_LICENSES = ("AGPL", "SSPL", "BUSL", "Business Source")
Pair = tuple[str, str, str]


def _pinned() -> list[list[str]]:
    """[name, version] of every pinned package (stored as "name=version", one a line)."""
    return [p.split("=", 1) for p in json.loads(PINS.read_text())[PIN_KEY]["packages"]]


# --- fetching: many packages per apt-get call, only the man pages and copyright kept --------


def fetch_many(pins: list[list[str]], log: Log, batch: int = 100) -> list[tuple[str, str, Path]]:
    """(name, version, unpacked dir) of every pinned package; downloads what is missing with
    ``apt-get download``, ``batch`` packages per call, and unpacks only ``usr/share/man``
    and the package's copyright file."""
    todo = [(n, v) for n, v in pins if not (_dir(n, v) / ".done").is_file()]
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        work = MAN_ROOT / "_download"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        log(f"apt-get download: packages {start + 1}-{start + len(chunk)} of {len(todo)}")
        subprocess.run(["apt-get", "download", *[f"{n}={v}" for n, v in chunk]], cwd=work,
                       check=True, capture_output=True)
        for name, version in chunk:
            debs = sorted(work.glob(f"{name}_*.deb"))
            if not debs:
                raise FileNotFoundError(f"apt-get download gave no .deb for {name}={version}")
            _unpack(debs[0], _dir(name, version))
        shutil.rmtree(work, ignore_errors=True)
    return [(n, v, _dir(n, v)) for n, v in pins]


def _dir(name: str, version: str) -> Path:
    return MAN_ROOT / f"{name}_{version.replace(':', '%3a')}"


def _unpack(deb: Path, dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest), "--wildcards", "--no-anchored",
                    "./usr/share/man/man*", "./usr/share/doc/*/copyright"],
                   input=tar, capture_output=True)  # a package may hold only one of them
    (dest / ".done").write_text("ok\n")


# --- parsing ---------------------------------------------------------------------------------

_NAME_SPLIT = re.compile(r"\s+(?:\\?-|\u2014|\u2013|--)\s+")  # -, em or en dash, --
_SUBSECTION = re.compile(r"<h([2-6])\b[^>]*>(.*?)</h\1>", re.S)


def page_pair(html: str) -> tuple[str, str]:
    """(NAME summary, DESCRIPTION text) of one page rendered by ``mandoc -T html``; the
    DESCRIPTION keeps its subsections (``.SS``, mandoc's ``h2``) as text."""
    html = _SUBSECTION.sub(r"<p>\2</p>", html)
    sections = {h.upper(): t for _, h, t in html_sections(html, ())}
    name = sections.get("NAME", "")
    parts = _NAME_SPLIT.split(name, maxsplit=1)
    summary = parts[1].strip() if len(parts) == 2 else ""
    return summary, sections.get("DESCRIPTION", "")


def render(path: Path) -> str | None:
    """A man page as mandoc's HTML; None for a ``.so`` redirect or a page mandoc rejects."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    if raw.lstrip().startswith(b".so "):
        return None
    res = subprocess.run(["mandoc", "-T", "html", "-O", "fragment"], input=raw,
                         capture_output=True)
    if res.returncode > 3:  # mandoc: 2-3 are warnings/errors it recovered from; 4+ fatal
        return None
    return res.stdout.decode("utf-8", errors="replace")


def package_pairs(name: str, version: str, root: Path) -> tuple[str, list[Pair]]:
    """The package's license and its pages' (id, summary, description) triples."""
    copyright_ = next(iter(sorted((root / "usr" / "share" / "doc").glob("*/copyright"))), None)
    license_ = _license_from_copyright(copyright_) if copyright_ else "unknown"
    pairs = []
    for page in sorted((root / "usr" / "share" / "man").glob("man*/*")):
        if not page.is_file() or page.is_symlink():
            continue
        html = render(page)
        if html is None:
            continue
        summary, desc = page_pair(html)
        pairs.append((f"debman:{name}/{page.parent.name}/{page.name.removesuffix('.gz')}",
                      summary, desc))
    return license_, pairs


def manpage_pairs(log: Log) -> list[tuple[str, str, str, str]]:
    """(id, summary, description, license) of every pinned package's pages after the
    filters; one copy of a page shipped twice; AGPL/SSPL/BUSL packages left out."""
    from qidf_research.sources.prose import clean_pairs

    out: list[Pair] = []
    license_of: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    licenses: Counter[str] = Counter()
    for name, version, root in fetch_many(_pinned(), log):
        license_, pairs = package_pairs(name, version, root)
        if any(x in license_ for x in _DROPPED_LICENSES):
            log(f"  dropped {name} {version}: {license_}")
            continue
        licenses[license_] += len(pairs)
        for pid, summary, desc in pairs:
            key = (" ".join(summary.split()).lower(), " ".join(desc.split()))
            if key not in seen:
                seen.add(key)
                out.append((pid, summary, desc))
                license_of[pid] = f"{license_} ({name} {version})"
    log(f"  man pages: {len(out)} distinct pages; licenses (pages): "
        + ", ".join(f"{k} {v}" for k, v in licenses.most_common(12)))
    return [(i, q, d, license_of[i]) for i, q, d in clean_pairs(out)]


# --- choosing the packages (run once; the result is pinned) ------------------------------------


def select(contents: Iterable[Path], packages: Path, raw_pages: int, max_mb: float
           ) -> list[tuple[str, str, int]]:
    """(name, version, English pages) of bookworm main packages, most pages per downloaded
    megabyte first, until ``raw_pages`` pages are covered; packages over ``max_mb`` skipped."""
    pages: Counter[str] = Counter()
    for path in contents:
        lines = subprocess.run(["lz4cat", str(path)], check=True, capture_output=True,
                               text=True, errors="replace").stdout.splitlines()
        for line in lines:
            file_, _, owners = line.rstrip().rpartition(" ")
            if _PAGE.match(file_.strip()):
                for owner in owners.split(","):
                    pages[owner.rsplit("/", 1)[-1]] += 1
    version: dict[str, str] = {}
    size: dict[str, int] = {}
    name = ""
    text = subprocess.run(["lz4cat", str(packages)], check=True, capture_output=True,
                          text=True).stdout
    for line in text.splitlines():
        if line.startswith("Package: "):
            name = line.split()[1]
        elif line.startswith("Version: "):
            version[name] = line.split()[1]
        elif line.startswith("Size: "):
            size[name] = int(line.split()[1])
    ranked = sorted((p for p in pages if p in size and size[p] <= max_mb * 1e6
                     and not p.endswith(("-dbg", "-dbgsym"))),
                    key=lambda p: (-pages[p] / max(size[p], 1), p))
    chosen: list[tuple[str, str, int]] = []
    total = 0
    for p in ranked:
        if total >= raw_pages:
            break
        chosen.append((p, version[p], pages[p]))
        total += pages[p]
    return sorted(chosen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="pin the man-page packages (run once)")
    ap.add_argument("--contents", nargs="+", type=Path, required=True,
                    help="bookworm main Contents-amd64 and Contents-all (.lz4, from apt)")
    ap.add_argument("--packages", type=Path, required=True,
                    help="bookworm main binary-amd64 Packages (.lz4, from apt)")
    ap.add_argument("--raw-pages", type=int, default=100_000)
    ap.add_argument("--max-mb", type=float, default=40.0)
    args = ap.parse_args(argv)
    chosen = select(args.contents, args.packages, args.raw_pages, args.max_mb)
    data = json.loads(PINS.read_text())
    data[PIN_KEY] = {"registry": "debian", "suite": "bookworm",
                     "selection": f"most English man pages per downloaded MB, up to "
                                  f"{args.raw_pages:,} raw pages, packages <= {args.max_mb:g} MB",
                     "packages": [f"{n}={v}" for n, v, _ in chosen]}
    PINS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"pinned {len(chosen)} packages, {sum(c[2] for c in chosen):,} raw pages",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
