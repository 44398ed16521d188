"""Bringing a project file of an older schema up to date when it is opened.

Version 1 kept each item's source path in the item row and had no record of which bulk
import wrote a rating. Version 2 stores each source once (table `sources`), indexes items
by dataset (counts per dataset without reading the texts), and gives ratings a `batch`
column and the `import_replaced` table so that a bulk import can be undone exactly.

The migration is one transaction: the file is either wholly version 1 or wholly version 2.
A file in a read-only place is left as it is and read as it is: reads never use what
version 2 adds, and a write there fails anyway, saying why.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.write_errors import write_error
from simrate.core.data import meta as meta_table
from simrate.core.data import raters

_ITEMS_V2 = """
CREATE TABLE items_v2 (
    ord INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    left TEXT NOT NULL,
    right TEXT NOT NULL,
    dataset TEXT NOT NULL DEFAULT '',
    genre TEXT NOT NULL DEFAULT '',
    reference REAL,
    meta TEXT,
    source_id INTEGER REFERENCES sources(id)
)"""
_STEPS_V2 = (
    "CREATE TABLE IF NOT EXISTS sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)",
    "INSERT OR IGNORE INTO sources (path) SELECT DISTINCT source FROM items WHERE source != ''",
    _ITEMS_V2,
    "INSERT INTO items_v2 SELECT i.ord, i.id, i.left, i.right, i.dataset, i.genre, "
    "i.reference, i.meta, s.id FROM items i LEFT JOIN sources s ON s.path = i.source",
    "DROP TABLE items",
    "ALTER TABLE items_v2 RENAME TO items",
    "CREATE INDEX items_dataset ON items(dataset)",
    "ALTER TABLE ratings ADD COLUMN batch INTEGER",
    """CREATE TABLE import_replaced (
        batch INTEGER NOT NULL, item_ord INTEGER NOT NULL, annotator_id INTEGER NOT NULL,
        code INTEGER, note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0,
        seconds REAL, updated_at REAL NOT NULL,
        PRIMARY KEY (batch, item_ord, annotator_id)) WITHOUT ROWID""",
)


def needs_migration(conn: sqlite3.Connection) -> bool:
    """True for a version 1 file (items still carry their source path)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(items)")}
    return "source" in columns


def _write_error(exc: sqlite3.Error, path: Path) -> SimrateError:
    return write_error(exc, path, "cannot bring the file up to date")


def migrate(conn: sqlite3.Connection, path: Path) -> bool:
    """Upgrade a version 1 file to version 2 in one transaction; False when the file cannot
    be written (it stays version 1 and is read as such)."""
    # Rebuilding `items` under the ratings' references needs foreign keys off (SQLite's
    # documented procedure for changing a table), and that pragma only acts outside a
    # transaction; the check before COMMIT keeps the references sound all the same.
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        conn.execute("PRAGMA foreign_keys = ON")
        if "readonly" in str(exc).lower() or "read-only" in str(exc).lower():
            return False
        raise _write_error(exc, path) from None
    try:
        if needs_migration(conn):  # another process may have done it a moment ago
            for step in _STEPS_V2:
                conn.execute(step)
            meta_table.set_schema_version(conn, 2)
            broken = conn.execute("PRAGMA foreign_key_check").fetchone()
            if broken is not None:
                raise sqlite3.IntegrityError(f"a row of {broken[0]} names a missing item")
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        text = str(exc)
        if "readonly" in text.lower():
            return False
        raise _write_error(exc, path) from None
    finally:
        conn.execute("PRAGMA foreign_keys = ON")
    return True


def upgrade(conn: sqlite3.Connection, meta: dict[str, str], version: int
            ) -> dict[str, str]:
    """Bring a file of an older schema up to this one, in one transaction.

    Schema 3 adds annotators.kind (every existing annotator is a person), schema 4
    import_replaced.was_batch (rows replaced before it stay untagged), schema 5 the
    raters' identity keys and id mark (raters.upgrade); schema 2's tables
    come from `migrate` first. A file we may not write stays as it is and reads as
    having no machine raters.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(annotators)")}
        if "kind" not in columns:
            conn.execute("ALTER TABLE annotators ADD COLUMN kind TEXT NOT NULL DEFAULT 'human'")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(import_replaced)")}
        if "was_batch" not in columns:
            conn.execute("ALTER TABLE import_replaced ADD COLUMN was_batch INTEGER")
        upgrade_raters(conn)
        meta_table.set_schema_version(conn, version)
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return meta
    return {**meta, "schema_version": str(version), raters.KEY_META: raters.FOLD_VERSION}


def upgrade_raters(conn: sqlite3.Connection) -> None:
    """Schema 5, inside the caller's transaction: annotators.key filled from the names (of
    two names with one key, written before this rule, the later keeps no key and stays a
    rater of its own, found by its exact name), the index, the trigger and the marks."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(annotators)")}
    if "key" not in columns:
        conn.execute("ALTER TABLE annotators ADD COLUMN key TEXT")
    fill_keys(conn)
    raters.install(conn)
    meta_table.set_top_rater_from_table(conn, raters.TOP_KEY, raters.TOP)


def fill_keys(conn: sqlite3.Connection) -> None:
    """Every rater's key computed again, in the order of ids (of two names with one key the
    later keeps none and stays a rater of its own, found by its exact name)."""
    seen: set[str] = set()
    rows = conn.execute("SELECT id, name FROM annotators ORDER BY id").fetchall()
    conn.execute("UPDATE annotators SET key = NULL")
    for aid, name in rows:
        key = raters.rater_key(name)
        if key not in seen:
            conn.execute("UPDATE annotators SET key = ? WHERE id = ?", (key, aid))
        seen.add(key)


def rekey(conn: sqlite3.Connection, meta: dict[str, str]) -> dict[str, str]:
    """The keys of a file written under an older definition of them (lookalikes across
    scripts, `lookalike.FOLD_VERSION`) computed again, in one transaction; a file we may
    not write stays as it is (found by exact names and its old keys)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("SELECT 1 FROM annotators WHERE name GLOB '*[^ -~]*' "
                        "LIMIT 1").fetchone() is not None:
            fill_keys(conn)  # ASCII names keep their keys: only the others can change
        meta_table.set_key_version(conn, raters.KEY_META, raters.FOLD_VERSION)
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return meta
    return {**meta, raters.KEY_META: raters.FOLD_VERSION}
