"""C++ function definitions and the comment right above them (``///``, ``//``, ``/** */``).

Definitions with a body anywhere a declaration may stand: file level, namespaces, class
bodies, templates, ``extern "C"`` blocks. The comment may sit above a ``template<...>``
line. Constructors, destructors and operators are CodeSearchNet's "standard methods".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from qidf_research.corpora.comments import adjacent_comments, summary
from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "cpp"
EXTENSIONS = (".cc", ".cpp", ".cxx", ".h", ".hpp", ".hh", ".ipp")
KEYWORDS = frozenset(
    {"alignas", "alignof", "auto", "bool", "break", "case", "catch", "char", "class", "const",
     "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
     "dynamic_cast", "else", "enum", "explicit", "extern", "false", "float", "for", "friend",
     "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
     "nullptr", "operator", "private", "protected", "public", "return", "short", "signed",
     "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
     "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned", "using",
     "virtual", "void", "volatile", "while", "override", "final", "consteval", "constinit"}
)  # fmt: skip
_COMMENTS = frozenset({"comment"})
_STRINGS = frozenset({"string_literal", "char_literal", "raw_string_literal",
                      "system_lib_string"})
_CONTAINERS = frozenset({"translation_unit", "namespace_definition", "declaration_list",
                         "class_specifier", "struct_specifier", "field_declaration_list",
                         "linkage_specification", "preproc_if", "preproc_ifdef",
                         "preproc_else", "preproc_elif", "ERROR"})
_DECLARATORS = frozenset({"function_declarator", "pointer_declarator",
                          "reference_declarator", "parenthesized_declarator",
                          "attributed_declarator"})


_QUALNAME = re.compile(r"[~\w:]+(<[^<>(){};]*>)?(::[~\w]+)*")


def _name(fn: Any) -> tuple[str, bool]:
    """(qualified name, whether it is a constructor, destructor or operator)."""
    node = fn.child_by_field_name("declarator")
    while node is not None and node.type in _DECLARATORS:
        node = node.child_by_field_name("declarator") or (
            node.named_children[0] if node.named_children else None)
    if node is None:
        return "_", False
    # The declarator's name; a macro-made or unparsed head can leave a whole class here, so
    # keep the leading name only (ids stay short and stable).
    m = _QUALNAME.match(text(node).strip())
    qual = m.group(0)[:120] if m else "_"
    leaf = qual.split("::")[-1]
    special = (node.type in ("destructor_name", "operator_name") or "operator" in leaf
               or leaf.startswith("~") or fn.child_by_field_name("type") is None)
    return qual, special


def _definitions(node: Any) -> Iterator[tuple[Any, Any]]:
    """(function_definition, the node its comment sits above) in source order."""
    for child in node.children:
        if child.type == "function_definition":
            yield child, child
        elif child.type == "template_declaration":
            inner = next((c for c in child.named_children
                          if c.type == "function_definition"), None)
            if inner is not None:
                yield inner, child
        elif child.type in _CONTAINERS:
            yield from _definitions(child)
        else:
            body = child.child_by_field_name("body")
            if child.type in ("class_specifier", "struct_specifier") and body is not None:
                yield from _definitions(body)
            elif child.type in ("field_declaration", "declaration"):
                for c in child.named_children:
                    if c.type in ("class_specifier", "struct_specifier"):
                        yield from _definitions(c)


def cpp_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    tree = parser_for("tree_sitter_cpp").parse(content)
    out: list[Candidate] = []
    for fn, anchor in _definitions(tree.root_node):
        body = fn.child_by_field_name("body")
        qual, special = _name(fn)
        comments = adjacent_comments(anchor, _COMMENTS)
        out.append(Candidate(
            qualname=qual, name=qual.split("::")[-1], code=block_text(anchor, content),
            doc=summary([text(c) for c in comments]) if comments else "", path=relpath,
            package=package, tokens=leaf_tokens(anchor, whole=_STRINGS, skip=_COMMENTS),
            has_body=body is not None and body.type == "compound_statement",
            is_excluded_kind=special))
    return out
