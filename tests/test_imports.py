"""The map of the code holds: data flows one way, and no module imports itself back.

Imports are read from the source (those under ``TYPE_CHECKING`` too), so a cycle
is caught even where Python would tolerate it at run time.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "doublet"


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    if target in known:
                        graph[name].add(target)
                    elif node.module in known:
                        graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in known)
        graph[name].discard(name)
    return graph


def test_no_module_imports_itself_back() -> None:
    graph = imports()
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_engine_knows_nothing_of_files_editors_or_command_lines() -> None:
    for module, targets in imports().items():
        if module.startswith("doublet.engine"):
            outside = {t for t in targets if not t.startswith("doublet.engine")}
            assert outside == set(), module


def test_the_two_adapters_stay_apart() -> None:
    """The language server never uses the command line; the command line reaches the
    server only to start it (``doublet serve``: its first message read, then the
    handlers, imported with the protocol's compiled code kept)."""
    starting = {"doublet.lsp.first_message", "doublet.lsp.generated_code", "doublet.lsp.handlers"}
    for module, targets in imports().items():
        if module.startswith("doublet.cli"):
            into_server = {t for t in targets if t.startswith("doublet.lsp")}
            assert into_server <= starting, module
        if module.startswith("doublet.lsp"):
            assert not any(t.startswith("doublet.cli") for t in targets), module
