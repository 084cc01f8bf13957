"""Small Tree-sitter helpers shared by the language modules.

Tree-sitter and the per-language grammar wheels are an optional extra (``qidf[corpus]``):
they are imported only when a corpus is built, never when a shipped corpus is loaded.
"""

from __future__ import annotations

import importlib
import textwrap
from functools import cache
from typing import Any


@cache
def parser_for(module: str, attr: str = "language") -> Any:
    """A Parser for a grammar wheel such as ``tree_sitter_go`` (compiled in, works offline)."""
    try:
        from tree_sitter import Language, Parser
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "building a corpus needs tree-sitter: pip install 'qidf[corpus]'"
        ) from exc
    grammar = importlib.import_module(module)
    return Parser(Language(getattr(grammar, attr)()))


def text(node: Any) -> str:
    """A node's source text as str (sources are decoded as UTF-8 with replacement)."""
    return node.text.decode("utf-8", errors="replace")


def block_text(node: Any, source: bytes, *, cut: tuple[int, int] | None = None) -> str:
    """A node's text dedented as a block, optionally with the byte range ``cut`` removed.

    The first line keeps its original indentation (taken from the source line) so that a
    method inside a class dedents like the rest of its body. ``cut`` removes a docstring
    that lives inside the function (Python), together with the rest of its line.
    """
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    indent = source[line_start : node.start_byte]
    if indent.strip():
        indent = b""
    raw = source[node.start_byte : node.end_byte]
    if cut is not None:
        a, b = cut[0] - node.start_byte, cut[1] - node.start_byte
        bol = raw.rfind(b"\n", 0, a) + 1
        eol = raw.find(b"\n", b)
        eol = len(raw) if eol < 0 else eol
        if not raw[bol:a].strip() and not raw[b:eol].strip():
            a, b = bol, min(eol + 1, len(raw))  # the docstring had its own line(s)
        raw = raw[:a] + raw[b:]
    body = (indent + raw).decode("utf-8", errors="replace")
    return textwrap.dedent(body).strip("\n")


def leaf_tokens(
    node: Any, *, whole: frozenset[str] = frozenset(), skip: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """Leaf tokens under ``node`` in source order, as CodeSearchNet tokenized code.

    Node types in ``whole`` (string literals) count as one token; types in ``skip``
    (comments, a removed docstring's node ids are handled by the caller) are left out.
    """
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in skip:
            continue
        if n.type in whole or n.child_count == 0:
            tok = text(n).strip()
            if tok:
                out.append(tok)
            continue
        stack.extend(reversed(n.children))
    return tuple(out)
