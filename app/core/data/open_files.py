"""The project files this process has open, so that nothing but SQLite ever opens one.

Closing any descriptor of a database file drops every POSIX lock this process holds on it,
and another process may then take itself for the file's last user and delete the WAL,
with every change not yet folded into the file. So each connection registers the file it
holds (by device and inode), and readers of input files refuse one that is held here.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from simrate.core.base.errors import SimrateError

#: The database files this process has open, by (device, inode), with how many connections.
#: Only SQLite may open or close such a file in this process (see `refuse_if_open`).
_HELD: dict[tuple[int, int], int] = {}
_HELD_LOCK = threading.Lock()


class HeldConnection(sqlite3.Connection):
    """A connection that keeps `_HELD` up to date, so readers can tell a file is ours."""

    _held_key: tuple[int, int] | None = None

    def hold(self, path: Path) -> None:
        try:
            info = os.stat(path)
        except OSError:
            return
        self._held_key = (info.st_dev, info.st_ino)
        with _HELD_LOCK:
            _HELD[self._held_key] = _HELD.get(self._held_key, 0) + 1

    def close(self) -> None:
        super().close()
        self._release()

    def __del__(self) -> None:  # a connection dropped unclosed is closed by SQLite's own code
        self._release()

    def _release(self) -> None:
        key, self._held_key = self._held_key, None
        if key is not None:
            with _HELD_LOCK:
                left = _HELD.get(key, 1) - 1
                if left > 0:
                    _HELD[key] = left
                else:
                    _HELD.pop(key, None)


def held_by_this_process(path: str | Path) -> bool:
    """True while a connection of this process has the database file `path` open."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    with _HELD_LOCK:
        return (info.st_dev, info.st_ino) in _HELD


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refuse_if_open(path: str | Path, project: str | Path | None = None) -> None:
    """SimrateError when `path` is a database this process has open (a project read as input).

    Reading such a file with anything but its SQLite connection would close a descriptor of
    it, and closing any descriptor drops all of this process's POSIX locks on the file:
    another process could then take itself for the last user and delete the WAL, and with it
    every change not yet folded into the file. `project`: the project the input is for,
    refused as its own input even before this process opens it.
    """
    if held_by_this_process(path) or (project is not None and _same_file(path, project)):
        raise SimrateError("is the project itself (or another project open here); "
                           "it cannot be read as an input file", path)
