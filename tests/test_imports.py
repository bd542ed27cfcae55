"""No import loops between the project's modules (module-level imports, including those under ``if TYPE_CHECKING``;
imports inside functions are deferred on purpose and do not count)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "tools", "mcp_server", "planners", "benchmarks", "training")


def module_names() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            name = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            out[name] = f
    return out


def top_level_imports(path: Path, known: set[str]) -> set[str]:
    """Project modules imported at module level (inside if/try blocks too, not inside functions)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        for n in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(n, ast.Import):
                found.update(a.name for a in n.names)
            elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                found.add(n.module)
                found.update(f"{n.module}.{a.name}" for a in n.names)
    return {m for m in found if m in known}


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    loops.append(comp)
    return loops


def test_no_import_loops():
    names = module_names()
    graph = {m: top_level_imports(f, set(names)) - {m} for m, f in names.items()}
    assert strongly_connected(graph) == []


def test_the_loop_finder_finds_a_loop():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
