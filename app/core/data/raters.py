"""The annotators table as one namespace of raters: lookups by identity key, inserts that
never reuse an id, and the schema 5 upgrade that brings both to older files.

A rater's `key` (`simrate.core.base.names.rater_key`: NFKC, case folded, lookalikes of
other scripts as Latin letters) is unique in the file, whatever the kind (person, crowd
worker, machine rater), so `ANA`, Cyrillic `АNА` or an NFD `Zoë`
can never become a second row beside `ana` or `Zoë`. Ids come from a high-water mark
kept in `meta` (`annotator_top`, raised by a trigger on every insert, whatever its route):
an id freed by an undone import is never given to another rater, so a process that still
holds the old id in its cache cannot write under someone else's name (Roster.id_for
checks the id against the row before it writes). The meta key `rater_keys` names the
version of the key's definition the stored keys follow (`lookalike.FOLD_VERSION`); a file
of an older one has its keys computed again when opened (data/migrate.py, `rekey`).
"""

from __future__ import annotations

import sqlite3

from simrate.core.base.lookalike import FOLD_VERSION
from simrate.core.base.names import rater_key
from simrate.core.data import meta as meta_table

#: The meta key of the version of the keys' definition.
KEY_META = "rater_keys"

#: The meta key of the highest annotator id ever given.
TOP_KEY = "annotator_top"

TOP = f"COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{TOP_KEY}'), 0)"

#: Statements of the namespace, for a new file and for the upgrade (one per entry: the
#: trigger's body holds semicolons).
STATEMENTS = (
    "CREATE UNIQUE INDEX IF NOT EXISTS annotators_key ON annotators(key)",
    meta_table.top_rater_trigger(TOP_KEY, TOP),
)


def install(conn: sqlite3.Connection) -> None:
    """Create the key index and the id high-water trigger (inside the caller's transaction)."""
    for statement in STATEMENTS:
        conn.execute(statement)
    meta_table.set_key_version(conn, KEY_META, FOLD_VERSION)


def has_keys(conn: sqlite3.Connection) -> bool:
    """True when the file's annotators carry keys (schema 5 or later)."""
    return any(row[1] == "key" for row in conn.execute("PRAGMA table_info(annotators)"))


def find(conn: sqlite3.Connection, name: str) -> tuple[int, str, str] | None:
    """(id, stored name, kind) of the rater `name` names: its exact (NFC) name first, else
    the one whose key it shares; None when there is none."""
    row = conn.execute("SELECT id, name, kind FROM annotators WHERE name = ?",
                       (name,)).fetchone()
    if row is None and has_keys(conn):
        row = conn.execute("SELECT id, name, kind FROM annotators WHERE key = ?",
                           (rater_key(name),)).fetchone()
    return None if row is None else (int(row[0]), row[1], row[2])
