"""Ruby methods and their comments, from Ruby packages (Debian's ship the sources).

A Ruby method's documentation is the block of ``#`` comment lines directly above its
``def`` (RDoc's rule, and CodeSearchNet's). Tree-sitter attaches a class's leading
comments outside its body node, so the block is read from the source lines instead.
"""

from __future__ import annotations

import re
from typing import Any

from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "ruby"
EXTENSIONS = (".rb",)
STANDARD_METHODS = frozenset({"initialize", "to_s", "inspect", "hash", "eql?", "==", "<=>",
                              "to_str", "to_h", "to_a", "method_missing",
                              "respond_to_missing?"})
KEYWORDS = frozenset(
    {"alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else",
     "elsif", "end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not",
     "or", "redo", "rescue", "retry", "return", "self", "super", "then", "true", "undef",
     "unless", "until", "when", "while", "yield"}
)  # fmt: skip
_STRING_TYPES = frozenset({"string", "heredoc_body", "regex", "symbol"})
_COMMENTS = frozenset({"comment"})
_MAGIC_RE = re.compile(r"^#\s*(frozen_string_literal|encoding|coding|typed|rubocop|-\*-)")


def comment_block_above(lines: list[bytes], row: int) -> list[str]:
    """``#`` lines directly above line ``row`` (no blank line between), markers removed."""
    out: list[str] = []
    i = row - 1
    while i >= 0:
        s = lines[i].decode("utf-8", errors="replace").strip()
        if not s.startswith("#") or _MAGIC_RE.match(s):
            break
        out.append(s[1:].removeprefix(" ") if len(s) > 1 else "")
        i -= 1
    return out[::-1]


def _doc(lines: list[bytes], row: int) -> str:
    block = comment_block_above(lines, row)
    if any(":nodoc:" in line for line in block):
        return ""
    # RDoc directives (:call-seq:, :yields:) and example code lines are not the summary.
    return first_paragraph([ln for ln in block if not ln.strip().startswith(":")])


def _scope_name(node: Any) -> str:
    name = node.child_by_field_name("name")
    return text(name) if name is not None else "_"


def ruby_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Instance and singleton methods of every (nested) class and module, and top-level
    ``def``s; methods defined inside methods or blocks are left out."""
    tree = parser_for("tree_sitter_ruby").parse(content)
    lines = content.split(b"\n")
    out: list[Candidate] = []

    def walk(node: Any, owner: str) -> None:
        for child in node.named_children:
            if child.type in ("class", "module"):
                inner = f"{owner}::{_scope_name(child)}" if owner else _scope_name(child)
                walk(child, inner)
            elif child.type in ("singleton_class", "body_statement"):
                walk(child, owner)
            elif child.type in ("method", "singleton_method"):
                name = text(child.child_by_field_name("name") or child)
                sep = "." if child.type == "singleton_method" else "#"
                out.append(Candidate(
                    qualname=f"{owner}{sep}{name}" if owner else name,
                    name=name,
                    code=block_text(child, content),
                    doc=_doc(lines, child.start_point[0]),
                    path=relpath,
                    package=package,
                    tokens=leaf_tokens(child, whole=_STRING_TYPES, skip=_COMMENTS),
                    is_test=name.startswith("test_"),
                    is_excluded_kind=name in STANDARD_METHODS,
                ))

    walk(tree.root_node, "")
    return out
