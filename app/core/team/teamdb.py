"""The team store: tables that team work adds to a project file, and the typed reads and
writes that team work and the hub adapter make on the file beside them.

The check items and the item assignment are created with CREATE TABLE IF NOT EXISTS the
first time they are written, so files made before these features (or by a version without
them) open unchanged and read as having no checks and no assignment. No schema version
bump: an older simrate simply ignores them.

`Project.team_tables` (reads and write transactions on the project's own connection) is for
the owners of team tables alone (tests/core/team/test_team_door.py names them); every other
module asks for what it needs here, by a typed function, or writes through `TeamWrite`, one
write transaction whose steps are typed too (a setting through the meta table's owner, one
function of a table's owner such as `log_change`, whose arguments mypy checks), so no
caller runs SQL of its own on the file.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Concatenate, ParamSpec, TypeVar

from simrate.core.data import meta as meta_table
from simrate.core.data.store import read_meta
from simrate.core.imports.items_import import blank_references
from simrate.core.project import Project

P = ParamSpec("P")
R = TypeVar("R")

TEAM_SCHEMA = """
CREATE TABLE IF NOT EXISTS check_items (
    item_ord INTEGER PRIMARY KEY REFERENCES items(ord),
    score REAL NOT NULL,
    by TEXT NOT NULL DEFAULT '',
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS assignment (
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    annotator TEXT NOT NULL,
    PRIMARY KEY (item_ord, annotator)
) WITHOUT ROWID;
"""


def ensure_team_tables(conn: sqlite3.Connection) -> None:
    """Create the team tables if missing (call inside a write transaction)."""
    for statement in TEAM_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def has_table(project: Project, name: str) -> bool:
    """True if the project file has a table of this name (reads never create tables)."""
    return bool(project.team_tables.read("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                             (name,)))


def project_uuid(project: Project) -> str:
    """The project's stable identity, created (and saved) on first use for older files."""
    found = project.meta("project_uuid")
    if found:
        return found
    with project.team_tables.transaction() as conn:
        # INSERT OR IGNORE: another process may have created it a moment ago; theirs wins.
        meta_table.set_project_uuid_once(conn, str(uuid.uuid4()))
    return project.meta("project_uuid") or ""


# ----------------------------------------------------------------- typed reads
def has_trigger(project: Project, name: str) -> bool:
    """True if the project file has a trigger of this name."""
    return bool(project.team_tables.read(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?", (name,)))


def last_change_id(project: Project) -> int:
    """The id of the newest change-log entry (0: none)."""
    return int(project.team_tables.read("SELECT COALESCE(max(id), 0) FROM changes")[0][0])


def last_item_ord(project: Project) -> int:
    """The highest item position of the file (-1: no item)."""
    return int(project.team_tables.read("SELECT COALESCE(max(ord), -1) FROM items")[0][0])


def change_entries(project: Project, kind: str) -> list[dict]:
    """The `new` values of the change-log entries of one kind, newest first."""
    return [json.loads(text) for (text,) in project.team_tables.read(
        "SELECT new FROM changes WHERE kind = ? AND new IS NOT NULL ORDER BY id DESC",
        (kind,))]


def hold_checkpoints(project: Project) -> None:
    """Leave the write-ahead log's checkpoints to the closing of the file (a server that
    writes often on its own connection)."""
    project.team_tables.read("PRAGMA wal_autocheckpoint = 0")


# ----------------------------------------------------------------- typed writes
class TeamWrite:
    """One write transaction of team work on the file, its steps typed (see the module's
    docstring); made by `team_write`."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def meta(self, key: str) -> str | None:
        """A meta value as this transaction sees it."""
        return read_meta(self._conn, key)

    def set_hub_keys(self, values: Mapping[str, object]) -> None:
        """The link's and the sync's own keys (meta.set_hub_keys)."""
        meta_table.set_hub_keys(self._conn, values)

    def set_organizer_tally(self, key: str, tally: dict) -> None:
        """Who switched organizer mode on, how often and when last."""
        meta_table.set_organizer_tally(self._conn, key, json.dumps(tally, ensure_ascii=False))

    def blank_references(self) -> int:
        """Every item's reference and metadata taken out; the number of items changed."""
        return blank_references(self._conn)

    def step(self, owner: Callable[Concatenate[sqlite3.Connection, P], R], *args: P.args,
             **kwargs: P.kwargs) -> R:
        """One step of a table's owner in this transaction: a function of that owner which
        takes the connection first (hub/link/outbox.py's, say), its other arguments
        checked by their types; the connection never reaches the caller."""
        return owner(self._conn, *args, **kwargs)


@contextmanager
def team_write(project: Project) -> Iterator[TeamWrite]:
    """One write transaction on the project's file (committed at the end of the block)."""
    with project.team_tables.transaction() as conn:
        yield TeamWrite(conn)


def set_hub_keys(project: Project, values: Mapping[str, object]) -> None:
    """Write keys of the link or the sync, in a transaction of their own."""
    with team_write(project) as write:
        write.set_hub_keys(values)


def items_after(project: Project, ord_: int) -> list[tuple]:
    """The items past position `ord_`, in order: id, left, right, dataset, genre, reference,
    meta, the source's path ('' for none) and the position."""
    return project.team_tables.read(
        "SELECT i.id, i.left, i.right, i.dataset, i.genre, i.reference, i.meta, "
        "COALESCE(s.path, ''), i.ord FROM items i LEFT JOIN sources s ON s.id = i.source_id "
        "WHERE i.ord > ? ORDER BY i.ord", (ord_,))


def rater_rows(project: Project) -> list[tuple]:
    """Every rater: name, excluded (0 or 1), kind."""
    return project.team_tables.read("SELECT name, excluded, kind FROM annotators")


def rating_rows(project: Project) -> list[tuple]:
    """Every rating: item id, annotator, code, note, skipped, seconds, updated_at."""
    return project.team_tables.read(
        "SELECT i.id, a.name, r.code, r.note, r.skipped, r.seconds, r.updated_at "
        "FROM ratings r JOIN items i ON i.ord = r.item_ord "
        "JOIN annotators a ON a.id = r.annotator_id")


def verdict_rows(project: Project) -> list[tuple]:
    """Every adjudication: item id, code, note, by, at."""
    return project.team_tables.read("SELECT i.id, d.code, d.note, d.by, d.at FROM "
                                    "adjudications d JOIN items i ON i.ord = d.item_ord")
