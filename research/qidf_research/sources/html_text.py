"""HTML documentation pages to plain-text sections (headings and their own text), for the
Sphinx and DocBook documentation sets."""

from __future__ import annotations

from collections.abc import Iterable
from html.parser import HTMLParser

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_BLOCK = frozenset({"p", "div", "li", "dd", "dt", "td", "th", "tr", "br", "section", "table",
                    "ul", "ol", "dl", "blockquote", "pre"})
_HEADINGS = frozenset(f"h{i}" for i in range(1, 7))


class HtmlSections(HTMLParser):
    """Split a page into (anchor, heading, own text) at every heading element.

    A section's own text is what lies between its heading and the next heading of any
    level, so a parent keeps its introduction and each subsection is its own document.
    Elements with a tag in ``skip_tags`` or a class in ``skip_classes`` are dropped whole
    (code, navigation, tables of contents); with ``root_role`` only the element with that
    ``role`` attribute (Sphinx's ``role="main"`` body) is read. A block holding an element
    with a class in ``drop_classes`` is marked in ``dropped`` (its index in ``blocks``).
    """

    def __init__(self, skip_classes: Iterable[str], skip_tags: Iterable[str] = ("pre",),
                 root_role: str | None = None, drop_classes: Iterable[str] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_classes = frozenset(skip_classes)
        self.drop_classes = frozenset(drop_classes)
        self.dropped: set[int] = set()  # blocks holding an element of a drop class
        self.skip_tags = frozenset(skip_tags) | {"script", "style", "head"}
        self.root_role = root_role
        self.stack: list[tuple[str, bool, bool, str]] = []  # tag, skip, root, id
        self.blocks: list[tuple[str, str, list[str]]] = []
        self.heading: list[str] | None = None

    def _reading(self) -> bool:
        if any(skip for _, skip, _, _ in self.stack):
            return False
        return self.root_role is None or any(root for _, _, root, _ in self.stack)

    def _separate(self) -> None:
        if self.heading is not None:
            self.heading.append(" ")
        elif self.blocks:
            self.blocks[-1][2].append(" ")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if tag in _BLOCK:
            self._separate()
        if self.blocks and self.drop_classes & classes and self._reading():
            self.dropped.add(len(self.blocks) - 1)
        if tag in _VOID:
            return
        skip = tag in self.skip_tags or bool(self.skip_classes & classes)
        root = self.root_role is not None and a.get("role") == self.root_role
        self.stack.append((tag, skip, root, a.get("id") or ""))
        if tag in _HEADINGS and self._reading():
            self.heading = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self._separate()

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCK:
            self._separate()
        if not any(t == tag for t, _, _, _ in self.stack):
            return
        while self.stack:
            if self.stack.pop()[0] == tag:
                break
        if tag in _HEADINGS and self.heading is not None:
            anchor = next((i for _, _, _, i in reversed(self.stack) if i), "")
            self.blocks.append((anchor, " ".join("".join(self.heading).split()), []))
            self.heading = None

    def handle_data(self, data: str) -> None:
        if not self._reading():
            return
        if self.heading is not None:
            self.heading.append(data)
        elif self.blocks:
            self.blocks[-1][2].append(data)


def html_sections(page: str, skip_classes: Iterable[str], root_role: str | None = None,
                  drop_classes: Iterable[str] = ()) -> list[tuple[str, str, str]]:
    """(anchor, heading, own text) of every heading of ``page``, whitespace folded; sections
    holding an element of a class in ``drop_classes`` left out."""
    parser = HtmlSections(skip_classes, root_role=root_role, drop_classes=drop_classes)
    parser.feed(page)
    parser.close()
    return [(a, h, " ".join("".join(t).split())) for n, (a, h, t) in enumerate(parser.blocks)
            if n not in parser.dropped]
