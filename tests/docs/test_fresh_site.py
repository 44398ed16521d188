"""The documentation site builds in a fresh clone with the README's two commands and nothing
else: a new virtual environment (no system site packages, no PYTHONPATH, a home of its own),
`pip install -e ".[docs]"`, then the `mkdocs` script as an activated shell finds it.

"Fresh clone" here is the checkout's files git knows or would take (tracked, and new files
not ignored: a commit under way), as they stand in the work tree, copied with their symbolic
links kept (mkdocs.yml finds the package through tools/mypy_path/simrate, a
link, as a clone has it). It installs from the package index pip is configured with, so it
carries the packaging marker (slow: about a minute and a half here, most of it pip).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.tools import ROOT, clean_env, python_can_make_venvs, require, run

pytestmark = pytest.mark.packaging


def clone_tree(target: Path) -> Path:
    """The checkout's files, tracked and new but not ignored, copied to target, links kept."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True)
    require(listed.returncode == 0, "the checkout is not a git work tree")
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if not name or not (source.exists() or source.is_symlink()):
            continue  # deleted in the work tree, not yet committed
        copy = target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy, follow_symlinks=False)
    return target


def test_the_site_builds_in_a_fresh_clone_as_the_readme_says(tmp_path):
    require(python_can_make_venvs(), f"{sys.executable} cannot make virtual environments")
    clone = clone_tree(tmp_path / "clone")
    assert (clone / "tools" / "mypy_path" / "simrate").is_symlink()
    home = tmp_path / "home"
    home.mkdir()
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    env = clean_env(home, path=f"{venv / 'bin'}:/usr/bin:/bin")  # `. .venv/bin/activate`
    env.update(VIRTUAL_ENV=str(venv), NO_MKDOCS_2_WARNING="1")
    run(["pip", "install", "--quiet", "-e", ".[docs]"], cwd=clone, env=env, timeout=900)
    done = run(["mkdocs", "build", "--strict"], cwd=clone, env=env, timeout=600)
    assert "could not be found" not in done.stderr
    api = (clone / "build" / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "simrate.core.project.Project" in api
