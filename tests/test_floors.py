"""The floors of app/ (docs/architecture.md), held by the import contracts in pyproject.toml.

`lint-imports` (import-linter) checks them on the real package: the surfaces above the
services and the hub adapter, those above the formats, the formats above the core; the core's
own floors from the base up to the `Project` facade and team work; no Qt, PostgreSQL client
or web server in the core; the window's floors (shell, the four views side by side,
shared widgets, base, kit); and no two folders at any depth that import each other.
A second run on a copy of the package with one upward import added shows that the contracts
do catch a broken floor (so a passing run means something).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"


def lint(pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """lint-imports on the project's pyproject.toml; the package from `pythonpath` if given."""
    assert LINT.exists(), "import-linter is missing: install the test extra (README)"
    env = dict(os.environ, PYTHONPATH=str(pythonpath)) if pythonpath else None
    return subprocess.run([str(LINT), str(ROOT / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, cwd=pythonpath or ROOT, env=env,
                          timeout=300)


def test_every_import_contract_is_kept():
    result = lint()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_the_contracts_catch_an_upward_import_and_a_folder_loop(tmp_path):
    copy = tmp_path / "simrate"
    shutil.copytree(ROOT / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    errors = copy / "core" / "base" / "errors.py"
    errors.write_text(errors.read_text() + "\nimport psycopg  # noqa\n")
    limits = copy / "formats" / "intake" / "limits.py"
    limits.write_text(limits.read_text() + "\nfrom simrate.services import export\n")
    textio = copy / "formats" / "intake" / "textio.py"
    textio.write_text(textio.read_text() + "\nfrom simrate.formats.readers import pairs  # noqa\n")
    result = lint(tmp_path)
    assert result.returncode != 0
    assert "simrate.core is not allowed to import psycopg" in result.stdout
    assert "simrate.formats is not allowed to import simrate.services" in result.stdout
    assert "simrate.formats.intake is not allowed to import simrate.formats.readers" in result.stdout


def test_the_window_floors_catch_a_view_importing_another_and_the_base_the_shell(tmp_path):
    copy = tmp_path / "simrate"
    shutil.copytree(ROOT / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    gui = copy / "gui"
    panel = gui / "rating" / "rating_panel.py"
    panel.write_text(panel.read_text() + "\nfrom simrate.gui.organizer import verdict_view  # noqa\n")
    jobs = gui / "base" / "jobs.py"
    jobs.write_text(jobs.read_text() + "\nfrom simrate.gui.shell import menus  # noqa\n")
    result = lint(tmp_path)
    assert result.returncode != 0
    assert "simrate.gui.rating is not allowed to import simrate.gui.organizer" in result.stdout
    assert "simrate.gui.base is not allowed to import simrate.gui.shell" in result.stdout
