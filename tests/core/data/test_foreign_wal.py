"""Ordinary commands refuse a -wal beside the project that they cannot vouch for (issue 43),
with the line `simrate check` gives, before SQLite could apply it; and never refuse the WAL
of a writer that has the project open in another process, even while it restarts its WAL.

Real files and real processes: the project is built with the app's own API, a foreign -wal
comes from a copy of it that a killed writer left, the live writer is a second Python
process holding its connection open."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.data.open_files import wal_stranger
from simrate.core.project import Project
from tests.support.helpers import new_project, one_line_error, run_cli

#: A writer that changes every item's text and dies before any checkpoint: its -wal (and
#: -shm) stay beside the file.
_KILLED_WRITER = ("import sqlite3, sys, os; c = sqlite3.connect(sys.argv[1], "
                  "isolation_level=None); c.execute('PRAGMA wal_autocheckpoint = 0'); "
                  "c.execute(\"UPDATE items SET left = 'changed'\"); os._exit(0)")
#: A writer that keeps the file open: it writes, checkpoints (so that SQLite restarts the
#: WAL with new salts at the next write), says "ready" after its first commit, and goes
#: on until its standard input closes.
_LIVE_WRITER = """
import sqlite3, sys, threading
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute('PRAGMA wal_autocheckpoint = 0')
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
n = 0
while not stop.is_set():
    n += 1
    c.execute("UPDATE items SET left = ? WHERE id = 'x:1'", (f'live {n}',))
    if n == 1:
        print('ready', flush=True)
    if n % 3 == 0:
        c.execute('PRAGMA wal_checkpoint(PASSIVE)')
"""


def _killed_writer(path: Path) -> None:
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0 and Path(f"{path}-shm").is_file()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project_path(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    with new_project(path, n_items=5) as project:
        frame = pd.DataFrame({"item_id": ["x:1", "x:2"], "annotator": ["ann", "ann"],
                              "score": [1.0, 2.0], "line": [2, 3], "note": ["", ""]})
        project.import_ratings(frame, "r.csv")
    return path


def _copy_with_killed_writer(path: Path) -> Path:
    folder = path.parent / "copy"
    folder.mkdir()
    copy = folder / path.name
    shutil.copyfile(path, copy)
    _killed_writer(copy)
    return copy


def _refused(path: Path, wal: Path, needle: str) -> None:
    """Every ordinary way in refuses `path` in one line naming `wal`; nothing changes."""
    before = (_digest(path), _digest(wal))
    for args in (("info", path), ("export", path, path.parent / "out.csv")):
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        line = one_line_error(done.stderr, f"-wal file {wal}", "does not belong to it", needle)
        assert "check again" in line
    with pytest.raises(SimrateError, match="does not belong to it"):
        Project.open(path)
    assert (_digest(path), _digest(wal)) == before
    assert not (path.parent / "out.csv").exists()


def test_a_wal_copied_from_another_copy_of_the_project_is_refused(project_path):
    copy = _copy_with_killed_writer(project_path)
    wal = Path(f"{project_path}-wal")
    shutil.copyfile(f"{copy}-wal", wal)
    _refused(project_path, wal, "no -shm index beside it")


def test_a_wal_put_in_place_of_the_files_own_is_refused(project_path):
    copy = _copy_with_killed_writer(project_path)
    _killed_writer(project_path)  # the project's own -wal and -shm
    wal = Path(f"{project_path}-wal")
    shutil.copyfile(f"{copy}-wal", wal)
    _refused(project_path, wal, "salts differ")


def test_the_files_own_wal_left_by_a_killed_writer_is_applied(project_path):
    _killed_writer(project_path)
    with Project.open(project_path) as project:
        assert project.items()["left"].eq("changed").all()


def _start_live_writer(path: Path) -> subprocess.Popen:
    writer = subprocess.Popen([sys.executable, "-c", _LIVE_WRITER, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
    return writer


def _stop(writer: subprocess.Popen) -> None:
    assert writer.stdin is not None
    writer.stdin.close()
    assert writer.wait(timeout=30) == 0


def test_a_live_writer_in_another_process_is_never_refused(project_path):
    writer = _start_live_writer(project_path)
    try:
        for n in range(3):  # a command while the writer writes and restarts its WAL
            done = run_cli("export", project_path, project_path.parent / f"out{n}.csv",
                           "--allow-unresolved")
            assert done.returncode == 0, done.stderr
        deadline, opened = time.monotonic() + 5, 0
        while time.monotonic() < deadline:  # the vetting itself, many times over
            assert wal_stranger(project_path) is None
            with Project.open(project_path) as project:
                assert project.items()["left"].iloc[0].startswith("live ")
            opened += 1
        assert opened > 5
    finally:
        _stop(writer)
    with Project.open(project_path) as project:  # the writer's last commit is there
        assert project.items()["left"].iloc[0].startswith("live ")


def test_a_writer_in_exclusive_mode_is_not_taken_for_a_stranger(project_path):
    """Such a writer keeps its WAL index in its own memory: a -wal and no -shm, locked."""
    script = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
              "c.execute('PRAGMA locking_mode = EXCLUSIVE'); c.execute('PRAGMA "
              "wal_autocheckpoint = 0'); c.execute(\"UPDATE items SET left = 'x'\"); "
              "print('ready', flush=True); sys.stdin.read()")
    Path(f"{project_path}-shm").unlink(missing_ok=True)
    writer = subprocess.Popen([sys.executable, "-c", script, str(project_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        assert Path(f"{project_path}-wal").stat().st_size > 0
        assert not Path(f"{project_path}-shm").exists()
        assert wal_stranger(project_path) is None
    finally:
        _stop(writer)
