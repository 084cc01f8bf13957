"""Pictures drawn when the site is built, so that none goes stale.

A page asks for one with a line of its own, ``<!-- picture: NAME -->``; the build replaces it
with the image and a caption naming what it was drawn from (an unknown name fails the build).
On GitHub the line is an invisible comment. The SVG files join the site as ``pictures/NAME.svg``
(no file in the repository, nothing loaded from elsewhere).

Each picture is cached in ``.qidf/docs-pictures/`` under a hash of everything it is drawn
from (its data files, the modules that draw it, the matplotlib version), so a build where
nothing changed draws nothing and does not import matplotlib.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import plots
import sequence

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CACHE = ROOT / ".qidf" / "docs-pictures"
FOLDER = "pictures"  # where the site serves them
MARKER = re.compile(r"^([ \t]*)<!-- picture: ([\w-]+) -->$", re.MULTILINE)


@dataclass(frozen=True)
class Picture:
    name: str
    alt: str
    caption: str  # Markdown; {source} is the link to what it was drawn from
    source: tuple[str, str]  # link text, repository path of the data or code it shows
    inputs: tuple[str, ...]  # repository paths hashed for the cache, beyond the drawing modules
    draw: Callable[[], str]
    uses_matplotlib: bool = True


PICTURES = {p.name: p for p in (
    Picture("idf-curves", "BM25's IDF and the q-log IDF at q 0.7, 0.3 and 0.05 over df",
            "The IDF of a term found in df of the demo's 13,994 documents, computed by {source}. "
            "The dotted line is df = 50: BM25 gives such a term 62% of a one-off token's "
            "weight, q = 0.3 under 10%.",
            ("qidf's formula module", "qidf_ctl/formula/qlog.py"),
            ("qidf_ctl/formula/qlog.py",), plots.idf_curves),
    Picture("demo-q-curve", "NDCG@10 of the demo over q, BM25 and the chosen q marked",
            "`qidf sweep` on the demo's index, every q of its default grid installed in turn: "
            "{source}.",
            ("the demo's sweep, with the command that regenerates it",
             "benchmarks/demo/README.md"),
            ("benchmarks/demo/sweep.json",), plots.demo_q_curve),
    Picture("shard-statistics", "NDCG@10 over q at 1, 3 and 12 shards, with per-shard and "
            "index-wide statistics",
            "Per-shard statistics cost q-log more than BM25, and index-wide ones give it all "
            "back: {source}.",
            ("the sharding benchmark", "benchmarks/sharding/README.md"),
            ("benchmarks/sharding/results.json",), plots.shard_statistics),
    Picture("apply-sequence", "The steps of qidf apply with the close, reopen and clone "
            "strategies, the journal writes and the outage or write-block window",
            "Drawn from the steps the code runs ({source}): names, order and journal writes "
            "come from the strategies themselves.",
            ("the install package", "qidf_ctl/install/__init__.py"),
            ("qidf_ctl/install/close_swap.py", "qidf_ctl/install/reopen_swap.py",
             "qidf_ctl/install/clone_swap.py", "qidf_ctl/install/pipeline.py",
             "qidf_ctl/install/journal.py", "qidf_ctl/install/strategy.py"),
            sequence.svg, uses_matplotlib=False),
)}


def _fingerprint(picture: Picture) -> str:
    digest = hashlib.sha256()
    modules = ["pictures.py", "plots.py" if picture.uses_matplotlib else "sequence.py"]
    for path in [*(HERE / m for m in modules), *(ROOT / p for p in picture.inputs)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    if picture.uses_matplotlib:
        from importlib.metadata import version

        digest.update(version("matplotlib").encode())
    return digest.hexdigest()[:16]


def svg(name: str) -> str:
    """The picture's SVG, drawn only when what it is drawn from changed."""
    picture = PICTURES[name]
    cached = CACHE / f"{name}-{_fingerprint(picture)}.svg"
    if cached.is_file():
        return cached.read_text()
    drawn = picture.draw()
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob(f"{name}-*.svg"):
        old.unlink()
    cached.write_text(drawn)
    return drawn


def site_path(name: str) -> str:
    return f"{FOLDER}/{name}.svg"


def expand(markdown: str, page_uri: str, page_dir: Path) -> str:
    """``<!-- picture: NAME -->`` lines as an image and its caption. ``page_uri``: the page's
    path on the site (for the image), ``page_dir``: its folder on disk (for the source link,
    a repository path that the link hook maps)."""

    def picture(match: re.Match[str]) -> str:
        indent, name = match.groups()
        if name not in PICTURES:
            raise ValueError(f"no picture {name!r} (known: {', '.join(PICTURES)})")
        found = PICTURES[name]
        image = posixpath.relpath(site_path(name), posixpath.dirname(page_uri) or ".")
        text, path = found.source
        link = f"[{text}]({Path(os.path.relpath(ROOT / path, page_dir)).as_posix()})"
        return (f"{indent}![{found.alt}]({image})\n\n"
                f"{indent}*{found.caption.format(source=link)} Drawn when the site is built.*")

    return MARKER.sub(picture, markdown)
