"""The layout of compiler/: every module imports on its own, the imports between its modules
(those for annotations only, under `if TYPE_CHECKING:`, included) have no cycle and go one way
through the layers, no module is over MAX_LINES lines, and each list of the domain (strategies,
calculators, qualification types, operators, targets) is defined once (docs/architecture.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "compiler"
SINGLE_DEFINITIONS = ("STRATEGIES", "CALCULATORS", "QUALIFICATION_TYPES", "OPERATORS", "TARGETS", "TRANSACTION_TYPES")
MAX_LINES = 400

# The layers of compiler/, from the bottom up (docs/architecture.md): a module imports only from
# its own layer or the layers below. A module belongs to the layer of the longest prefix naming it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("compiler", "compiler.errors", "compiler.numbers", "compiler.emit", "compiler.program", "compiler.program.models",
     "compiler.program.qualifier"),
    ("compiler.validation.context", "compiler.validation.locate", "compiler.qualifications", "compiler.program.base",
     "compiler.strategies", "compiler.program.catalogue", "compiler.rule_tables"),
    ("compiler.validation", "compiler.validation.rules", "compiler.validation.check"),
    ("compiler.compile",),
    ("compiler.run", "compiler.statements"),
    ("compiler.targets",),
    ("compiler.runner", "compiler.export", "compiler.report", "compiler.reconcile", "compiler.whatif", "compiler.cli"),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str, path: Path) -> set[str]:
    """The modules of compiler/ that `module` imports, anywhere in it: in functions and under
    `if TYPE_CHECKING:` (annotations only) too, since a design cycle is a cycle however it is
    imported."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)  # `from package import module`
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return {name for name in found if name in MODULES and name != module}


def test_import_graph_has_no_cycle() -> None:
    graph = {module: _imports(module, path) for module, path in MODULES.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                cycle = stack[stack.index(imported):] + [imported]
                pytest.fail("import cycle in compiler/: " + " -> ".join(cycle))
            if imported not in state:
                walk(imported)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)


def test_type_checking_imports_are_seen(tmp_path: Path) -> None:
    """An import under `if TYPE_CHECKING:` is an edge of the graph."""
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from compiler.errors import Issue\n")
    assert _imports("compiler.run.m", source) == {"compiler.errors"}


def _layer(module: str) -> int:
    homes = [(len(prefix), i) for i, prefixes in enumerate(LAYERS) for prefix in prefixes
             if module == prefix or module.startswith(prefix + ".")]
    assert homes, f"{module} is in no layer of LAYERS"
    return max(homes)[1]


def test_imports_go_down_the_layers() -> None:
    wrong = [f"{module} (layer {_layer(module)}) imports {imported} (layer {_layer(imported)})"
             for module, path in MODULES.items() for imported in sorted(_imports(module, path))
             if _layer(imported) > _layer(module)]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_is_short(module: str) -> None:
    lines = len(MODULES[module].read_text().splitlines())
    assert lines <= MAX_LINES, f"{MODULES[module].relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_alone(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def _top_level_assignments(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def _string_collections(tree: ast.Module) -> list[frozenset[str]]:
    """Every tuple, list or set literal of two or more strings, as the set of its strings."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) > 1 and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            out.append(frozenset(e.value for e in node.elts))  # type: ignore[attr-defined]
    return out


def test_each_list_is_defined_once() -> None:
    """STRATEGIES, CALCULATORS, ... are assigned in one module each, and their values are not
    written out again as a literal anywhere else in compiler/."""
    import compiler.program.models  # noqa: F401  (the modules that define them, imported)
    import compiler.qualifications  # noqa: F401
    import compiler.rule_tables  # noqa: F401
    import compiler.strategies  # noqa: F401
    import compiler.targets  # noqa: F401

    trees = {module: ast.parse(path.read_text()) for module, path in MODULES.items()}
    for name in SINGLE_DEFINITIONS:
        homes = [module for module, tree in trees.items() if name in _top_level_assignments(tree)]
        assert len(homes) == 1, f"{name} is defined in {homes or 'no module'}"
        value = getattr(sys.modules[homes[0]], name)
        values = frozenset(value)
        copies = [module for module, tree in trees.items() if values in _string_collections(tree)
                  and not (module == homes[0] and _string_collections(tree).count(values) == 1)]
        assert not copies, f"the values of {name} are written out again in {copies}"
