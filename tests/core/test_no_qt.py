"""The core and the formats never import Qt (DESIGN.md), checked in a fresh interpreter."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import app.core
import app.formats


def test_core_and_formats_import_no_qt():
    # walk_packages: the core's subpackages (app.core.team) are checked too
    modules = [m.name for m in pkgutil.walk_packages(app.core.__path__, "app.core.")]
    modules += [f"app.formats.{m.name}" for m in pkgutil.iter_modules(app.formats.__path__)]
    modules += ["app.cli"] + [f"app.commands.{m.name}" for m in
                              pkgutil.iter_modules(__import__("app.commands").commands.__path__)]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"Qt imported by the core: {result.stdout}"
    assert len(modules) > 5
