"""Helpers shared by the tests: small projects, a full disk, the command line."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from simrate.core.base.frames import item_frame
from simrate.core.project import Project

ROOT = Path(__file__).resolve().parents[2]


def make_items(n: int, prefix: str = "x", start: int = 1) -> pd.DataFrame:
    """An item table of n pairs with ids prefix:start..start+n-1."""
    numbers = range(start, start + n)
    return item_frame({
        "item_id": [f"{prefix}:{i}" for i in numbers],
        "left": [f"left text {i}" for i in numbers],
        "right": [f"right text {i}" for i in numbers],
        "dataset": ["d"] * n, "genre": ["g"] * n,
        "reference": [float("nan")] * n, "meta": [None] * n,
        "line": list(range(1, n + 1)),
    })


def new_project(path: Path, n_items: int = 3) -> Project:
    """A clss project with n items x:1..x:n."""
    project = Project.create(path)
    if n_items:
        project.import_items(make_items(n_items))
    return project


def fill_disk(conn: sqlite3.Connection) -> None:
    """Make the database as full as a full disk would: no page may be added from now on."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free_disk(conn: sqlite3.Connection) -> None:
    """Space comes back."""
    conn.execute("PRAGMA max_page_count = 1073741823")


def run_cli(*args: object, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m simrate ARGS` in a fresh interpreter (so exit-time tracebacks are seen too)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("SIMRATE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=120)


def small_disk_command() -> list[str]:
    """A prefix that runs a shell command with a private, size-limited tmpfs it may mount.

    Root mounts directly; others use a user namespace. Where neither works the test is
    skipped, and fails when CI is set (a CI machine must be able to run it).
    """
    if os.geteuid() == 0:
        prefix = ["unshare", "-m"]
    else:
        prefix = ["unshare", "-rm"]
    if shutil.which("unshare") is None or subprocess.run(
            [*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", "/mnt"],
            capture_output=True).returncode != 0:
        message = "cannot mount a small tmpfs here (needs unshare and user namespaces)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return prefix


def run_on_small_disk(folder: Path, size_kb: int, argv: list[str]
                      ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `argv` with `folder` on a private tmpfs of `size_kb` KiB; returns the result and
    the names the folder held afterwards (the tmpfs goes away with the command)."""
    prefix = small_disk_command()
    quoted = " ".join(_shell_quote(str(a)) for a in argv)
    place = _shell_quote(str(folder))
    script = (f"mount -t tmpfs -o size={size_kb}k tmpfs {place} || exit 99; "
              f"{quoted}; status=$?; echo; echo LISTING; ls -A {place}; exit $status")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    proc = subprocess.run([*prefix, "sh", "-c", script], env=env, capture_output=True,
                          text=True, timeout=180)
    out, _, listing = proc.stdout.rpartition("\nLISTING\n")
    proc.stdout = out
    return proc, listing.split()


def run_cli_on_small_disk(folder: Path, size_kb: int, *args: object
                          ) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`simrate ARGS` in a fresh interpreter with `folder` on a tmpfs of `size_kb` KiB."""
    return run_on_small_disk(folder, size_kb, [sys.executable, "-m", "simrate", *map(str, args)])


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def one_line_error(stderr: str, *needles: str) -> str:
    """Assert `stderr` is one `simrate: error:` line with no traceback or class name."""
    lines = stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("simrate: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], stderr  # notes may come before it
    line = errors[0]
    assert "Traceback" not in stderr
    for word in ("Error:", "Exception", "OperationalError", "ValueError", "LookupError",
                 "OverflowError", "KeyError", "TypeError"):
        assert word not in line.removeprefix("simrate: error: "), line
    for needle in needles:
        assert needle in line, line
    return line


def run_with_read_only_folder(folder: Path, code: str) -> subprocess.CompletedProcess:
    """Run Python `code` in a fresh interpreter that sees `folder` mounted read-only.

    Root may write anywhere a permission bit forbids, so read-only is made real the way a
    read-only share is: a read-only bind mount, in a private mount namespace of its own. As
    a plain user the permission bits already refuse writes, and the code runs as it is.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run([sys.executable, "-c", code], capture_output=True,
                                  text=True, env=env, timeout=120)
        finally:
            folder.chmod(0o755)
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && '
              'exec "$2" -c "$3"')
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to mount a folder read-only")
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder),
                           sys.executable, code], capture_output=True, text=True, env=env,
                          timeout=120)


def at_one_moment(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run each call in a thread of its own, all released at the same moment (requests
    that must reach a server together); their results, in order."""
    results: list[Any] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(k: int) -> None:
        barrier.wait()
        results[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
