"""The type checker on the whole package: every folder, the window and the services included.

`mypy` runs with the project's own settings ([tool.mypy] in pyproject.toml: the package it
checks, which is `simrate` as a whole; untyped functions' bodies checked too; no implicit
Optional; no stale `# type: ignore`) and must find no error at all. The window is checked
against the stubs PySide6 ships, so a Qt getter that may return None has to be narrowed.

Two more runs, on a copy of the package with one wrong line planted in an unannotated
function, show that those settings do catch an error (so a clean run means something): a
wrong argument in the core, and an unchecked Optional from Qt in the window. The runs share
one cache in a temporary folder (the libraries' stubs are read once), never the checkout's.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(cache: Path, *args: str, mypypath: Path | None = None) -> subprocess.CompletedProcess:
    """mypy with the project's pyproject.toml, run from the top of the checkout."""
    assert importlib.util.find_spec("mypy"), "mypy is missing: install the test extra (README)"
    env = dict(os.environ, MYPYPATH=str(mypypath)) if mypypath else None
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(cache), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=900)


def mypy_setting(name: str) -> list[str]:
    """A list setting of [tool.mypy] (read as text: tomllib is not in Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("\n[tool.mypy]\n", 1)[1].split("\n[", 1)[0]
    found = re.search(rf"^{name} = (\[.*?\])", section, re.MULTILINE | re.DOTALL)
    return ast.literal_eval(found.group(1)) if found else []


def test_the_settings_check_every_module_of_every_folder():
    packages, modules = mypy_setting("packages"), mypy_setting("modules")
    app = ROOT / "app"
    names = {".".join(("simrate", *path.relative_to(app).with_suffix("").parts))
             .removesuffix(".__init__") for path in app.rglob("*.py")}
    unchecked = sorted(name for name in names if name not in modules and not any(
        name == package or name.startswith(package + ".") for package in packages))
    assert packages, "[tool.mypy] names no package"
    assert not unchecked, f"modules mypy does not check: {unchecked[:20]}"


def test_the_whole_package_has_no_type_error(cache):
    result = mypy(cache)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert result.stdout.startswith("Success: no issues found"), result.stdout


PLANTED = {
    "core": ("core/base/errors.py", "def planted():\n    return len(3)\n",
             'incompatible type "int"; expected "Sized"  [arg-type]'),
    "window": ("gui/kit/palette.py",
               "def planted():\n    from PySide6.QtWidgets import QWidget\n\n"
               "    QWidget().layout().activate()\n",
               'Item "None" of "QLayout | None" has no attribute "activate"  [union-attr]'),
}


@pytest.mark.parametrize("where", sorted(PLANTED))
def test_the_settings_catch_an_error_planted_in_an_unannotated_function(tmp_path, cache, where):
    module, planted, message = PLANTED[where]
    copy = tmp_path / "path" / "simrate"
    shutil.copytree(ROOT / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text() + "\n\n" + planted)
    package = "simrate." + ".".join(Path(module).parent.parts)
    result = mypy(cache, "-p", package, mypypath=copy.parent)
    assert result.returncode == 1, result.stdout + result.stderr
    assert module in result.stdout
    assert message in result.stdout
