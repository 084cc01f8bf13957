"""Python functions and docstrings, from a CPython standard library directory.

A Python docstring lives inside the function (its first statement), so it is cut out of
the code text; CodeSearchNet did the same. PSF-licensed; built locally, not shipped.
"""

from __future__ import annotations

import ast
import inspect
import keyword
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

LANGUAGE = "python"
LICENSE = "PSF-2.0"
KEYWORDS = frozenset(keyword.kwlist)
_STRING_TYPES = frozenset({"string", "concatenated_string"})
_COMMENTS = frozenset({"comment"})
# Not the standard library: installed packages and build artefacts beside it.
_SKIP_DIRS = frozenset({"site-packages", "dist-packages", "__pycache__", "lib-dynload"})
_DUNDER_RE = re.compile(r"^__\w+__$")


def docstring_node(func: Any) -> Any | None:
    """The string statement that opens a function body, if any."""
    body = func.child_by_field_name("body")
    if body is None:
        return None
    first = next((c for c in body.named_children if c.type != "comment"), None)
    if first is None or first.type != "expression_statement" or first.named_child_count != 1:
        return None
    return first if first.named_children[0].type in _STRING_TYPES else None


def docstring_text(node: Any) -> str:
    """The docstring's value, cleaned like inspect.getdoc (indentation removed)."""
    raw = text(node.named_children[0])
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw.strip("\"'rRuUbBfF")
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return inspect.cleandoc(value) if isinstance(value, str) else ""


def _is_test(name: str) -> bool:
    """unittest/pytest collect functions whose name starts with "test"."""
    return name.startswith("test")


def python_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Module-level functions and methods of (nested) classes; not functions in functions."""
    tree = parser_for("tree_sitter_python").parse(content)
    out: list[Candidate] = []

    def walk(block: Any, owner: str) -> None:
        for child in block.named_children:
            outer, node = child, child
            if node.type == "decorated_definition":
                node = node.child_by_field_name("definition")
                if node is None:
                    continue
            if node.type == "class_definition":
                name = text(node.child_by_field_name("name"))
                body = node.child_by_field_name("body")
                if body is not None:
                    walk(body, f"{owner}.{name}" if owner else name)
            elif node.type == "function_definition":
                name = text(node.child_by_field_name("name"))
                doc_node = docstring_node(node)
                doc, cut, tokens = "", None, leaf_tokens(outer, whole=_STRING_TYPES, skip=_COMMENTS)
                if doc_node is not None:
                    doc = first_paragraph(docstring_text(doc_node).splitlines())
                    cut = (doc_node.start_byte, doc_node.end_byte)
                    doc_tok = text(doc_node.named_children[0]).strip()
                    if doc_tok in tokens:
                        i = tokens.index(doc_tok)
                        tokens = tokens[:i] + tokens[i + 1 :]
                out.append(
                    Candidate(
                        qualname=f"{owner}.{name}" if owner else name,
                        name=name,
                        code=block_text(outer, content, cut=cut),
                        doc=doc,
                        path=relpath,
                        package=package,
                        tokens=tokens,
                        is_test=_is_test(name),
                        is_excluded_kind=bool(_DUNDER_RE.match(name)),  # __init__, __str__
                    )
                )

    walk(tree.root_node, "")
    return out


def python_version(libdir: Path) -> str:
    """The interpreter's full version (``3.11.7``), else the directory's (``3.11``)."""
    for exe in (libdir.parent.parent / "bin" / "python3", libdir.parent.parent / "bin" / "python"):
        if exe.is_file():
            try:
                res = subprocess.run(
                    [str(exe), "-c", "import platform; print(platform.python_version())"],
                    capture_output=True,
                    text=True,
                    check=True,
                    timeout=30,
                )
                return res.stdout.strip()
            except (OSError, subprocess.SubprocessError):
                break
    m = re.search(r"python(\d+\.\d+)", libdir.name)
    return m.group(1) if m else "unknown"


@dataclass
class PythonSource:
    """The ``.py`` files of a stdlib directory; paths as in the CPython repo (``Lib/...``)."""

    libdir: Path
    version: str
    language: str = LANGUAGE
    license: str = LICENSE
    keywords: frozenset[str] = KEYWORDS

    def files(self) -> Iterator[tuple[str, bytes]]:
        """All ``.py`` files in sorted order, installed packages and caches left out."""
        for dirpath, dirnames, filenames in os.walk(self.libdir):
            dirnames[:] = sorted(
                d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("config-")
            )
            for fn in sorted(filenames):
                if fn.endswith(".py"):
                    full = Path(dirpath) / fn
                    yield "Lib/" + full.relative_to(self.libdir).as_posix(), full.read_bytes()

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Nothing beyond the generic test-path rule: the stdlib has no vendored code."""
        return None

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        """Functions of one file; the package is the dotted module name."""
        mod = relpath.removeprefix("Lib/").removesuffix(".py").replace("/", ".")
        return python_functions(relpath, content, mod.removesuffix(".__init__"))


def build_python(libdir: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a CPython standard library directory, sorted by id."""
    libdir = Path(libdir)
    return build_pairs(PythonSource(libdir, python_version(libdir)), stats)
