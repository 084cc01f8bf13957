"""What the docs site's strict build cannot see: README.md is not part of the site, so every
relative link in it must reach a file of the repository and every #anchor a heading of that
file; and a docs page named as a path in code, scripts or pages (an error message's hint, a
docstring) must exist, so that a moved page leaves no message pointing nowhere."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
DOCS_PATH = re.compile(r"(?<![\w./-])docs/\w[\w./-]*?\.md\b")  # not a URL's /docs/
# Where a docs path can be named; CHANGELOG.md and the benchmarks' JSON keep the paths of
# their time.
NAMING = ("qidf_ctl/**/*.py", "research/qidf_research/**/*.py", "scripts/**/*", "tests/**/*.py",
          "docker/*", "docs/**/*.md", "benchmarks/*/*.md", "README.md", "plugin-java/README.md")


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading (the site uses the same, pymdownx.slugs lower case)."""
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    prose = FENCE.sub("", markdown)
    return {github_anchor(h) for h in re.findall(r"^#{1,6} (.+?)\s*#*\s*$", prose, re.M)}


def relative_links(markdown: str) -> list[str]:
    found = LINK.findall(FENCE.sub("", markdown))
    return [url for url in found if not urlsplit(url).scheme and not url.startswith("#")]


def test_github_anchor_matches_githubs():
    assert github_anchor("The engine matrix: what CI covers") == "the-engine-matrix-what-ci-covers"
    assert github_anchor("Reproducible `auto`") == "reproducible-auto"
    assert github_anchor("code -> doc") == "code---doc"


def test_every_relative_link_in_the_readme_resolves():
    readme = (ROOT / "README.md").read_text()
    links = relative_links(readme)
    assert len(links) >= 5  # the README links into the docs: a parser that finds none is wrong
    broken = []
    for url in links:
        parts = urlsplit(url)
        target = (ROOT / unquote(parts.path)).resolve()
        if not target.exists():
            broken.append(f"{url}: no such file")
        elif parts.fragment and target.suffix == ".md" \
                and parts.fragment not in anchors(target.read_text()):
            broken.append(f"{url}: no heading #{parts.fragment} in {parts.path}")
    assert broken == []


def test_every_docs_page_named_in_the_code_exists():
    named: dict[str, set[str]] = {}
    for pattern in NAMING:
        for path in ROOT.glob(pattern):
            if path.is_file() and path.suffix not in (".png", ".gz", ".zip"):
                for found in DOCS_PATH.findall(path.read_text(errors="replace")):
                    named.setdefault(found, set()).add(str(path.relative_to(ROOT)))
    naming_modules = {w for where in named.values() for w in where if w.startswith("qidf_ctl/")}
    assert len(naming_modules) >= 5  # product messages and docstrings name docs pages
    missing = {p: sorted(where) for p, where in named.items() if not (ROOT / p).is_file()}
    assert missing == {}
