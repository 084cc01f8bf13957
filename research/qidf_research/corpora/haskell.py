"""Haskell functions and their Haddock comments (``-- |`` or ``{-| -}`` right above).

A function is its type signature with the equations that follow it under the same name
(``lookup :: Ord k => ...`` then ``lookup = go where ...``); a Haddock comment above the
signature (or above a first equation without one) documents it. Tree-sitter puts a Haddock
comment that precedes a module's first declaration outside the declarations; that one is
not read (a few pairs).
"""

from __future__ import annotations

from typing import Any

from qidf_research.corpora.comments import summary
from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.ts import leaf_tokens, parser_for, text

LANGUAGE = "haskell"
EXTENSIONS = (".hs",)
KEYWORDS = frozenset(
    {"case", "class", "data", "default", "deriving", "do", "else", "foreign", "if", "import",
     "in", "infix", "infixl", "infixr", "instance", "let", "module", "newtype", "of", "then",
     "type", "where", "forall", "mdo", "qualified", "as", "hiding"}
)  # fmt: skip
_EQUATIONS = frozenset({"function", "bind"})
_SKIPPED = frozenset({"pragma", "comment", "cpp"})
_STRINGS = frozenset({"string", "char"})


def _name(node: Any) -> str | None:
    name = node.child_by_field_name("name")
    if name is None and node.named_children:
        name = node.named_children[0]
    if name is None:
        return None
    if node.type == "signature" and name.type == "signature":
        return None
    return text(name).strip("()")


def _declarations(root: Any) -> list[Any]:
    return [c for c in root.children if c.type == "declarations"] or [root]


def haskell_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    tree = parser_for("tree_sitter_haskell").parse(content)
    out: list[Candidate] = []
    for decls in _declarations(tree.root_node):
        kids = decls.children
        i = 0
        while i < len(kids):
            doc_node = kids[i]
            i += 1
            if doc_node.type != "haddock" or i >= len(kids):
                continue
            head = kids[i]
            if head.type not in _EQUATIONS | {"signature"}:
                continue
            name = _name(head)
            if not name:
                continue
            parts = [head]
            j = i + 1
            while j < len(kids) and (kids[j].type in _SKIPPED or (
                    kids[j].type in _EQUATIONS and _name(kids[j]) == name)):
                if kids[j].type in _EQUATIONS:
                    parts.append(kids[j])
                j += 1
            i = j
            has_body = any(p.type in _EQUATIONS for p in parts)
            start, end = parts[0].start_byte, parts[-1].end_byte
            code = content[start:end].decode("utf-8", errors="replace")
            tokens = tuple(t for p in parts for t in leaf_tokens(p, whole=_STRINGS,
                                                                 skip=_SKIPPED))
            out.append(Candidate(qualname=name, name=name, code=code,
                                 doc=summary([text(doc_node)]), path=relpath, package=package,
                                 tokens=tokens, has_body=has_body))
    return out
