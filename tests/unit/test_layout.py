"""The package reads like a map: no import cycle, small modules, every module on the docs'
Layout page (docs/reference/layout.md), and nothing of the research inside the product."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ROOT / "qidf_ctl"
RESEARCH = ROOT / "research" / "qidf_research"
MAX_LINES = 400
LAYOUT = ROOT / "docs" / "reference" / "layout.md"


def _module_name(path: Path, base: Path, package: str) -> str:
    rel = path.relative_to(base).with_suffix("")
    parts = [package, *rel.parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules(base: Path, package: str) -> dict[str, Path]:
    return {_module_name(p, base, package): p for p in sorted(base.rglob("*.py"))}


def _top_level_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` is imported: module level only, TYPE_CHECKING blocks
    and imports inside functions left out (they run later, so they cannot form a cycle)."""
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)

    visit(ast.parse(path.read_text()).body)
    return found


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = {m for m in _top_level_imports(path) if m in modules and m != name}
        # Importing a.b.c imports the packages a and a.b first.
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = edges | {p for p in parents if p in modules}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            # A package importing its own submodule is how packages work, not a cycle.
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = dfs(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = dfs(node)
            if found:
                return found
    return None


@pytest.mark.parametrize("base, package", [(PRODUCT, "qidf_ctl"), (RESEARCH, "qidf_research")])
def test_no_import_cycle(base, package):
    cycle = _cycle(_graph(_modules(base, package)))
    assert cycle is None, " -> ".join(cycle or [])


def _all_imports(path: Path) -> set[str]:
    """Every module ``path`` imports, inside functions too (a runner's late import is still
    a dependency: the research's circles were all of that kind)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _late_graph(base: Path, package: str) -> dict[str, set[str]]:
    modules = _modules(base, package)
    return {name: {m for m in _all_imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def _research_graph() -> dict[str, set[str]]:
    return _late_graph(RESEARCH, "qidf_research")


@pytest.mark.parametrize("base, package", [(PRODUCT, "qidf_ctl"), (RESEARCH, "qidf_research")])
def test_no_import_cycle_even_through_late_imports(base, package):
    """An import inside a function hides a circle from Python, not from a reader: the product's
    last one (desired.items <-> desired.saved, plan_from_dict one way and the plan's
    constants the other) was of that kind."""
    cycle = _cycle(_late_graph(base, package))
    assert cycle is None, " -> ".join(cycle or [])


def test_predictor_studies_import_helpers_never_another_runner():
    """A runner (a module with a ``__main__`` block) of the predictor studies imports shared
    helpers, never another runner: helpers live where no runner is."""
    modules = _modules(RESEARCH, "qidf_research")
    runners = {n for n, p in modules.items() if '__name__ == "__main__"' in p.read_text()}
    families = ("predictor_", "qpp_", "knownitem")
    studies = {n for n in modules if n.partition(".")[2].startswith(families)}
    graph = _research_graph()
    bad = {n: sorted(graph[n] & runners) for n in studies if graph[n] & runners}
    assert bad == {}


def test_cycle_detector_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"a.b"}, "a.b": {"a"}}) is None  # package and its submodule


@pytest.mark.parametrize("base", [PRODUCT, RESEARCH])
def test_no_module_is_too_long(base):
    long = {str(p.relative_to(ROOT)): n for p in base.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_product_never_imports_the_research():
    for name, path in _modules(PRODUCT, "qidf_ctl").items():
        source = path.read_text()
        assert "qidf_research" not in source, name


def test_layout_page_lists_every_product_module():
    """Every module on docs/reference/layout.md, and nothing listed that is gone."""
    layout = LAYOUT.read_text()
    listed = set(re.findall(r"qidf_ctl/[\w/]*\.py", layout))
    modules = {str(p.relative_to(ROOT)) for p in PRODUCT.rglob("*.py")
               if p.name != "__init__.py" or p.parent == PRODUCT}  # a package by its folder
    assert sorted(modules - listed) == [], f"add these to {LAYOUT.relative_to(ROOT)}"
    assert sorted(listed - modules) == [], f"gone: remove them from {LAYOUT.relative_to(ROOT)}"
