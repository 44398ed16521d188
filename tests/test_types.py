"""The type checker on the core, the formats, the web page and the hub adapter.

`mypy` runs with the project's own settings ([tool.mypy] in pyproject.toml: the packages it
checks, untyped functions' bodies checked too, no implicit Optional, no stale
`# type: ignore`) and must find no error at all. A second run, on a copy of the package with
one wrong line planted in an unannotated function, shows that those settings do catch an
error (so a clean run means something). The runs share one cache in a temporary folder
(the libraries' stubs are read once), never the checkout's.
"""

from __future__ import annotations

import importlib.util
import os
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
                          timeout=600)


def test_the_checked_packages_have_no_type_error(cache):
    result = mypy(cache)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def test_the_settings_catch_an_error_in_an_unannotated_function(tmp_path, cache):
    copy = tmp_path / "path" / "simrate"
    shutil.copytree(ROOT / "app", copy, ignore=shutil.ignore_patterns("__pycache__"))
    errors = copy / "core" / "base" / "errors.py"
    errors.write_text(errors.read_text() + "\n\ndef planted():\n    return len(3)\n")
    result = mypy(cache, "-p", "simrate.core.base", mypypath=copy.parent)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "core/base/errors.py" in result.stdout
    assert 'incompatible type "int"; expected "Sized"  [arg-type]' in result.stdout
