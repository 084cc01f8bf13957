"""Lua functions and the comment right above them (LDoc's ``---`` or plain ``--`` lines).

Functions are declarations (``function M.f(...)``, ``local function f(...)``) and
assignments of a function (``M.f = function(...)``), at any depth of the file's blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from qidf_research.corpora.comments import adjacent_comments, summary
from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "lua"
EXTENSIONS = (".lua",)
KEYWORDS = frozenset(
    {"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
     "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"}
)  # fmt: skip
_COMMENTS = frozenset({"comment"})
_STRINGS = frozenset({"string"})


def _function_name(node: Any) -> str | None:
    if node.type == "function_declaration":
        name = node.child_by_field_name("name")
        return text(name) if name is not None else None
    if node.type in ("assignment_statement", "variable_declaration"):
        src = text(node)
        if "function" not in src.split("=", 1)[-1][:30]:
            return None
        left = src.split("=", 1)[0].replace("local ", "").strip()
        return left if left.replace(".", "").replace(":", "").replace("_", "").isalnum() \
            else None
    return None


def lua_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    tree = parser_for("tree_sitter_lua").parse(content)
    out: list[Candidate] = []
    for child in _in_order(tree.root_node):
        qual = _function_name(child)
        if qual is not None:
            comments = [c for c in adjacent_comments(child, _COMMENTS)
                        if not text(c).startswith("--[[")]
            doc = summary([text(c) for c in comments]) if comments else ""
            name = qual.replace(":", ".").split(".")[-1]
            out.append(Candidate(qualname=qual, name=name, code=block_text(child, content),
                                 doc=doc, path=relpath, package=package,
                                 tokens=leaf_tokens(child, whole=_STRINGS, skip=_COMMENTS)))
    return out


def _in_order(node: Any) -> Iterator[Any]:
    """Every node under ``node`` in source order, a function's own body included."""
    for child in node.children:
        yield child
        yield from _in_order(child)
