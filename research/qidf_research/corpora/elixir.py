"""Elixir functions and their ``@doc`` attributes.

``@doc`` with a heredoc (or an ``~S`` sigil) documents the next ``def``/``defmacro``; attributes
such as ``@spec`` may sit in between, and a function written as several clauses (``def
f(0)``, ``def f(n)``) is one function: its consecutive clauses of the same name.
``@doc false`` hides a function and gives no doc.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from typing import Any

from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import leaf_tokens, parser_for, text

LANGUAGE = "elixir"
EXTENSIONS = (".ex",)
KEYWORDS = frozenset(
    {"def", "defp", "defmacro", "defmacrop", "defmodule", "do", "end", "fn", "case", "cond",
     "if", "unless", "else", "with", "when", "and", "or", "not", "in", "true", "false", "nil",
     "rescue", "catch", "after", "raise", "quote", "unquote", "import", "alias", "require",
     "use"}
)  # fmt: skip
_DEFS = frozenset({"def", "defmacro", "defguard"})
_COMMENTS = frozenset({"comment"})
_STRINGS = frozenset({"string", "charlist", "sigil"})
_QUOTES = re.compile(r'^(~[SsCc])?("""|"|\'\'\')|("""|"|\'\'\')$')


def _target(call: Any) -> str:
    t = call.child_by_field_name("target")
    return text(t) if t is not None else ""


def _attribute(node: Any) -> tuple[str, Any] | None:
    """(name, argument node) of ``@name arg``, or None."""
    if node.type != "unary_operator" or not text(node).startswith("@"):
        return None
    operand = node.child_by_field_name("operand")
    if operand is None or operand.type != "call":
        return None
    args = operand.child_by_field_name("arguments") or next(
        (c for c in operand.children if c.type == "arguments"), None)
    arg = args.named_children[0] if args is not None and args.named_children else None
    return _target(operand), arg


def _doc_text(arg: Any) -> str:
    if arg is None or arg.type not in ("string", "sigil"):
        return ""
    body = _QUOTES.sub("", text(arg).strip())
    return first_paragraph(textwrap.dedent(body).splitlines())


def _def_name(call: Any) -> str | None:
    args = next((c for c in call.children if c.type == "arguments"), None)
    head = args.named_children[0] if args is not None and args.named_children else None
    if head is not None and head.type == "binary_operator":  # def f(x) when guard
        head = head.child_by_field_name("left")
    if head is None:
        return None
    if head.type == "call":
        return _target(head) or None
    return text(head) if head.type == "identifier" else None


def _lists(node: Any) -> Iterator[list[Any]]:
    """Every list of sibling nodes (a module body, the file), in source order."""
    yield list(node.children)
    for child in node.children:
        yield from _lists(child)


def elixir_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    tree = parser_for("tree_sitter_elixir").parse(content)
    out: list[Candidate] = []
    for kids in _lists(tree.root_node):
        i = 0
        while i < len(kids):
            attr = _attribute(kids[i])
            i += 1
            if attr is None or attr[0] != "doc":
                continue
            doc = _doc_text(attr[1])
            while i < len(kids) and (kids[i].type in _COMMENTS or _attribute(kids[i])):
                more = _attribute(kids[i])
                if more is not None and more[0] == "doc" and more[1] is not None and \
                        more[1].type in ("string", "sigil", "boolean"):
                    doc = _doc_text(more[1])  # a later @doc replaces it; "@doc since:" not
                i += 1
            if i >= len(kids) or kids[i].type != "call" or _target(kids[i]) not in _DEFS:
                continue
            name = _def_name(kids[i])
            clauses = [kids[i]]
            i += 1
            while (i < len(kids) and kids[i].type == "call" and _target(kids[i]) in _DEFS
                   and _def_name(kids[i]) == name):
                clauses.append(kids[i])
                i += 1
            if not name:
                continue
            code = content[clauses[0].start_byte:clauses[-1].end_byte].decode(
                "utf-8", errors="replace")
            tokens = tuple(t for c in clauses for t in leaf_tokens(c, whole=_STRINGS,
                                                                   skip=_COMMENTS))
            has_body = any(any(c.type == "do_block" for c in clause.children)
                           or "do:" in text(clause) for clause in clauses)
            out.append(Candidate(qualname=name, name=name, code=code, doc=doc, path=relpath,
                                 package=package, tokens=tokens, has_body=has_body))
    return out
