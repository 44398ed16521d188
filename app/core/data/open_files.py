"""The project files this process has open, so that nothing but SQLite ever opens one.

Closing any descriptor of a database file drops every POSIX lock this process holds on it,
and another process may then take itself for the file's last user and delete the WAL,
with every change not yet folded into the file. So each connection registers the file it
holds (by device and inode), and readers of input files refuse one that is held here.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from simrate.core.base.durable import sync_folder
from simrate.core.base.errors import SimrateError
from simrate.core.base.names import NAME_MAX, fit_name
from simrate.core.base.write_errors import write_error

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


# ------------------------------------------------ a new project file, whole or nothing
# A new project file is there whole or not at all.
#
# The file is built under a hidden temporary name beside the target (`.NAME.<pid>.new`): the
# schema, the raters' rules and the meta rows in one transaction, the WAL folded into the file
# (checkpoint) and the connection closed. Only then does the file get its name, by a hard
# link, which never replaces a file someone made meanwhile; the temporary name is removed
# whatever happens. A failure half-way (a full disk, a title SQLite cannot take, an
# interrupt) leaves nothing under the target's name: no 4 KB file that later commands call
# damaged, no "already exists" on the second try.
#
# No descriptor of the file is ever opened or closed here but by SQLite: the temporary's one
# connection is closed before the link, and the file is opened again under its name by a
# new connection. Renaming and linking do not open the file.


#: Errors of a file system that keeps no hard links (some network and FAT mounts).
_NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV}


def _check_target(path: Path) -> None:
    if path.exists() or path.is_symlink():  # a dangling or looping link too: never removed
        raise SimrateError("already exists; choose another name or open it", path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SimrateError(f"folder {str(folder)!r} does not exist", path)
    if not os.access(folder, os.W_OK):
        raise SimrateError(f"cannot write in folder {str(folder)!r} (read-only?)", path)


def _give_name(temp: Path, path: Path) -> None:
    """`temp` under the name `path`, which must still be free."""
    try:
        os.link(temp, path)
    except FileExistsError:
        raise SimrateError("already exists; choose another name or open it", path) from None
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        if path.exists() or path.is_symlink():
            raise SimrateError("already exists; choose another name or open it",
                               path) from None
        os.replace(temp, path)
    sync_folder(path.parent if str(path.parent) else Path("."))


def create_whole(path: Path, connect: Callable[[Path], sqlite3.Connection],
                 build: Callable[[sqlite3.Connection], None]) -> sqlite3.Connection:
    """Create the project file `path` whole (or nothing) and return a connection to it:
    `connect` opens a file (store.connect), `build` writes a new one's content."""
    _check_target(path)
    temp = path.with_name(fit_name(path.name, f".{os.getpid()}.new", NAME_MAX - 8))
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(temp)
        build(conn)
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:
            raise sqlite3.OperationalError("database is locked")
        conn.close()
        conn = None
        _give_name(temp, path)
    except sqlite3.Error as exc:
        raise write_error(exc, path, "cannot create the project") from None
    finally:
        if conn is not None:
            conn.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                Path(f"{temp}{suffix}").unlink(missing_ok=True)
    return connect(path)
