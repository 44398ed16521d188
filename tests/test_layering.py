"""The layers of app/ (README, Architecture), checked on the source by an AST walk.

Every import counts, also those inside functions: an import moved into a function to
dodge a cycle is still a cycle. The rules:
- no import cycle between modules;
- no Qt in core, formats, services, commands or the command line;
- core imports neither formats, services, commands nor gui;
- formats import, of the core, only errors, scale, frames (the column contracts), the one
  bounded reader of files (base/inputs) and the pyramid package (a pyramid file's items
  are pairs derived by its rules).
A fresh interpreter also imports every Qt-free module and checks that no Qt was loaded.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")
QT_FREE = ("core", "formats", "services", "commands", "cli", "__main__")
FORMATS_MAY_USE = ("simrate.core.base.errors", "simrate.core.base.scale", "simrate.core.base.frames", "simrate.core.base.names",
                   "simrate.core.data.values", "simrate.core.base.inputs", "simrate.core.base.durable",
                   "simrate.core.pyramid.model", "simrate.core.pyramid.pairs", "simrate.core.pyramid.words")


def modules() -> dict[str, Path]:
    """{dotted name: path} of every module under app/ (packages by their __init__)."""
    found = {}
    for path in APP.rglob("*.py"):
        parts = path.relative_to(APP.parent).with_suffix("").parts
        parts = ("simrate",) + parts[1:]  # the folder app/ is installed as the package simrate
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imported_names(name: str, path: Path) -> set[str]:
    """Every dotted name a module imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module -> app modules it imports, module -> every name it imports)."""
    mods = modules()

    def resolve(target: str) -> str | None:
        while target and target not in mods:
            target = target.rpartition(".")[0]
        return target or None

    edges, raw = defaultdict(set), {}
    for name, path in mods.items():
        raw[name] = imported_names(name, path)
        for target in raw[name]:
            module = resolve(target) if target.startswith("simrate") else None
            # a module importing its own package (its __init__) is no dependency of note
            if module and module != name and not name.startswith(module + "."):
                edges[name].add(module)
    return edges, raw


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in list(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer(name: str) -> str:
    """`core`, `formats`, `gui`, ... for simrate.<layer>...; the module name for simrate.cli."""
    return name.split(".")[1] if name.count(".") >= 1 else ""


def test_there_are_no_import_cycles():
    edges, _ = graph()
    assert len(edges) > 50  # the walk saw the project
    assert cycles(edges) == []


def test_qt_stays_in_the_gui():
    _, raw = graph()
    offenders = sorted(f"{name} imports {target}" for name, targets in raw.items()
                       for target in targets if layer(name) in QT_FREE
                       and target.split(".")[0] in QT)
    assert offenders == []


def test_core_imports_no_outer_layer():
    edges, _ = graph()
    offenders = sorted(f"{name} -> {target}" for name, targets in edges.items()
                       if layer(name) == "core" for target in targets
                       if layer(target) in ("formats", "services", "commands", "gui"))
    assert offenders == []


def test_formats_use_only_the_core_contracts():
    edges, _ = graph()
    offenders = sorted(f"{name} -> {target}" for name, targets in edges.items()
                       if layer(name) == "formats" for target in targets
                       if (layer(target) == "core" and target not in FORMATS_MAY_USE)
                       or layer(target) in ("services", "gui", "commands"))
    assert offenders == []


def test_the_checks_catch_what_they_forbid():
    """The rules above would fail on a cycle, on Qt in the core and on core -> formats."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert layer("simrate.core.project") == "core" and layer("simrate.cli") == "cli"
    assert "PySide6.QtCore" in imported_names("simrate.core.x", _write_probe(
        "def f():\n    from PySide6.QtCore import QObject\n"))


def _write_probe(text: str) -> Path:
    import tempfile

    handle = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    handle.write(text)
    handle.close()
    return Path(handle.name)


@pytest.mark.parametrize("package", ["simrate.core", "simrate.formats", "simrate.services", "simrate.commands"])
def test_qt_free_layers_load_no_qt(package):
    names = sorted(n for n in modules() if n == package or n.startswith(package + "."))
    names += ["simrate.cli"]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module(name)\n"
            f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {QT!r})))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
