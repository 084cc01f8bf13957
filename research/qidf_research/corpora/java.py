"""Java methods and Javadoc, from a JDK's ``lib/src.zip`` and Maven source jars.

The JDK sources are GPLv2 with the Classpath Exception: corpora built from them are for
local benchmarks only and are never shipped. A Javadoc comment (``/** ... */``) directly
precedes the method it documents (annotations belong to the method node).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats, Candidate, build_pairs
from qidf_research.corpora.packaged import ArchiveSource, PackageDir, build_packaged
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "java"
LICENSE = "GPL-2.0-only WITH Classpath-exception-2.0"

# java.lang.Object's overridable methods: CodeSearchNet's "standard methods" (toString).
STANDARD_METHODS = frozenset({"toString", "hashCode", "equals", "clone", "finalize"})
KEYWORDS = frozenset(
    {
        "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class",
        "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
        "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
        "interface", "long", "native", "new", "package", "private", "protected", "public",
        "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
        "throw", "throws", "transient", "try", "void", "volatile", "while", "var", "record",
        "yield", "true", "false", "null",
    }
)  # fmt: skip
_TYPES = frozenset(
    {
        "class_declaration", "interface_declaration", "enum_declaration",
        "record_declaration", "annotation_type_declaration",
    }
)  # fmt: skip
_BODIES = frozenset(
    {"class_body", "interface_body", "enum_body", "enum_body_declarations",
     "annotation_type_body"}
)  # fmt: skip
_METHODS = frozenset(
    {"method_declaration", "constructor_declaration", "compact_constructor_declaration"}
)
_CONSTRUCTORS = frozenset({"constructor_declaration", "compact_constructor_declaration"})
_STRING_TYPES = frozenset({"string_literal", "character_literal", "text_block"})
_COMMENTS = frozenset({"line_comment", "block_comment", "comment"})
_TAG_LINE_RE = re.compile(r"^\s*@\w")
_PARA_TAG_RE = re.compile(r"<\s*/?\s*p\s*/?\s*>", re.I)
_GENERATED_RE = re.compile(rb"mechanically generated|DO NOT EDIT|@Generated", re.I)


def javadoc_lines(comment: str) -> list[str]:
    """Javadoc text lines: delimiters and leading ``*`` removed, cut at the first block tag
    (``@param``...), and a ``<p>`` tag treated as a paragraph break."""
    body = comment[3:-2] if comment.endswith("*/") else comment[3:]
    out: list[str] = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("*"):
            line = line[1:]
        if _TAG_LINE_RE.match(line):
            break
        parts = _PARA_TAG_RE.split(line)
        out.append(parts[0])
        for part in parts[1:]:
            out.extend(["", part])
    return out


def _javadoc(node: Any) -> str:
    """First paragraph of the ``/** */`` comment right before ``node``, or ""."""
    prev = node.prev_sibling
    if prev is None or prev.type not in _COMMENTS:
        return ""
    raw = text(prev)
    if not raw.startswith("/**") or raw.startswith("/**/"):
        return ""
    return first_paragraph(javadoc_lines(raw))


def _is_test(name: str, node: Any) -> bool:
    """JUnit-style tests: a ``test`` name prefix or a ``@Test`` annotation."""
    if name.startswith("test"):
        return True
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    return mods is not None and any(
        c.type in ("marker_annotation", "annotation")
        and text(c.child_by_field_name("name") or c).lstrip("@") == "Test"
        for c in mods.children
    )


def java_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Methods and constructors of every (nested) type declared in one file."""
    tree = parser_for("tree_sitter_java").parse(content)
    out: list[Candidate] = []

    def walk(body: Any, owner: str) -> None:
        for node in body.children:
            if node.type in _BODIES:  # enum_body -> enum_body_declarations
                walk(node, owner)
            elif node.type in _TYPES:
                name = node.child_by_field_name("name")
                inner = f"{owner}.{text(name)}" if owner else text(name) if name else "_"
                sub = node.child_by_field_name("body")
                if sub is not None:
                    walk(sub, inner)
            elif node.type in _METHODS:
                name_node = node.child_by_field_name("name")
                if name_node is None:
                    continue
                name = text(name_node)
                out.append(
                    Candidate(
                        qualname=f"{owner}.{name}" if owner else name,
                        name=name,
                        code=block_text(node, content),
                        doc=_javadoc(node),
                        path=relpath,
                        package=package,
                        tokens=leaf_tokens(node, whole=_STRING_TYPES, skip=_COMMENTS),
                        has_body=node.child_by_field_name("body") is not None,
                        is_test=_is_test(name, node),
                        is_excluded_kind=node.type in _CONSTRUCTORS or name in STANDARD_METHODS,
                    )
                )

    walk(tree.root_node, "")
    return out


def java_skip_reason(relpath: str, content: bytes) -> str | None:
    """Package/module descriptors and sources generated from templates are not read."""
    base = relpath.rsplit("/", 1)[-1]
    if base in ("package-info.java", "module-info.java"):
        return "package/module info"
    if _GENERATED_RE.search(content[:4000]):
        return "generated"
    return None


def jdk_version(src_zip: Path) -> str:
    """JAVA_VERSION from the JDK's ``release`` file (``<jdk>/release``), else "unknown"."""
    release = src_zip.resolve().parent.parent / "release"
    for candidate in (release, src_zip.parent.parent / "release"):
        if candidate.is_file():
            for line in candidate.read_text(encoding="utf-8").splitlines():
                if line.startswith("JAVA_VERSION="):
                    return line.split("=", 1)[1].strip().strip('"')
    return "unknown"


@dataclass
class JavaSource:
    """The ``.java`` entries of a JDK src.zip (``<module>/<package path>/<Type>.java``)."""

    src_zip: Path
    version: str
    language: str = LANGUAGE
    license: str = LICENSE
    keywords: frozenset[str] = KEYWORDS

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Entries in sorted order, so builds are deterministic."""
        with zipfile.ZipFile(self.src_zip) as zf:
            for name in sorted(n for n in zf.namelist() if n.endswith(".java")):
                yield name, zf.read(name)

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Package/module descriptors and sources generated from templates."""
        return java_skip_reason(relpath, content)

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        """Methods of one file; the package is the Java package, from the path."""
        parts = relpath.split("/")
        package = ".".join(parts[1:-1]) if len(parts) > 2 else ""
        return java_functions(relpath, content, package)


def build_java(src_zip: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a JDK's src.zip, sorted by id. Never ship the result (GPLv2+CPE)."""
    src_zip = Path(src_zip)
    return build_pairs(JavaSource(src_zip, jdk_version(src_zip)), stats)


def build_java_archives(packages: list[PackageDir], stats: BuildStats | None = None
                        ) -> list[Pair]:
    """Pairs from several Java source archives, deduplicated together; every pair keeps its
    archive's name (``package``), version and license. Never ship the result."""
    source = ArchiveSource(LANGUAGE, packages, (".java",), java_functions, KEYWORDS,
                           skip=java_skip_reason)
    return build_packaged(source, stats)
