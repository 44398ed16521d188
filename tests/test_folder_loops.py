"""No folder loop at any depth: a folder's own modules and any sub-folder below it.

The `no-folder-loops` contract in pyproject.toml (import-linter's acyclic_siblings) compares
sibling folders only. This walk covers the other half of the rule (docs/architecture.md):
for every folder F of the package and every folder C anywhere below it, if a module that
stands directly in F (its `__init__.py` included) imports a module under C, no module under
C may import a module directly in F, and the other way round. Every import counts, those
inside functions too. `from pkg import mod` counts as an import of `pkg.mod` alone, since the
package's `__init__` is only run, not used. A copy of the package with one import planted
shows that the walk catches a loop and names both directions.

The package's own top folder is held to the rule too: its own modules (`__init__`, the
command line, `__main__`) import the folders below, and nothing below imports them back
(where the installed copy keeps its files and which version it is lives in `install/`).
"""

from __future__ import annotations

import ast
import shutil
from collections import defaultdict
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"


def modules(app: Path) -> dict[str, Path]:
    """{dotted name: path} of every module under `app` (installed as `simrate`)."""
    found = {}
    for path in app.rglob("*.py"):
        parts = ("simrate",) + path.relative_to(app).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def targets(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package modules one module imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(resolve(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else resolve(base))
    return {t for t in found if t and t != name and t.startswith("simrate")}


def folder_of(name: str, known: dict[str, Path]) -> str:
    """The folder (dotted) a module stands directly in: a package's `__init__` is in its own."""
    return name if known[name].name == "__init__.py" else name.rpartition(".")[0]


def folder_loops(app: Path) -> list[str]:
    """Every (folder, sub-folder) pair that imports both ways, with the imports that do it."""
    known = modules(app)
    edges = {name: targets(name, path, known) for name, path in known.items()}
    folders = {folder_of(name, known) for name in known}
    down, up = defaultdict(set), defaultdict(set)
    for source, found in edges.items():
        home = folder_of(source, known)
        for target in found:
            there = folder_of(target, known)
            for parent in folders:
                for child in folders:
                    if not child.startswith(parent + "."):
                        continue
                    inside = (there + ".").startswith(child + ".")
                    if home == parent and inside:
                        down[parent, child].add(f"{source} -> {target}")
                    if (home + ".").startswith(child + ".") and there == parent:
                        up[parent, child].add(f"{source} -> {target}")
    return [f"{parent} <-> {child}: down {sorted(down[parent, child])}; "
            f"up {sorted(up[parent, child])}"
            for parent, child in sorted(set(down) & set(up))]


def test_no_folder_imports_a_folder_below_it_that_imports_it_back():
    assert len(modules(APP)) > 100  # the walk saw the package
    assert folder_loops(APP) == []


def test_the_walk_catches_a_parent_and_its_child_importing_each_other(tmp_path):
    copy = tmp_path / "simrate"
    shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / "core" / "edits" / "writes.py"
    target.write_text(target.read_text() + "\n\ndef planted():\n"
                      "    from simrate.core import project  # noqa\n    return project\n")
    loops = folder_loops(copy)
    planted = [line for line in loops if line.startswith("simrate.core <-> simrate.core.edits:")]
    assert len(planted) == 1, loops
    assert "simrate.core.edits.writes -> simrate.core.project" in planted[0]
    assert "simrate.core.project -> simrate.core.edits." in planted[0]
