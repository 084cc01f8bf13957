"""Scala functions and their Scaladoc, from Maven ``-sources.jar`` archives.

A Scaladoc comment (``/** ... */``) right above a ``def`` documents it; annotations and
modifiers between the two belong to the function node. Its first paragraph, cut at the
first tag (``@param``, ``@define``...), is the docstring, read as Javadoc is; wiki markup
(``[[Foo]]``, ``$coll`` macros) stays, as Javadoc's HTML stays in Java, but a ``{{{`` code
block ends the prose, a ``=== Heading ===`` is a title, not a summary, and Spark's
``:: DeveloperApi ::`` badge is dropped. Members of classes, traits, objects, enums,
package objects, ``given ... with`` instances and ``extension`` blocks count (the Scaladoc
above an extension with a single def is that def's), top-level (Scala 3) defs too; local
defs inside a body and members of anonymous classes (``new T { ... }``) do not, as in Java.

tree-sitter-scala quirk this module handles: a comment that follows a function whose body
is a bare expression (``def f = x`` then ``/** doc */ def g``) or an indented block is
parsed as the *last child* of ``f``'s body, not as a sibling before ``g``. So the doc of a
function is the comment that ends right before it in document order (possibly nested at
the end of the previous sibling), and a function's code ends at its last non-comment leaf.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats, Candidate
from qidf_research.corpora.java import STANDARD_METHODS as JAVA_STANDARD_METHODS
from qidf_research.corpora.java import javadoc_lines
from qidf_research.corpora.packaged import ArchiveSource, PackageDir, build_packaged
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "scala"
EXTENSIONS = (".scala",)
# Scala 2 and 3 keywords and soft keywords (scala-lang.org/files/archive/spec/3.4/01-lexical-
# syntax.html), left out of near-duplicate detection as dpu_utils leaves out keywords.
KEYWORDS = frozenset(
    {
        "abstract", "case", "catch", "class", "def", "do", "else", "enum", "export",
        "extends", "false", "final", "finally", "for", "forSome", "given", "if", "implicit",
        "import", "lazy", "macro", "match", "new", "null", "object", "override", "package",
        "private", "protected", "return", "sealed", "super", "then", "this", "throw",
        "trait", "true", "try", "type", "val", "var", "while", "with", "yield", "as",
        "derives", "end", "extension", "infix", "inline", "opaque", "open", "transparent",
        "using",
    }
)  # fmt: skip
# java.lang.Object's overridable methods plus the one every case class generates.
STANDARD_METHODS = JAVA_STANDARD_METHODS | {"canEqual"}
# Definitions whose name qualifies the functions in their body.
_TYPES = frozenset(
    {"class_definition", "object_definition", "trait_definition", "enum_definition",
     "package_object", "given_definition"}
)  # fmt: skip
# Nodes whose children are walked for members, with the owner unchanged.
_BODIES = frozenset(
    {"template_body", "with_template_body", "enum_body", "extension_definition",
     "package_clause", "ERROR"}
)  # fmt: skip
_FUNCTIONS = frozenset({"function_definition", "function_declaration"})
_STRING_TYPES = frozenset({"string", "interpolated_string_expression", "character_literal"})
_COMMENTS = frozenset({"comment", "block_comment"})
_WIKI_HEADING_RE = re.compile(r"^=+[^=].*=+$")
# Spark's stability badge (``:: DeveloperApi ::``) opens a Scaladoc but is a label, not prose.
_API_MARKER_RE = re.compile(r"^\s*::\s*[A-Z]\w*\s*::\s*")
_GENERATED_RE = re.compile(
    rb"(?-i:GENERATED CODE)|AUTO-GENERATED|Auto-generated file|DO NOT EDIT"
    rb"|This file (was|is) generated|@Generated\b", re.I
)


@dataclass(frozen=True)
class _Span:
    """A byte range shaped like a node for :func:`block_text` (a function without the
    comments the grammar hung at its end)."""

    start_byte: int
    end_byte: int


def scaladoc_lines(comment: str) -> list[str]:
    """Scaladoc text lines, read as Javadoc (:func:`javadoc_lines`: delimiters and ``*``
    removed, cut at the first tag) plus Scaladoc's wiki blocks: a ``{{{`` code block ends
    the prose, a ``=== Heading ===`` line is a title and breaks the paragraph; a leading
    ``:: Experimental ::`` badge is dropped."""
    out: list[str] = []
    for line in javadoc_lines(comment):
        if "{{{" in line:  # a code block, also one opened at the end of a prose line
            out.append(line.split("{{{", 1)[0])
            break
        line = _API_MARKER_RE.sub("", line)
        out.append("" if _WIKI_HEADING_RE.match(line.strip()) else line)
    return out


def _comment_before(node: Any) -> Any | None:
    """The comment that ends right before ``node`` in document order, or None.

    It is the previous sibling, or the last descendant of the previous sibling (see the
    module docstring); a node that starts where its parent starts (a ``given ... with``
    body) looks before its parent.
    """
    n = node
    while n.prev_sibling is None and n.parent is not None and n.parent.start_byte == n.start_byte:
        n = n.parent
    prev = n.prev_sibling
    while prev is not None and prev.type not in _COMMENTS:
        prev = prev.children[-1] if prev.child_count else None
    return prev


def _scaladoc(node: Any) -> str:
    """First paragraph of the ``/** */`` comment right above ``node``, or ""."""
    prev = _comment_before(node)
    if prev is None:
        return ""
    raw = text(prev)
    if not raw.startswith("/**") or raw.startswith(("/**/", "/***")):  # not a banner
        return ""
    return first_paragraph(scaladoc_lines(raw))


def _code_end(node: Any) -> int:
    """Where ``node``'s code ends: its last leaf that is not a comment."""
    n = node
    while n.child_count:
        kids = [c for c in n.children if c.type not in _COMMENTS]
        if not kids:
            break
        n = kids[-1]
    return int(n.end_byte)


def _annotation_names(node: Any) -> set[str]:
    """Simple names of a function's annotations (``@org.junit.Test`` -> ``Test``)."""
    names: set[str] = set()
    for c in node.children:
        if c.type == "annotation":
            ty = next((k for k in c.named_children if k.type != "arguments"), None)
            if ty is not None:
                names.add(text(ty).split("[", 1)[0].rsplit(".", 1)[-1].strip())
    return names


def _is_test(name: str, node: Any) -> bool:
    """JUnit/MUnit style tests: a ``test`` name prefix or a ``@Test`` annotation."""
    return name.startswith("test") or "Test" in _annotation_names(node)


def _owner_name(node: Any) -> str:
    """A definition's simple name; an anonymous ``given`` is ``given``."""
    name = node.child_by_field_name("name")
    if name is not None:
        return text(name).strip("`")
    ident = next((c for c in node.children if c.type == "identifier"), None)
    if ident is not None:
        return text(ident).strip("`")
    return "given" if node.type == "given_definition" else "_"


def scala_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Functions at top level and in every (nested) class, trait, object, enum, package
    object, given instance and extension block of one file; auxiliary constructors
    (``def this(...)``) are recorded only to be counted as excluded."""
    tree = parser_for("tree_sitter_scala").parse(content)
    out: list[Candidate] = []

    def add(node: Any, owner: str, doc_of: Any = None) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = text(name_node).strip("`")
        out.append(
            Candidate(
                qualname=f"{owner}.{name}" if owner else name,
                name=name,
                code=block_text(_Span(node.start_byte, _code_end(node)), content),
                doc=_scaladoc(node) or (_scaladoc(doc_of) if doc_of is not None else ""),
                path=relpath,
                package=package,
                tokens=leaf_tokens(node, whole=_STRING_TYPES, skip=_COMMENTS),
                has_body=node.type == "function_definition",
                is_test=_is_test(name, node),
                is_excluded_kind=name == "this" or name in STANDARD_METHODS,
            )
        )

    def walk(body: Any, owner: str) -> None:
        defs = [c for c in body.children if c.type in _FUNCTIONS]
        # ``/** doc */ extension (s: String) def f = ...``: the doc is f's when f is alone.
        lone = body if body.type == "extension_definition" and len(defs) == 1 else None
        for node in body.children:
            if node.type in _BODIES:
                walk(node, owner)
            elif node.type in _TYPES:
                name = _owner_name(node)
                inner = f"{owner}.{name}" if owner else name
                for sub in node.children:
                    if sub.type in _BODIES:
                        walk(sub, inner)
            elif node.type in _FUNCTIONS:
                add(node, owner, lone)

    walk(tree.root_node, "")
    return out


def scala_skip_reason(relpath: str, content: bytes) -> str | None:
    """Sources generated from templates (scala-library's ``Function1``..``Tuple22``, sbt
    and ScalaPB output) are not code anyone wrote, and their docs repeat."""
    if "/generated/" in f"/{relpath}" or _GENERATED_RE.search(content[:4000]):
        return "generated"
    return None


def build_scala_archives(packages: list[PackageDir], stats: BuildStats | None = None
                         ) -> list[Pair]:
    """Pairs from several Scala source jars, deduplicated together; every pair keeps its
    jar's name (``package``), version and license."""
    source = ArchiveSource(LANGUAGE, packages, EXTENSIONS, scala_functions, KEYWORDS,
                           skip=scala_skip_reason)
    return build_packaged(source, stats)
