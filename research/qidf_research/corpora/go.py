"""Go functions and doc comments, from a Go source tree such as the toolchain's GOROOT.

A Go doc comment is the comment group directly above a declaration with no blank line in
between (go/doc's rule). Directive lines (``//go:noinline``, ``//export f``) are part of
that group but are not documentation, so they are dropped before taking the first
paragraph, as go/doc does.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats, Candidate, build_pairs
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "go"
LICENSE = "BSD-3-Clause"

_GENERATED_RE = re.compile(rb"^// Code generated .* DO NOT EDIT\.$", re.M)
_PACKAGE_RE = re.compile(rb"^package ", re.M)
# go/ast isDirective: "//line ", "//extern ", "//export ", or "//[a-z0-9]+:[a-z0-9]".
_DIRECTIVE_RE = re.compile(r"^//(line |extern |export |[a-z0-9]+:[a-z0-9])")
# The go tool's rule for test, benchmark, example and fuzz functions: the prefix then
# end of name or a character that is not a lower-case letter (so "Testify" is not a test).
# Only top-level funcs taking a *testing.T/B/F (or, for examples, nothing) are tests:
# internal/platform.FuzzSupported is an ordinary function.
_TEST_NAME_RE = re.compile(r"^(Test|Benchmark|Example|Fuzz)([^a-z].*)?$")
# Methods that only satisfy a standard interface (fmt.Stringer, error, sort.Interface,
# errors.Unwrap); Go's counterparts of Java's toString or Python's __str__.
STANDARD_METHODS = frozenset({"String", "GoString", "Error", "Len", "Less", "Swap", "Unwrap"})
KEYWORDS = frozenset(
    {
        "break", "case", "chan", "const", "continue", "default", "defer", "else",
        "fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map",
        "package", "range", "return", "select", "struct", "switch", "type", "var",
    }
)  # fmt: skip
_STRING_TYPES = frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"})
_SKIP = frozenset({"comment"})


def doc_comment_lines(comments: list[str]) -> list[str]:
    """Text lines of a Go comment group, comment markers and directive lines removed."""
    lines: list[str] = []
    for c in comments:
        if c.startswith("//"):
            if _DIRECTIVE_RE.match(c):
                continue
            lines.append(c[2:])
        elif c.startswith("/*"):
            for line in c[2:-2].splitlines():
                line = line.strip()
                lines.append(line[1:] if line.startswith("*") else line)
    return lines


def _doc_comments(decl: Any) -> list[str]:
    """The comment group ending on the line above ``decl`` (none if a blank line separates)."""
    out: list[str] = []
    row = decl.start_point[0]
    prev = decl.prev_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= row - 1:
        out.append(text(prev))
        row = prev.start_point[0]
        prev = prev.prev_sibling
    out.reverse()
    return out


def is_generated(content: bytes) -> bool:
    """Go's generated-file marker, looked for only above the package clause.

    Generators (``gen.go``, ``make_tables.go``) carry the same line inside string
    literals below ``package``; they are hand-written and stay in.
    """
    pkg = _PACKAGE_RE.search(content)
    head = content[: pkg.start()] if pkg else content
    return _GENERATED_RE.search(head) is not None


def is_test_func(name: str, decl: Any) -> bool:
    """Whether a top-level func would be run by ``go test`` as a test/benchmark/fuzz/example."""
    m = _TEST_NAME_RE.match(name)
    if not m:
        return False
    params = decl.child_by_field_name("parameters")
    ptext = text(params) if params is not None else "()"
    if m.group(1) == "Example":
        return ptext.replace(" ", "") == "()"
    return "testing." in ptext


def receiver_type(receiver: str) -> str:
    """``(s *Set[E])`` -> ``Set``: the receiver's base type name, for ids like Set.Add."""
    inner = re.sub(r"\[.*\]", "", receiver.strip()[1:-1]).strip()
    typ = inner.split()[-1].lstrip("*") if inner else ""
    if "." in typ:
        typ = typ.rsplit(".", 1)[-1]
    return typ or "_"


def go_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Every top-level func and method declaration in one Go file."""
    tree = parser_for("tree_sitter_go").parse(content)
    out: list[Candidate] = []
    for node in tree.root_node.children:
        if node.type not in ("function_declaration", "method_declaration"):
            continue
        name_node = node.child_by_field_name("name")
        if name_node is None:
            continue
        name = text(name_node)
        recv = node.child_by_field_name("receiver")
        qualname = f"{receiver_type(text(recv))}.{name}" if recv is not None else name
        doc = first_paragraph(doc_comment_lines(_doc_comments(node)))
        out.append(
            Candidate(
                qualname=qualname,
                name=name,
                code=block_text(node, content),
                doc=doc,
                path=relpath,
                package=package,
                tokens=leaf_tokens(node, whole=_STRING_TYPES, skip=_SKIP),
                has_body=node.child_by_field_name("body") is not None,
                is_test=recv is None and is_test_func(name, node),
                is_excluded_kind=recv is not None and name in STANDARD_METHODS,
            )
        )
    return out


def go_version(goroot: Path) -> str:
    """``go1.26.8``: first line of $GOROOT/VERSION, else ``go env GOVERSION``."""
    vfile = goroot / "VERSION"
    if vfile.is_file():
        first = vfile.read_text(encoding="utf-8").splitlines()[0].strip()
        if first:
            return first
    res = subprocess.run(
        ["go", "env", "GOVERSION"], capture_output=True, text=True, check=True, cwd=goroot
    )
    return res.stdout.strip()


@dataclass
class GoSource:
    """The Go files under ``<root>/src`` (a GOROOT), paths relative to ``root``."""

    root: Path
    version: str
    language: str = LANGUAGE
    license: str = LICENSE
    keywords: frozenset[str] = KEYWORDS

    def files(self) -> Iterator[tuple[str, bytes]]:
        """All ``.go`` files under src/, in sorted order so builds are deterministic."""
        src = self.root / "src"
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames.sort()
            for fn in sorted(filenames):
                if fn.endswith(".go"):
                    full = Path(dirpath) / fn
                    yield full.relative_to(self.root).as_posix(), full.read_bytes()

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Vendored copies, testdata fixtures, _test.go files and generated code."""
        parts = relpath.split("/")
        if "vendor" in parts[:-1]:
            return "vendor"
        if "testdata" in parts[:-1]:
            return "testdata"
        if parts[-1].endswith("_test.go"):
            return "_test.go"
        if is_generated(content):
            return "generated"
        return None

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        """Functions of one file; the package is its import path (directory under src/)."""
        package = relpath.split("/", 1)[1].rsplit("/", 1)[0] if "/" in relpath else ""
        return go_functions(relpath, content, package)


def build_go(goroot: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a Go toolchain's standard library (and cmd/), sorted by id."""
    goroot = Path(goroot)
    return build_pairs(GoSource(goroot, go_version(goroot)), stats)
