"""How `simrate check` and `--salvage` open a project file: only what they can bound, only
reading, and leaving nothing behind.

- Only a regular, non-empty file is opened (store's `check_header`): a FIFO would make the
  open wait for a writer for ever, a device (/dev/zero) reads without end, a name past the
  file system's limit is told as such.
- With no `-wal` or `-journal` file beside it, nobody has the file open (SQLite keeps a
  WAL file while a connection is open), so it is read as immutable: SQLite then makes no
  empty `-wal`/`-shm` pair that a read-only connection could not remove again.
- A file whose schema is newer than this simrate's is refused, as every command refuses it:
  a check or a salvage by an older version would call columns it does not know damage, or
  drop them.
- A `-wal` file that makes a sound file unreadable is told apart from damage: the file read
  without it is checked too.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.write_errors import (  # noqa: F401
    SQLITE_PATH_MAX,
    disk_full,
    refuse_long_path,
)
from simrate.core.data.open_files import (  # noqa: F401 - the one rule, kept in core/data
    HeldConnection,
    foreign_wal_problem,
    opening,
    wal_beside,
    wal_stranger,
)

#: Why a file on a full disk is not checked (a file with a -wal is read through its -shm
#: index, which SQLite must make beside it): no word of damage.
DISK_FULL = ("the disk is full (SQLite needs a little room beside the file for its -shm "
             "file); free some space and try again")


class CannotCheck(Exception):
    """The file cannot be opened at all (no permission, a read-only place): no verdict."""


def check_openable(path: Path) -> None:
    """SimrateError unless `path` is a regular, non-empty, readable file (never opened)."""
    from simrate.core.data.store import check_header

    check_header(path)
    refuse_long_path(path)
    for suffix in ("-wal", "-shm", "-journal"):
        beside = Path(f"{path}{suffix}")
        if beside.exists() and not beside.is_file():
            raise SimrateError(f"{beside} beside it is a folder, a device or a pipe, where "
                               f"SQLite keeps its {suffix} file: move it out of the way", path)


def _journals(path: Path) -> list[Path]:
    return [p for p in (Path(f"{path}-wal"), Path(f"{path}-journal")) if p.exists()]


def open_read_only(path: Path, without_wal: bool = False) -> sqlite3.Connection:
    """A read-only connection that hands texts over as bytes (we decode them ourselves).

    Immutable when no journal is beside the file (nothing is created then) or when
    `without_wal` asks to read the file as it is without its -wal file; read-only
    otherwise. In a read-only folder a WAL file's shared index cannot be made; the file is
    then read as immutable (what it holds on disk)."""
    quiet = without_wal or not _journals(path)
    options = ("immutable=1",) if quiet else ("mode=ro", "immutable=1")
    for option in options:
        with opening(path):  # registered as held, so no thread here reads its -wal
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?{option}", uri=True,
                                   timeout=10.0, check_same_thread=False,
                                   factory=HeldConnection)
            conn.hold(path)
        conn.text_factory = bytes
        try:
            conn.execute("PRAGMA schema_version").fetchone()  # page 1 only: opens the file
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            text = str(exc).lower()
            if disk_full(exc, path):
                raise CannotCheck(DISK_FULL) from None
            if "unable to open" not in text and "readonly" not in text:
                raise CannotCheck(str(exc)) from None
        except sqlite3.DatabaseError:
            conn.close()
            raise  # not a database at all: find_problems says so
    raise CannotCheck("the file cannot be opened for reading")


def refuse_newer(conn: sqlite3.Connection, path: Path) -> None:
    """SimrateError when the file was made by a newer simrate (as `open_store` says)."""
    from simrate.core.data.store import SCHEMA_VERSION

    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return  # no readable meta table: the check says what is wrong
    version = row[0].decode("utf-8", "replace") if row and isinstance(row[0], bytes) else ""
    if version.isascii() and version.isdigit() and len(version) < 10 and int(
            version) > SCHEMA_VERSION:
        raise SimrateError(
            f"made by a newer simrate (file schema {int(version)}, this version reads up to "
            f"{SCHEMA_VERSION}); please upgrade simrate to check or salvage it: an older "
            "version would take what it does not know for damage, or leave it behind", path)


def stray_wal_problem(path: Path, wal: Path) -> str:
    """The one problem to report when the file is sound without its -wal file."""
    return (f"the file itself is sound, but its -wal file {wal} ({wal.stat().st_size:,} "
            "bytes) cannot be applied to it: it belongs to another project (copied or left "
            "beside it) or is damaged. Move it out of the folder (while no simrate has the "
            "project open) and check again; changes it held, if any, are then lost")
