"""Every relative link in README.md reaches a file of the repository, and every #anchor a
heading of that file: the README is not part of the docs site, so the site's strict build
does not check it (it checks the pages under docs/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


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
