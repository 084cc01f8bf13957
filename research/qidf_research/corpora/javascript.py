"""JavaScript functions and methods with their JSDoc, from npm packages.

The documentation is the ``/** */`` comment right before the declaration (read like
Javadoc, cut at the first ``@tag``): before a ``function``, a class method, an ``export``,
or the statement that assigns a function (``const f = function``, ``obj.f = () => ...``).
"""

from __future__ import annotations

from typing import Any

from qidf_research.corpora.extract import Candidate
from qidf_research.corpora.java import javadoc_lines
from qidf_research.corpora.rules import first_paragraph
from qidf_research.corpora.ts import block_text, leaf_tokens, parser_for, text

LANGUAGE = "javascript"
EXTENSIONS = (".js", ".mjs", ".cjs")
STANDARD_METHODS = frozenset({"constructor", "toString", "toJSON", "valueOf", "inspect"})
KEYWORDS = frozenset(
    {"await", "break", "case", "catch", "class", "const", "continue", "debugger", "default",
     "delete", "do", "else", "export", "extends", "false", "finally", "for", "function", "if",
     "import", "in", "instanceof", "let", "new", "null", "return", "static", "super",
     "switch", "this", "throw", "true", "try", "typeof", "undefined", "var", "void", "while",
     "with", "yield", "async", "of"}
)  # fmt: skip
_FUNCS = frozenset({"function_expression", "arrow_function", "generator_function",
                    "function"})
_DECLS = frozenset({"function_declaration", "generator_function_declaration"})
_STRING_TYPES = frozenset({"string", "template_string", "regex"})
_COMMENTS = frozenset({"comment"})


def _jsdoc(node: Any) -> str:
    """First paragraph of the ``/** */`` directly above ``node`` (no code in between)."""
    prev = node.prev_sibling
    if prev is None or prev.type != "comment":
        return ""
    raw = text(prev)
    if not raw.startswith("/**") or prev.end_point[0] < node.start_point[0] - 1:
        return ""
    return first_paragraph(javadoc_lines(raw))


def _holder(node: Any) -> Any:
    """The statement that carries a declaration's comment (``export``, ``const``)."""
    up = node
    while up.parent is not None and up.parent.type in (
            "export_statement", "variable_declarator", "lexical_declaration",
            "variable_declaration", "assignment_expression", "expression_statement"):
        up = up.parent
    return up


def js_functions(relpath: str, content: bytes, package: str) -> list[Candidate]:
    """Function declarations, class methods, and functions bound to a name by ``const`` or
    an assignment; not the functions inside a recorded function."""
    tree = parser_for("tree_sitter_javascript").parse(content)
    out: list[Candidate] = []

    def add(node: Any, code_node: Any, name: str, owner: str, kind_excluded: bool) -> None:
        out.append(Candidate(
            qualname=f"{owner}.{name}" if owner else name,
            name=name,
            code=block_text(code_node, content),
            doc=_jsdoc(_holder(code_node)),
            path=relpath,
            package=package,
            tokens=leaf_tokens(code_node, whole=_STRING_TYPES, skip=_COMMENTS),
            is_test=False,
            is_excluded_kind=kind_excluded,
        ))

    def walk(node: Any, owner: str) -> None:
        for child in node.named_children:
            t = child.type
            if t in _DECLS:
                add(child, child, text(child.child_by_field_name("name") or child), owner, False)
                continue
            if t == "class_declaration" or t == "class":
                name = child.child_by_field_name("name")
                body = child.child_by_field_name("body")
                if body is not None:
                    walk(body, text(name) if name is not None else owner)
                continue
            if t == "method_definition":
                name = text(child.child_by_field_name("name") or child)
                add(child, child, name, owner, name in STANDARD_METHODS)
                continue
            if t == "variable_declarator":
                value = child.child_by_field_name("value")
                if value is not None and value.type in _FUNCS:
                    stmt = child.parent if child.parent is not None else child
                    add(value, stmt, text(child.child_by_field_name("name") or child), owner,
                        False)
                    continue
            if t == "assignment_expression":
                right = child.child_by_field_name("right")
                if right is not None and right.type in _FUNCS:
                    left = text(child.child_by_field_name("left") or child)
                    stmt = child.parent if child.parent is not None else child
                    name = left.rsplit(".", 1)[-1]
                    add(right, stmt, name, left.rsplit(".", 1)[0] if "." in left else owner,
                        name in STANDARD_METHODS)
                    continue
            # Unnamed functions (module wrappers, callbacks) are searched for named ones;
            # a recorded function's own body is not.
            walk(child, owner)

    walk(tree.root_node, "")
    return out
