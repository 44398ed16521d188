"""The SQLite project file (`.simrate`): schema, opening checks, transactions."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.write_errors import disk_full, refuse_long_path, write_error
from simrate.core.data import meta as meta_table
from simrate.core.data import raters
from simrate.core.data.meta import check_meta
from simrate.core.data.migrate import migrate, needs_migration, rekey, upgrade
from simrate.core.data.open_files import HeldConnection, create_whole, opening

#: 2: sources in their own table, ratings remember their bulk import (data/migrate.py: from 1).
#: 3: annotators.kind, people or machine raters (issue 17; migrate.upgrade).
#: 4: import_replaced.was_batch, the import that had written a replaced row (issue 22).
#: 5: annotators.key, one rater per identity key, ids never reused (core/data/raters.py).
SCHEMA_VERSION = 5
#: Kinds of annotator: people, machine raters (issue 17) and crowd workers (by WorkerId; never
#: the same annotator as a person or a machine rater, whatever the names: import_ratings).
HUMAN, MACHINE, CROWD = "human", "machine", "crowd"
#: Stored in the SQLite header (PRAGMA application_id) so other tools can tell our files apart.
APPLICATION_ID = 0x53524154  # "SRAT"
SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE items (
    ord INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    left TEXT NOT NULL,
    right TEXT NOT NULL,
    dataset TEXT NOT NULL DEFAULT '',
    genre TEXT NOT NULL DEFAULT '',
    reference REAL,
    meta TEXT,
    source_id INTEGER REFERENCES sources(id)
);
CREATE INDEX items_dataset ON items(dataset);
CREATE TABLE annotators (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    excluded INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL DEFAULT 'human',
    key TEXT
);
CREATE TABLE ratings (
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    code INTEGER,
    note TEXT NOT NULL DEFAULT '',
    skipped INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    updated_at REAL NOT NULL,
    batch INTEGER,
    PRIMARY KEY (item_ord, annotator_id)
) WITHOUT ROWID;
CREATE TABLE import_replaced (
    batch INTEGER NOT NULL,
    item_ord INTEGER NOT NULL,
    annotator_id INTEGER NOT NULL,
    code INTEGER,
    note TEXT NOT NULL DEFAULT '',
    skipped INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    updated_at REAL NOT NULL,
    was_batch INTEGER,
    PRIMARY KEY (batch, item_ord, annotator_id)
) WITHOUT ROWID;
CREATE TABLE adjudications (
    item_ord INTEGER PRIMARY KEY REFERENCES items(ord),
    code INTEGER NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    by TEXT NOT NULL DEFAULT '',
    at REAL NOT NULL
);
-- ratings.batch: the id of the change-log entry of the bulk import that wrote the row as it
-- stands (NULL once a single edit rewrites it). import_replaced: what such an import
-- overwrote, so that undoing it restores exactly the earlier rows, each with the import
-- that had written it (was_batch), so that undoing that one later removes it too.
CREATE TABLE changes (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    who TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL,
    item_id TEXT,
    annotator TEXT,
    old TEXT,
    new TEXT
);
"""


def _sqlite_connect(target: str, **options) -> HeldConnection:
    return sqlite3.connect(target, factory=HeldConnection, check_same_thread=False,
                           isolation_level=None, **options)


def _connect(path: Path, vet: bool = False) -> HeldConnection:
    """Open a connection with our settings: autocommit (we open transactions ourselves), WAL.
    With `vet`, a -wal beside the file that cannot be vouched for is refused first (one
    line; open_files.wal_stranger), before SQLite could apply it."""
    refuse_long_path(path)  # SQLite's own words would be "unable to open", or "damaged"
    with opening(path, vet):
        conn = _sqlite_connect(str(path), timeout=10.0)
        conn.hold(path)
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:  # no connection left to the collector (open_files._DROPPED)
        conn.close()
        raise
    return conn


def connect(path: Path) -> sqlite3.Connection:
    """A plain connection with our settings, that reads nothing yet (see `_connect`)."""
    return _connect(path)


def _reads(conn: sqlite3.Connection, reraise: bool = False) -> bool:
    """True when the connection can read the file; else it is closed, and SQLite's
    "cannot open" error is raised again with `reraise` (any other error always is)."""
    try:
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        return True
    except sqlite3.OperationalError:
        conn.close()
        if reraise:
            raise
    except BaseException:  # not a database, or any other failure: no connection left open
        conn.close()
        raise
    return False


def connect_for_reading(path: Path, vet: bool = False) -> sqlite3.Connection:
    """A connection that can at least read, also in a read-only folder.

    A WAL file needs its `-shm` index beside it, which a read-only folder cannot hold, so
    there the file is opened read-only (`mode=ro`), or, when no `-wal` file holds changes,
    as immutable. Writes on such a connection fail with SQLite's "readonly" error, which
    `write_error` turns into "the file or its folder is read-only". `vet`: as `_connect`.
    """
    conn = _connect(path, vet)
    folder = path.parent if str(path.parent) else Path(".")
    if _reads(conn, reraise=os.access(folder, os.W_OK)):
        return conn
    wal = Path(f"{path}-wal")
    options = ["mode=ro"] + ([] if wal.exists() and wal.stat().st_size else ["immutable=1"])
    for option in options:
        with opening(path):
            conn = _sqlite_connect(f"{path.resolve().as_uri()}?{option}", uri=True)
            conn.hold(path)
        if _reads(conn):
            return conn
    raise SimrateError("cannot be read: the folder is read-only and the file's unsaved "
                       "changes (its -wal file) need a writable folder; copy the folder to "
                       "a writable place", path)


def _apply_settings(conn: sqlite3.Connection) -> None:
    # WAL with synchronous=FULL: each commit is on disk before we report it saved.
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")


def create_store(path: Path, meta: dict[str, str]) -> sqlite3.Connection:
    """Create a new project file at `path` (which must not exist) and return a connection:
    built whole under a temporary name beside it, then named (open_files.create_whole)."""
    conn = create_whole(path, _connect, lambda new: build_new(new, meta))
    try:
        _apply_settings(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def build_new(conn: sqlite3.Connection, meta: dict[str, str]) -> None:
    """The schema, the raters' rules and `meta` written into an empty file, in one commit."""
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    _apply_settings(conn)
    conn.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    raters.install(conn)
    rows = {"schema_version": str(SCHEMA_VERSION), "created": str(time.time()), **meta}
    meta_table.write_new(conn, rows)
    conn.execute("COMMIT")


def check_header(path: Path) -> None:
    """SimrateError unless `path` is a regular, non-empty file we may read.

    The file itself is never opened here: only SQLite opens a project file. Closing any
    descriptor of a database file drops every POSIX lock this process holds on it, so a
    plain `open()` to sniff the header, done while another connection of this process has
    the project open, would let a third process believe it is the last user and delete the
    WAL under us. Whether the bytes are SQLite's is left to SQLite ("file is not a database").
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SimrateError("no such project file", path) from None
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror}", path) from None
    if stat.S_ISDIR(info.st_mode):
        raise SimrateError("is a folder, not a project file", path)
    if not stat.S_ISREG(info.st_mode):
        raise SimrateError("not a simrate project (a device or pipe, not a file)", path)
    if info.st_size == 0:
        raise SimrateError("not a simrate project (an empty file)", path)
    if not os.access(path, os.R_OK):
        raise SimrateError("cannot read: Permission denied", path)


def _not_ours(exc: sqlite3.DatabaseError, path: Path) -> SimrateError:
    """What SQLite's refusal to read the file means, in one line."""
    if "not a database" in str(exc).lower():
        return SimrateError("not a simrate project (not an SQLite database)", path)
    if disk_full(exc, path):  # opening writes the -wal and -shm files beside it
        return SimrateError("cannot be opened: the disk is full (SQLite needs a little room "
                            "beside the file for its -wal and -shm files); free some space "
                            "and try again", path)
    return SimrateError(f"not a readable simrate project: {exc}", path)


def open_store(path: Path) -> tuple[sqlite3.Connection, dict[str, str]]:
    """Open an existing project file, checking that it is one we can read."""
    check_header(path)
    try:
        conn = connect_for_reading(path, vet=True)  # a -wal of another file: refused
    except sqlite3.DatabaseError as exc:
        raise _not_ours(exc, path) from None
    try:  # a file refused, or an upgrade that fails, leaves no connection behind
        return conn, _checked_meta(conn, path)
    except BaseException:
        conn.close()
        raise


def _checked_meta(conn: sqlite3.Connection, path: Path) -> dict[str, str]:
    """The project's meta table, once the file proved ours and readable by this version
    (upgraded to it when older)."""
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables or "items" not in tables:
            raise SimrateError("not a simrate project (an SQLite file of another kind)", path)
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    except sqlite3.DatabaseError as exc:
        raise _not_ours(exc, path) from None
    try:
        version = check_meta(meta)
    except SimrateError as exc:
        raise SimrateError(exc.message, path) from None
    if version > SCHEMA_VERSION:
        raise SimrateError(
            f"made by a newer simrate (file schema {version}, this version reads up to "
            f"{SCHEMA_VERSION}); please upgrade simrate",
            path,
        )
    try:
        _apply_settings(conn)
    except sqlite3.OperationalError:
        pass  # read-only location: reading still works, writes will say why they fail
    if needs_migration(conn) and migrate(conn, path):
        meta["schema_version"] = "2"
    if int(meta.get("schema_version", "0")) < SCHEMA_VERSION:
        meta = upgrade(conn, meta, SCHEMA_VERSION)
    if meta.get(raters.KEY_META) != raters.FOLD_VERSION and raters.has_keys(conn):
        meta = rekey(conn, meta)  # keys of an older definition (lookalikes: migrate.py)
    return meta


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """One value from the meta table, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is still open (SQLite may already have rolled back)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the transaction is gone either way; the caller reports the first error


#: How long a write waits for another writer's lock before it gives up.
LOCK_PATIENCE = 10.0


def _begin(conn: sqlite3.Connection, path: Path) -> None:
    """BEGIN IMMEDIATE, polling for the write lock every millisecond or so.

    SQLite's own busy handler sleeps longer and longer (up to 100 ms) between tries, so
    under steady writing a waiting writer keeps missing the moments the lock is free and
    can starve for seconds. Polling often keeps every wait near the time others hold it.
    """
    deadline = time.monotonic() + LOCK_PATIENCE
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                text = str(exc).lower()
                if ("locked" not in text and "busy" not in text) or \
                        time.monotonic() > deadline:
                    raise write_error(exc, path) from None
            except sqlite3.Error as exc:
                raise write_error(exc, path) from None
            time.sleep(0.001)
    finally:
        conn.execute("PRAGMA busy_timeout = 10000")


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path,
                foreign_keys: bool = True) -> Iterator[sqlite3.Connection]:
    """One write transaction: all of it is committed, or none of it.

    Any failure (in the body, at COMMIT, even at ROLLBACK) leaves no transaction open and is
    raised as a SimrateError; callers update their in-memory state only after this returns.
    With `foreign_keys=False` SQLite does not look up the parents of each row written (a
    quarter of a bulk insert's time); the body must check them itself before it ends.
    """
    if foreign_keys:
        with _transaction(conn, path):
            yield conn
        return
    conn.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction: set before
    try:
        with _transaction(conn, path):
            yield conn
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


@contextmanager
def _transaction(conn: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    _begin(conn, path)
    try:
        yield conn
    except sqlite3.Error as exc:
        _rollback(conn)
        raise write_error(exc, path) from None
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise write_error(exc, path, "cannot save to the project") from None


class TableAccess:
    """Reads and write transactions on a project's connection, for the team modules that keep
    tables of their own (check items, assignment, crowd tasks, the hub's replica state)."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn, self._path = conn, path

    def read(self, sql: str, params: Sequence[object] | Mapping[str, object] = ()
             ) -> list[tuple]:
        """The rows of one query (parameters by position, or by name in a mapping)."""
        return self._conn.execute(sql, params).fetchall()

    def transaction(self):
        """One write transaction (see `transaction`)."""
        return transaction(self._conn, self._path)
