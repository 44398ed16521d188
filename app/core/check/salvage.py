"""Salvage: copy what can still be read of a damaged project file into a new one.

SQLite's own `.recover` is not in every sqlite3 shell (and fails on some), so simrate does
the same job with what Python's sqlite3 gives: the new file gets this version's schema,
then every table the damaged file has is copied row by row, by ranges of its key (rowid,
or the first primary-key column of a WITHOUT ROWID table). A range that cannot be read is
split in two until the unreadable part is as small as one key; what lies there is lost,
and counted. Texts that are not valid UTF-8 are kept with the bad bytes replaced (U+FFFD),
and counted. Rows whose item or annotator was lost go too, so the new file is whole.

The damaged file is only read (read-only, or immutable in a read-only folder), by SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.check.check_open import (
    CannotCheck,
    check_openable,
    open_read_only,
    refuse_newer,
    stray_wal_problem,
    wal_beside,
    wal_stranger,
)
from simrate.core.check.integrity import find_problems
from simrate.core.data.migrate import upgrade_raters
from simrate.core.data.raters import KEY_META
from simrate.core.data.store import create_store, transaction

#: Rows read per query while a range reads cleanly.
CHUNK = 5000
#: Failed reads per table before the rest of it is given up (a table whose root page is
#: gone fails every read, and halving would never end).
MAX_FAILURES = 4000
#: Meta keys that describe the file rather than the project: the new file writes its own
#: (the raters' keys are computed again there, under this version's definition).
OWN_META = ("schema_version", "created", KEY_META)
#: Rows that refer to an item or annotator, and what they refer to (key -> table.key).
REFERENCES = {
    "ratings": ("item_ord IN (SELECT ord FROM items) AND "
                "annotator_id IN (SELECT id FROM annotators)"),
    "import_replaced": ("item_ord IN (SELECT ord FROM items) AND "
                        "annotator_id IN (SELECT id FROM annotators)"),
    "adjudications": "item_ord IN (SELECT ord FROM items)",
}


@dataclass
class Salvage:
    """What a salvage copied and what it could not."""

    out: Path
    copied: dict[str, int] = field(default_factory=dict)
    unreadable: dict[str, int] = field(default_factory=dict)
    given_up: list[str] = field(default_factory=list)
    texts_mended: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    #: What was not copied at all, a sentence each (columns this version does not know, a
    #: -wal file that cannot be applied).
    left_behind: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A summary for the command line, a line per fact."""
        found = ", ".join(f"{table} {n:,}" for table, n in self.copied.items())
        lines = [f"copied into {self.out}: {found}"]
        for table, n in self.unreadable.items():
            lines.append(f"{table}: the rows at {n:,} key value(s) could not be read and are "
                         "left behind")
        for table in self.given_up:
            lines.append(f"{table}: too damaged to read further; what was read is copied")
        for table, n in self.dropped.items():
            lines.append(f"{table}: {n:,} row(s) dropped: their item or annotator was lost")
        lines += [f"left behind: {what}" for what in self.left_behind]
        if self.texts_mended:
            lines.append(f"{self.texts_mended:,} text(s) with bytes that are not UTF-8: kept, "
                         "with those bytes shown as \ufffd")
        return lines


def _text(value: object, salvage: Salvage) -> object:
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        salvage.texts_mended += 1
        return value.decode("utf-8", errors="replace")


def _tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Table -> columns of the new file."""
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {name: [r[1] for r in conn.execute(f"PRAGMA table_info({name})")] for name in names}


def _key(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns a table is read in order of: its rowid, or the primary key of a WITHOUT
    ROWID table (all its columns: they need not be numbers)."""
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    keys = [name for _pk, name in sorted((r[5], r[1]) for r in info if r[5])]
    without_rowid = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                 (table,)).fetchone()[0].upper().rstrip().endswith("ROWID")
    return keys if without_rowid else ["rowid"]


def _columns_there(damaged: sqlite3.Connection, table: str, wanted: list[str],
                   salvage: Salvage) -> list[str]:
    """The columns of `wanted` the damaged table has; columns it has beyond them are named
    in `salvage.left_behind` (never dropped without a word)."""
    try:
        have = [r[1].decode("utf-8", "replace") if isinstance(r[1], bytes) else r[1]
                for r in damaged.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        have = []
    extra = [c for c in have if c not in wanted]
    if extra:
        salvage.left_behind.append(f"table {table}: column(s) {', '.join(extra)}, which this "
                                   "version of simrate does not know, with their values")
    return [c for c in wanted if c in have]


def _bounds(damaged: sqlite3.Connection, table: str, key: str) -> tuple[int, int]:
    try:
        low, high = damaged.execute(f"SELECT min({key}), max({key}) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        return -(2 ** 62), 2 ** 62  # the index cannot say: search the whole key space
    if low is None:
        return 0, -1
    if not (isinstance(low, int) and isinstance(high, int)):
        raise ValueError(table)  # not numbers: read in key order instead
    return low, high


def _copy_table(damaged: sqlite3.Connection, conn: sqlite3.Connection, table: str,
                columns: list[str], keys: list[str], salvage: Salvage) -> None:
    """Copy one table: by halving ranges of an integer key, else in the key's order."""
    declared = {r[1]: str(r[2]).upper() for r in conn.execute(f"PRAGMA table_info({table})")}
    if keys == ["rowid"] or declared.get(keys[0]) == "INTEGER":
        try:
            _copy_by_ranges(damaged, conn, table, columns, keys[0], salvage)
            return
        except ValueError:
            pass
    _copy_in_order(damaged, conn, table, columns, keys, salvage)


def _insert(conn: sqlite3.Connection, table: str, columns: list[str], rows: list,
            skip: int, salvage: Salvage) -> None:
    names = ", ".join(f'"{c}"' for c in columns)
    conn.executemany(f"INSERT OR IGNORE INTO {table} ({names}) VALUES "
                     f"({', '.join('?' * len(columns))})",
                     [[_text(v, salvage) for v in row[skip:]] for row in rows])


def _copy_in_order(damaged: sqlite3.Connection, conn: sqlite3.Connection, table: str,
                   columns: list[str], keys: list[str], salvage: Salvage) -> None:
    """Read the table in its key's order (texts need not be numbers); where a damaged page
    stops the reading, read on from the other end back to it: the rows in between are lost,
    counted as one unreadable stretch."""
    reached = _read_in_order(damaged, conn, table, columns, keys, salvage, "ASC", None)
    if reached is not False:
        _read_in_order(damaged, conn, table, columns, keys, salvage, "DESC",
                       reached if isinstance(reached, tuple) else None)
        salvage.unreadable[table] = salvage.unreadable.get(table, 0) + 1


def _read_in_order(damaged: sqlite3.Connection, conn: sqlite3.Connection, table: str,
                   columns: list[str], keys: list[str], salvage: Salvage, order: str,
                   floor: tuple | None) -> tuple | None | bool:
    """Copy rows in key order (ASC, or DESC down to past `floor`) until the end (False) or
    a read fails (the last key read, None when none was)."""
    names, keyed = ", ".join(f'"{c}"' for c in columns), ", ".join(f'"{k}"' for k in keys)
    after: tuple | None = None
    try:
        while True:
            bounds = [(">" if order == "ASC" else "<", after), (">", floor)]
            where = [f"({keyed}) {sign} ({_marks(value)})" for sign, value in bounds if value]
            params = [v for _sign, value in bounds if value for v in value]
            rows = damaged.execute(
                f"SELECT {keyed}, {names} FROM {table} "
                + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY "
                + ", ".join(f'"{k}" {order}' for k in keys) + f" LIMIT {CHUNK}",
                params).fetchall()
            if not rows:
                return False
            _insert(conn, table, columns, rows, len(keys), salvage)
            after = tuple(rows[-1][:len(keys)])
    except sqlite3.DatabaseError:
        return after


def _marks(values: tuple) -> str:
    """Placeholders for a key read back as bytes (texts: compared as texts, not blobs)."""
    return ", ".join("CAST(? AS TEXT)" if isinstance(v, bytes) else "?" for v in values)


def _copy_by_ranges(damaged: sqlite3.Connection, conn: sqlite3.Connection, table: str,
                    columns: list[str], key: str, salvage: Salvage) -> None:
    names = ", ".join(f'"{c}"' for c in columns)
    select = f"SELECT {key}, {names} FROM {table} WHERE {key} BETWEEN ? AND ? ORDER BY {key}"
    pending, failures = [_bounds(damaged, table, key)], 0
    while pending:
        low, high = pending.pop()
        if low > high:
            continue
        try:
            cursor = damaged.execute(select, (low, high))
            while rows := cursor.fetchmany(CHUNK):
                _insert(conn, table, columns, rows, 1, salvage)
                low = int(rows[-1][0]) + 1  # read: only the rest of the range is in doubt
        except sqlite3.DatabaseError:  # a damaged page in this range: halve it
            failures += 1
            if failures > MAX_FAILURES:
                salvage.given_up.append(table)
                return
            if low == high:
                salvage.unreadable[table] = salvage.unreadable.get(table, 0) + 1
                continue
            middle = (low + high) // 2
            pending += [(middle + 1, high), (low, middle)]


def _read_meta(damaged: sqlite3.Connection, path: Path) -> dict[str, str]:
    try:
        rows = damaged.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.DatabaseError:
        rows = []
    # TEXT columns: a number stored there reads back as text in the new file too
    meta = {str(_text(k, Salvage(path))): str(_text(v, Salvage(path))) for k, v in rows
            if k is not None and v is not None}
    if "scale" not in meta:
        raise SimrateError("the project's settings (its scale) cannot be read, so there is "
                           "nothing to build a new project on; go back to an earlier copy",
                           path)
    return {k: v for k, v in meta.items() if k not in OWN_META}


def salvage_project(path: str | Path, out: str | Path,
                    progress: Callable[[int, int], None] | None = None) -> Salvage:
    """Copy what can be read of the project at `path` into a new project at `out`;
    `progress(tables copied, tables in all)` after each table (a terminal's progress line).

    A file made by a newer simrate is refused (its columns would be left behind); a -wal
    file that makes a sound file unreadable is left behind, and said so."""
    path, out = Path(path), Path(out)
    check_openable(path)
    wal, why = wal_beside(path), wal_stranger(path)
    without_wal = wal is not None and (why is not None or find_problems(path) == [
        stray_wal_problem(path, wal)])
    try:
        damaged = open_read_only(path, without_wal)
    except CannotCheck as exc:
        raise SimrateError(f"cannot be read: {exc}", path) from None
    except sqlite3.DatabaseError:
        raise SimrateError("not a project file SQLite can read at all (its header is "
                           "gone); nothing can be salvaged", path) from None
    try:
        refuse_newer(damaged, path)
        meta = _read_meta(damaged, path)
        conn = create_store(out, meta)
        try:
            done = _fill(damaged, conn, out, progress)
        finally:
            conn.close()
    finally:
        damaged.close()
    if without_wal:
        done.left_behind.append(f"the -wal file {wal}, which " + (
            f"does not belong to the file: {why}" if why else
            "cannot be applied to the file (another project's, or damaged)"))
    return done


def _objects(damaged: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(type, name, sql) of the damaged file's own tables, indexes and triggers (team and
    hub tables are made on first use, so a file has only those it used); none when its
    schema cannot be read."""
    try:
        rows = damaged.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT "
                               "NULL AND name NOT LIKE 'sqlite_%'").fetchall()
    except sqlite3.DatabaseError:
        return []
    return [(str(_text(t, Salvage(Path()))), str(_text(n, Salvage(Path()))),
             str(_text(q, Salvage(Path())))) for t, n, q in rows]


def _add_objects(conn: sqlite3.Connection, objects: list[tuple[str, str, str]],
                 kinds: tuple[str, ...], salvage: Salvage) -> None:
    """Make the damaged file's objects of these kinds that the new file lacks (a table
    whose definition cannot be made again is named in `salvage.left_behind`)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    for kind, name, sql in objects:
        if kind in kinds and name not in have:
            try:
                conn.execute(sql)
            except sqlite3.DatabaseError:  # a damaged definition: the file works without it
                if kind == "table":
                    salvage.left_behind.append(f"table {name}, whose definition is damaged, "
                                               "with its rows")


def _fill(damaged: sqlite3.Connection, conn: sqlite3.Connection, out: Path,
          progress: Callable[[int, int], None] | None = None) -> Salvage:
    salvage = Salvage(out)
    objects = _objects(damaged)
    _add_objects(conn, objects, ("table", "index"), salvage)
    with transaction(conn, out, foreign_keys=False):
        tables = _tables(conn)
        for done, (table, wanted) in enumerate(tables.items(), start=1):
            if progress is not None:
                progress(done - 1, len(tables))
            columns = _columns_there(damaged, table, wanted, salvage)
            if table == "meta" or not columns:
                continue
            _copy_table(damaged, conn, table, columns, _key(conn, table), salvage)
            salvage.copied[table] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if progress is not None:
            progress(len(tables), len(tables))
        for table, keep in REFERENCES.items():
            gone = conn.execute(f"DELETE FROM {table} WHERE NOT ({keep})").rowcount
            if gone:
                salvage.dropped[table] = gone
                salvage.copied[table] -= gone
        upgrade_raters(conn)  # identity keys of an older file's raters; the id mark
        # triggers after the copy, which must not fire them
        _add_objects(conn, objects, ("trigger",), salvage)
    return salvage


def _schema_only(schema: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(schema)
    return conn
