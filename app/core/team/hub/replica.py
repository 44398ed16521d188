"""What a replica (a `.simrate` file linked to a hub) remembers about the hub.

Meta keys: `hub_url` (no password), `hub_replica` (this file's id at the hub), `hub_kind`
(annotator or organizer), `hub_name` (the login's annotator name), `hub_pushed` (the last
local change-log id the hub has acknowledged), `hub_wm_<table>` (the highest hub sequence
number pulled from each table) and `hub_last_sync` (Unix time of the last good round).

Tables `hub_ratings`, `hub_adjudications` and `hub_annotators` hold each value as the hub
last had it. A local value that differs from its hub copy is pending: it goes out at the
next push, unless the hub holds a later edit (see sync.py for the rule).
Like the other team tables they are created on first write; no schema version bump.

`hub_outbox` is where every write to `ratings` leaves its key, whatever wrote it (a rating,
an import, a package merge, crowd results, a machine rater, an undo, a pull): triggers on
`ratings` add the row inside the writer's own transaction, so no route can forget it. `at`
is when this machine made the change: the row's `updated_at`, or the time of the write
when the row carries an older stamp (an undo that puts back an earlier value), or of the
delete. A round reads the outbox, sends the keys whose value differs from the hub's copy,
and then deletes the outbox rows it read; the rows a pull wrote go at once (they hold the
hub's value already). In an annotator's replica a rating under another name is refused
by a trigger as well: the hub would never take it, so it could never leave the machine.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass

from simrate.core.errors import SimrateError
from simrate.core.project import Project

REPLICA_SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_ratings (
    item_id TEXT NOT NULL, annotator TEXT NOT NULL, code INTEGER, note TEXT NOT NULL,
    skipped INTEGER NOT NULL, PRIMARY KEY (item_id, annotator)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hub_adjudications (
    item_id TEXT PRIMARY KEY, code INTEGER, note TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_annotators (
    name TEXT PRIMARY KEY, excluded INTEGER NOT NULL
);
"""

#: Unix time now, in SQLite (milliseconds).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
#: When a written row's change was made (see the module's docstring).
_MADE = f"CASE WHEN NEW.updated_at < {_NOW} - 1.0 THEN {_NOW} ELSE NEW.updated_at END"
OUTBOX_TABLE = """CREATE TABLE hub_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, item_ord INTEGER NOT NULL,
    annotator_id INTEGER NOT NULL, at REAL NOT NULL)"""
OUTBOX_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_insert AFTER INSERT ON ratings BEGIN "
    "INSERT INTO hub_outbox (item_ord, annotator_id, at) "
    f"VALUES (NEW.item_ord, NEW.annotator_id, {_MADE}); END",
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_update AFTER UPDATE ON ratings BEGIN "
    "INSERT INTO hub_outbox (item_ord, annotator_id, at) "
    f"VALUES (NEW.item_ord, NEW.annotator_id, {_MADE}); END",
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_delete AFTER DELETE ON ratings BEGIN "
    "INSERT INTO hub_outbox (item_ord, annotator_id, at) "
    f"VALUES (OLD.item_ord, OLD.annotator_id, {_NOW}); END",
    # an annotator's replica holds only the person's own ratings: the hub takes no other
    # from it, so any other would stay on this machine for ever
    "CREATE TRIGGER IF NOT EXISTS hub_own_ratings_only BEFORE INSERT ON ratings "
    "WHEN (SELECT value FROM meta WHERE key = 'hub_kind') = 'annotator' "
    "AND NEW.annotator_id IS NOT (SELECT id FROM annotators WHERE name = "
    "(SELECT value FROM meta WHERE key = 'hub_name')) BEGIN "
    "SELECT RAISE(ABORT, 'this is an annotator''s replica of a hub: it holds only that "
    "person''s own ratings, and the hub would take no other; import them into the "
    "organizer''s replica'); END",
)


@dataclass(frozen=True)
class Link:
    """A replica's link to its hub, as recorded in the file."""

    url: str
    replica: str
    kind: str
    name: str | None

    @property
    def organizer(self) -> bool:
        """True for an organizer's replica (it holds everything)."""
        return self.kind == "organizer"


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the replica's hub tables if missing (inside a write transaction)."""
    for statement in REPLICA_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    ensure_outbox(conn)


def ensure_outbox(conn: sqlite3.Connection) -> None:
    """Create the outbox and its triggers if missing (inside a write transaction).

    A replica linked by an older simrate has no outbox: every rating it holds, and every
    key the hub holds for it, goes in once, so that what older routes never sent (imports,
    undo) is compared with the hub's copy at the next round.
    """
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                    "AND name = 'hub_outbox'").fetchone() is None:
        conn.execute(OUTBOX_TABLE)
        conn.execute("INSERT INTO hub_outbox (item_ord, annotator_id, at) "
                     "SELECT item_ord, annotator_id, updated_at FROM ratings")
        conn.execute(f"INSERT INTO hub_outbox (item_ord, annotator_id, at) "
                     f"SELECT i.ord, a.id, {_NOW} FROM hub_ratings h "
                     "JOIN items i ON i.id = h.item_id JOIN annotators a ON a.name = h.annotator")
    for statement in OUTBOX_TRIGGERS:
        conn.execute(statement)


def has_outbox(project: Project) -> bool:
    """True once the file's ratings leave their keys in the outbox."""
    return bool(project.team_tables.read(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'hub_outbox_delete'"))


def set_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    """Write meta keys (inside a write transaction)."""
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [(k, str(v)) for k, v in values.items()])


def link_replica(project: Project, url: str, kind: str, name: str | None,
                 project_uuid: str) -> Link:
    """Record in the file that it is a replica of the hub at `url`; returns the link."""
    replica = project.meta("hub_replica") or str(uuid.uuid4())
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        set_meta(conn, {"hub_url": url, "hub_replica": replica, "hub_kind": kind,
                        "hub_name": name or "", "project_uuid": project_uuid})
        for key in ("hub_pushed",):
            conn.execute("INSERT OR IGNORE INTO meta VALUES (?, '0')", (key,))
    return Link(url, replica, kind, name)


def read_link(project: Project) -> Link:
    """The file's link to its hub; SimrateError if the project is not a replica."""
    url = project.meta("hub_url")
    if not url:
        raise SimrateError("not linked to a hub: publish it (simrate team publish) or join "
                           "one (simrate team join)", project.path)
    return Link(url, project.meta("hub_replica") or "", project.meta("hub_kind") or "annotator",
                project.meta("hub_name") or None)


def meta_int(project: Project, key: str) -> int:
    """An integer meta key, 0 when absent."""
    value = project.meta(key)
    return int(float(value)) if value else 0


def watermarks(project: Project, tables: tuple[str, ...]) -> dict[str, int]:
    """The highest hub sequence number pulled so far from each table."""
    return {table: meta_int(project, f"hub_wm_{table}") for table in tables}
