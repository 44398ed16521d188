"""Helpers for the packaging tests: run programs outside the checkout, in a clean environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT_SAMPLES = ROOT / "sample_data"


def require(ready: bool, why: str) -> None:
    """Skip when a tool the test needs is missing here, but fail under CI, which must run it."""
    if ready:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run this packaging test, but {why}")
    pytest.skip(why)


def project_version() -> str:
    """The version pyproject.toml declares (read as text: tomllib is not in Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version = "([^"]+)"', text, re.MULTILINE).group(1)


def sample_files() -> list[str]:
    """The names of the sample files in the checkout (the data package's __init__ aside)."""
    return sorted(p.name for p in CHECKOUT_SAMPLES.iterdir()
                  if p.is_file() and p.suffix != ".py")


def clean_env(home: Path, path: str = "/usr/bin:/bin") -> dict[str, str]:
    """An environment with no virtual environment, no PYTHONPATH and a home of its own."""
    return {
        "HOME": str(home),
        "PATH": path,
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_DATA_HOME": str(home / "share"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "TMPDIR": str(home),
    }


def run(args: list[object], cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 300, expect: int = 0) -> subprocess.CompletedProcess:
    """Run a program; fail the test, showing its output, unless it exits with `expect`."""
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, timeout=timeout,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != expect:
        pytest.fail(f"{' '.join(map(str, args))} exited {result.returncode}, expected {expect}\n"
                    f"--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    return result


def python_can_make_venvs() -> bool:
    """Whether this Python has a working venv module with pip (Debian splits it off)."""
    probe = subprocess.run([sys.executable, "-c", "import venv, ensurepip"],
                           capture_output=True)
    return probe.returncode == 0


def clean_copy(target: Path) -> Path:
    """A copy of the checkout without what builds and installs leave in it.

    A stale simrate.egg-info would feed its old file list to setuptools and hide a file
    missing from the package data; a clean checkout has none.
    """
    leftovers = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                       "__pycache__", ".pytest_cache", ".hypothesis",
                                       ".ruff_cache")
    shutil.copytree(ROOT, target, ignore=leftovers)
    return target
