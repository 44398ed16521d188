"""The project files this process has open, so that nothing but SQLite ever opens one.

Closing any descriptor of a database file drops every POSIX lock this process holds on it,
and another process may then take itself for the file's last user and delete the WAL,
with every change not yet folded into the file. So each connection registers the file it
holds (by device and inode), and readers of input files refuse one that is held here.
A -wal beside a project that belongs to another file is refused before SQLite opens the
project (`wal_stranger`, `opening`): only read while this process holds no connection.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from simrate.core.base.durable import sync_folder
from simrate.core.base.errors import SimrateError
from simrate.core.base.names import NAME_MAX, fit_name
from simrate.core.base.write_errors import write_error

#: The database files this process has open, by (device, inode), with how many connections.
#: Only SQLite may open or close such a file in this process (see `refuse_if_open`).
_HELD: dict[tuple[int, int], int] = {}
_HELD_LOCK = threading.Lock()
#: Files of connections dropped unclosed, not yet taken off `_HELD`. A connection refers to
#: itself through its statement cache, so only the cyclic collector frees one, and it runs
#: at any allocation, in any thread: also inside a `with _HELD_LOCK` block of the very
#: thread, where taking the lock again would wait for ever. The finalizer only appends here
#: (atomic, no lock); whoever next takes the lock settles the list.
_DROPPED: collections.deque[tuple[int, int]] = collections.deque()


def _settle_dropped() -> None:
    """Take the files of connections dropped unclosed off `_HELD` (with `_HELD_LOCK`)."""
    while _DROPPED:
        try:
            key = _DROPPED.popleft()
        except IndexError:  # another thread took the last one
            return
        _forget(key)


def _forget(key: tuple[int, int]) -> None:
    """One connection fewer on the file `key` (with `_HELD_LOCK`)."""
    left = _HELD.get(key, 1) - 1
    if left > 0:
        _HELD[key] = left
    else:
        _HELD.pop(key, None)


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
            _settle_dropped()
            _HELD[self._held_key] = _HELD.get(self._held_key, 0) + 1

    def close(self) -> None:
        super().close()
        key, self._held_key = self._held_key, None
        if key is not None:
            with _HELD_LOCK:
                _settle_dropped()
                _forget(key)

    def __del__(self) -> None:  # a connection dropped unclosed is closed by SQLite's own code
        key, self._held_key = self._held_key, None
        if key is not None:
            _DROPPED.append(key)  # never the lock here: see _DROPPED


def held_by_this_process(path: str | Path) -> bool:
    """True while a connection of this process has the database file `path` open."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    with _HELD_LOCK:
        _settle_dropped()
        return (info.st_dev, info.st_ino) in _HELD


# ------------------------------------------------ a -wal file this process can vouch for
# SQLite applies any -wal beside a file whose header and frames agree with themselves:
# nothing in the database ties a WAL to it. What a WAL of the file's own leaves is its -shm
# index: SQLite keeps the two together (a program that stops leaves both), and the index's
# header carries the salts of the WAL it indexes, which change at every restart of the WAL.
# A -wal with frames and no -shm was copied or moved there; one whose salts are not the
# index's belongs to another file. The one exception is a live writer: while any other
# process has the file open, its SQLite holds a read lock on the index (the "dead man
# switch" byte), and the WAL is that process's own, never refused.
#
# The -wal and -shm are read with os.open/os.read only while this process holds no
# connection to the file (closing a descriptor would drop that connection's POSIX locks),
# and under `_OPENING`, so that no thread of this process opens the file meanwhile.

#: One opening (or vetting) of a project file at a time in this process (see `opening`).
_OPENING = threading.RLock()
#: SQLite's WAL header: magic (either byte order of the checksums), then at 16 the salts.
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_WAL_HEADER, _FRAME_HEADER, _SHM_HEADER = 32, 24, 48
#: The byte of the -shm every connection of SQLite's unix VFS keeps a read lock on.
_SHM_DEAD_MAN_SWITCH = 128


def wal_beside(path: Path) -> Path | None:
    """The file's -wal file when it holds anything, else None."""
    wal = Path(f"{path}-wal")
    try:
        return wal if wal.is_file() and wal.stat().st_size > 0 else None
    except OSError:
        return None


def _head(path: Path, size: int) -> bytes:
    """The first `size` bytes of a -wal or -shm file, b"" when it cannot be read (only
    while this process holds no connection to its database: see `wal_stranger`)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _in_use_elsewhere(file: Path) -> bool:
    """True when another process's SQLite has the file open: it holds a lock on its -shm
    (or, in exclusive mode, on the database file itself), asked with F_GETLK, which takes
    no lock. False where POSIX locks are not SQLite's."""
    import struct
    import sys

    try:
        import fcntl
    except ImportError:  # Windows: SQLite locks with LockFileEx there
        return False
    if sys.platform.startswith("linux"):
        layout, fields = "hhqqixxxx", (fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
    elif sys.platform == "darwin" or "bsd" in sys.platform:
        layout, fields = "qqihh", (0, 0, 0, fcntl.F_WRLCK, os.SEEK_SET)
    else:
        return False
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        found = struct.unpack(layout, fcntl.fcntl(fd, fcntl.F_GETLK,
                                                  struct.pack(layout, *fields)))
    except OSError:
        return False
    finally:
        os.close(fd)
    kind = found[0] if layout.startswith("h") else found[3]
    return kind != fcntl.F_UNLCK


def _salts(wal: Path) -> bytes | None:
    """The salts of the -wal's header when its first frame carries them too (a frame
    SQLite would read), else None."""
    head = _head(wal, _WAL_HEADER + _FRAME_HEADER)
    if len(head) < _WAL_HEADER + _FRAME_HEADER or \
            int.from_bytes(head[:4], "big") not in _WAL_MAGIC or head[16:24] != head[40:48]:
        return None
    return head[16:24]


def wal_stranger(path: Path) -> str | None:
    """Why the -wal file beside `path` cannot be vouched for, or None when it can, holds no
    frame SQLite would apply, or belongs to a process that has the file open (above)."""
    with _OPENING:
        if held_by_this_process(path):
            return None  # SQLite has the -shm open here: closing a reader drops its locks
        wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
        salts = _salts(wal) if wal_beside(path) else None
        if salts is None or _in_use_elsewhere(shm):
            return None
        if not shm.is_file():
            if _in_use_elsewhere(path):  # a writer in exclusive mode keeps no -shm
                return None
            return ("there is no -shm index beside it, which SQLite keeps with a -wal of "
                    "the file's own, so it was copied or moved there (from another copy of "
                    "the project?)")
        index = _head(shm, 2 * _SHM_HEADER)
        first, second = index[:_SHM_HEADER], index[_SHM_HEADER:]
        # an index being rewritten (its two copies differ), one of an empty WAL, and a
        # -wal that changed while it was read are left alone
        if len(index) == 2 * _SHM_HEADER and first == second and first[12] == 1 \
                and first[16:20] != b"\0\0\0\0" and first[32:40] != salts \
                and _salts(wal) == salts and not _in_use_elsewhere(shm):
            return ("its -shm index beside it belongs to another -wal (their salts differ), "
                    "so it was copied or moved there (from another copy of the project?)")
        return None


def foreign_wal_problem(path: Path, wal: Path, why: str, sound: bool) -> str:
    """The one line said of a -wal file that cannot be vouched for (`why`: wal_stranger)."""
    head = "the file itself is sound, but its" if sound else "its"
    try:
        size = f" ({wal.stat().st_size:,} bytes)"
    except OSError:
        size = ""
    return (f"{head} -wal file {wal}{size} does not belong to it: {why}. Applied, it would "
            "change the project silently. Move it out of the folder (while no simrate has "
            "the project open) and check again; changes it held, if any, are then lost")


@contextlib.contextmanager
def opening(path: Path, vet: bool = False) -> Iterator[None]:
    """Open the project file `path` inside this block (and register the connection with
    `HeldConnection.hold` there): no thread of this process vets a -wal meanwhile. With
    `vet`, a -wal beside the file that cannot be vouched for is refused first (one line)."""
    with _OPENING:
        if vet:
            why = wal_stranger(path)
            wal = wal_beside(path)
            if why is not None and wal is not None:
                raise SimrateError(foreign_wal_problem(path, wal, why, sound=False), path)
        yield


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
