"""A connection dropped unclosed never hangs its process.

A connection refers to itself through its statement cache, so only Python's cyclic
collector frees one that nobody closed, and the collector runs at whatever allocation
crosses its threshold, in whatever thread: inside a locked section too. The finalizer of a
connection used to take the lock of the registry of open files (open_files.py); the
collector running inside `held_by_this_process`, with that lock held by the same thread,
then waited for ever. A window whose background job read an input file could hang so.
"""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from simrate.core.data.open_files import held_by_this_process
from simrate.core.data.store import connect
from tests.support.helpers import ROOT, new_project


def project_file(folder):
    """A small project on disk, closed."""
    folder.mkdir(exist_ok=True)
    with new_project(folder / "p.simrate") as project:
        return project.path

#: The child: a connection dropped unclosed, then a collection with the registry's lock
#: held, as the collector may run it at the allocation inside `held_by_this_process`.
COLLECTED_UNDER_THE_LOCK = """
import gc, sys
from pathlib import Path
from simrate.core.data import open_files
from simrate.core.data.store import connect
path = Path(sys.argv[1])
conn = connect(path)
del conn
assert open_files.held_by_this_process(path), "freed before the collector ran"
with open_files._HELD_LOCK:
    gc.collect()
print(open_files.held_by_this_process(path))
"""


def test_a_connection_collected_while_this_thread_holds_the_registry_lock(tmp_path):
    path = project_file(tmp_path)
    child = subprocess.run([sys.executable, "-c", COLLECTED_UNDER_THE_LOCK, str(path)],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "False"  # the file is no longer counted as held


def test_a_dropped_connection_leaves_the_file_held_only_by_the_open_one(tmp_path):
    path = project_file(tmp_path)
    kept, dropped = connect(path), connect(path)
    try:
        del dropped
        gc.collect()
        assert held_by_this_process(path)  # `kept` still has it open
        kept.close()
        assert not held_by_this_process(path)
    finally:
        kept.close()


def refused_files(folder):
    """Files `Project.open` refuses after SQLite has opened them: each with its name."""
    import sqlite3

    garbage = folder / "garbage.simrate"  # SQLite's magic, then nothing SQLite can read
    garbage.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    other = folder / "other.simrate"  # an SQLite file of another program
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text)")
    conn.close()
    newer = project_file(folder / "newer")  # made by a newer simrate
    damaged = project_file(folder / "damaged")  # a meta value nothing can rely on
    for path, value in ((newer, "99"), (damaged, "five")):
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
        conn.close()
    return [garbage, other, newer, damaged]


def test_a_refused_file_is_left_with_no_connection_open(tmp_path):
    from simrate.core.base.errors import SimrateError
    from simrate.core.project import Project

    for path in refused_files(tmp_path):
        with pytest.raises(SimrateError):
            Project.open(path)
        # closed at once, not left for the collector (which may run while the registry's
        # lock is held, see above)
        assert not held_by_this_process(path), path.name
