"""The shape of app/ stays small enough to read (README, Architecture): no folder of the
package, at any depth, with more than 15 modules, no module over 400 lines, no function over 40 lines, no exemptions (each command's options are declared by its own
module in app/commands, so even the command line's parser is no long table).

How folders may import each other is held by the import contracts of pyproject.toml
(tests/test_floors.py). Split along what the code does (a sub-package, a module of its own, a helper function);
the test names each offender with its size, so the fix is plain.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"
MAX_MODULES = 15
MAX_LINES = 400
MAX_FUNCTION_LINES = 40


def python_files() -> list[Path]:
    return sorted(p for p in APP.rglob("*.py") if "__pycache__" not in p.parts)


def crowded_folders(app: Path) -> dict[str, int]:
    """{folder: its count} of every folder under `app` (itself included, at any depth) that
    holds more than MAX_MODULES modules directly, `__init__.py` counted."""
    crowded = {}
    for folder in [app, *app.rglob("*")]:
        if folder.is_dir() and folder.name != "__pycache__":
            count = len(list(folder.glob("*.py")))
            if count > MAX_MODULES:
                crowded[str(folder.relative_to(app.parent))] = count
    return crowded


def test_no_folder_of_the_package_holds_more_than_15_modules():
    crowded = crowded_folders(APP)
    assert not crowded, f"folders over {MAX_MODULES} modules: {crowded}"


def test_a_crowded_folder_is_named_at_any_depth(tmp_path):
    # the walk reaches every folder: the top one and one three levels down, each named
    app = tmp_path / "app"
    deep = app / "one" / "two" / "three"
    deep.mkdir(parents=True)
    for folder, count in ((app, MAX_MODULES + 1), (app / "one", MAX_MODULES),
                          (deep, MAX_MODULES + 2)):
        for number in range(count):
            (folder / f"m{number}.py").write_text('"""A module."""\n')
    assert crowded_folders(app) == {"app": MAX_MODULES + 1,
                                    "app/one/two/three": MAX_MODULES + 2}


def test_no_module_is_over_400_lines():
    long = {}
    for path in python_files():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            long[str(path.relative_to(APP.parent))] = lines
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_function_is_over_40_lines():
    long = {}
    for path in python_files():
        name = str(path.relative_to(APP.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{name}:{node.lineno} {node.name}"] = lines
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_limits_are_checked_on_the_real_tree():
    # the walk must see the app, or the three tests above would pass on nothing
    files = python_files()
    assert len(files) > 100
    assert any(p.name == "project.py" for p in files)


def test_no_module_imports_a_private_name_of_another():
    # a name with a leading underscore is its module's own; what others use is made public
    borrowed = []
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simrate"):
                borrowed += [f"{path.relative_to(APP.parent)}: {node.module}.{alias.name}"
                             for alias in node.names
                             if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not borrowed, "\n".join(borrowed)
