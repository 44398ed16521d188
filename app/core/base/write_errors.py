"""Failed writes in plain words: a full disk, a read-only file, a lock, a failing disk.

Shared by the store and the file migration (which the store imports), so it depends on
nothing but the errors module.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from simrate.core.base.errors import SimrateError


def _nearly_no_space(path: Path) -> bool:
    """True when the folder of `path` has almost no room left: SQLite reports some writes
    that meet a full disk (of the WAL or its index) as an I/O error, not as SQLITE_FULL."""
    try:
        room = os.statvfs(Path(path).parent)
    except (OSError, AttributeError):
        return False
    return room.f_bavail * room.f_frsize < 1024 * 1024


def disk_full(exc: BaseException, path: Path) -> bool:
    """True when `exc` (SQLite's, or the system's) comes of a full disk where `path` lies.

    Opening a project in WAL mode writes too (its -wal and -shm files beside it): on a
    full disk SQLite says "disk I/O error" there, which is no damage of the file."""
    text = str(exc).lower()
    if "full" in text or getattr(exc, "errno", None) == 28:  # ENOSPC
        return True
    return ("i/o error" in text or "unable to open" in text) and _nearly_no_space(path)


def write_error(exc: sqlite3.Error, path: Path, what: str = "cannot write to the project") -> SimrateError:
    """A SimrateError for a failed write, saying plainly when the disk is full."""
    text = str(exc)
    if "full" in text.lower() or ("i/o error" in text.lower() and _nearly_no_space(path)):
        return SimrateError(f"{what}: the disk is full; nothing of this change was saved", path)
    if "readonly" in text.lower() or "read-only" in text.lower():
        return SimrateError(f"{what}: the file or its folder is read-only", path)
    if "locked" in text.lower() or "busy" in text.lower():
        return SimrateError(f"{what}: another program holds the file locked; try again", path)
    if "i/o error" in text.lower():
        return SimrateError(f"{what}: the disk reported a read or write failure; nothing of "
                            "this change was saved (check the disk or the network share)", path)
    if "unable to open" in text.lower():
        return SimrateError(f"{what}: the file or its folder can no longer be opened (moved, "
                            "deleted or unmounted?)", path)
    return SimrateError(f"{what}: {text}", path)


def os_error(exc: OSError) -> SimrateError:
    """A SimrateError for a path the system refused (a name too long, a symlink loop, a
    read-only folder, a device), naming the path: the last line of defence of the command
    line for an OSError that no reader or writer turned into words of its own."""
    path = exc.filename if isinstance(exc.filename, (str, bytes, os.PathLike)) else None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    reason = exc.strerror or str(exc) or "the system refused it"
    if exc.filename2 is not None:
        reason += f" (with {os.fsdecode(exc.filename2)})"
    return SimrateError(f"cannot use this path: {reason}", os.fspath(path) if path else None)


#: The longest absolute path SQLite opens a database at: its unix VFS holds full path names
#: in 512 bytes, and the `-journal` name beside the file must fit too.
SQLITE_PATH_MAX = 512 - len("-journal")


def refuse_long_path(path: Path) -> None:
    """SimrateError when SQLite cannot open a file at `path` for its absolute length alone
    (a healthy project there would otherwise read as "unable to open", or as damaged)."""
    size = len(os.fsencode(os.path.abspath(path)))
    if size > SQLITE_PATH_MAX:
        raise SimrateError(f"its absolute path is {size:,} bytes long, and SQLite opens "
                           f"project files only up to {SQLITE_PATH_MAX} bytes: move the "
                           "project (or rename its folders) to a shorter path", path)
