"""What a replica (a `.simrate` file linked to a hub) remembers about the hub.

The link itself (hub URL, role, name, replica id, sync token) is the file's mode
(core/data/replica_mode.py, `Project.mode`); `link_replica` and `unlink_replica` change it
through `Project.relink`. The sync's own meta keys, read and written in app/hub only:
`hub_pushed` (the last local change-log id the hub has acknowledged), `hub_wm_<table>`
(the highest hub sequence number pulled from each table) and `hub_last_sync` (Unix time
of the last good round).

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

from simrate.core.data.replica_mode import NAME_SQL, ROLE_SQL, ReplicaMode, Role
from simrate.core.data.replica_tables import OUTBOX_COLUMNS, OUTBOX_TABLE, REPLICA_SCHEMA
from simrate.core.project import Project

#: Unix time now, in SQLite (milliseconds).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
#: When a written row's change was made (see the module's docstring).
_MADE = f"CASE WHEN NEW.updated_at < {_NOW} - 1.0 THEN {_NOW} ELSE NEW.updated_at END"
_ITEM = "(SELECT id FROM items WHERE ord = {row}.item_ord)"
_RATER = "(SELECT name FROM annotators WHERE id = {row}.annotator_id)"
_ADD = "INSERT INTO hub_outbox (kind, item_ord, annotator_id, item_id, annotator, at) VALUES "


def _rating_trigger(name: str, event: str, row: str, at: str) -> str:
    return (f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON ratings BEGIN {_ADD}"
            f"('rating', {row}.item_ord, {row}.annotator_id, {_ITEM.format(row=row)}, "
            f"{_RATER.format(row=row)}, {at}); END")


def _verdict_trigger(name: str, event: str, row: str, at: str) -> str:
    return (f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON adjudications BEGIN "
            f"{_ADD}('adjudication', {row}.item_ord, -1, {_ITEM.format(row=row)}, NULL, {at}); "
            "END")


_VERDICT_MADE = f"CASE WHEN NEW.at < {_NOW} - 1.0 THEN {_NOW} ELSE NEW.at END"
#: The old triggers of the outbox (ratings only, keyed by ids), dropped when upgrading.
OLD_TRIGGERS = ("hub_outbox_insert", "hub_outbox_update", "hub_outbox_delete")
OUTBOX_TRIGGERS = (
    _rating_trigger("hub_outbox_rating_insert", "INSERT", "NEW", _MADE),
    _rating_trigger("hub_outbox_rating_update", "UPDATE", "NEW", _MADE),
    _rating_trigger("hub_outbox_rating_delete", "DELETE", "OLD", _NOW),
    _verdict_trigger("hub_outbox_verdict_insert", "INSERT", "NEW", _VERDICT_MADE),
    _verdict_trigger("hub_outbox_verdict_update", "UPDATE", "NEW", _VERDICT_MADE),
    _verdict_trigger("hub_outbox_verdict_delete", "DELETE", "OLD", _NOW),
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_exclude AFTER UPDATE OF excluded ON annotators "
    f"WHEN NEW.excluded IS NOT OLD.excluded BEGIN {_ADD}"
    f"('exclude', -1, NEW.id, NULL, NEW.name, {_NOW}); END",
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_machine AFTER INSERT ON annotators "
    f"WHEN NEW.kind = 'machine' BEGIN {_ADD}('machine', -1, NEW.id, NULL, NEW.name, {_NOW}); "
    "END",
    # every other rater added (by an import, a package merge, a web study...): the hub
    # learns the name and its kind (person or crowd worker) before any rating of theirs
    "CREATE TRIGGER IF NOT EXISTS hub_outbox_rater AFTER INSERT ON annotators "
    f"WHEN NEW.kind <> 'machine' BEGIN {_ADD}('rater', -1, NEW.id, NULL, NEW.name, {_NOW}); "
    "END",
    # an annotator's replica holds only the person's own ratings: the hub takes no other
    # from it, so any other would stay on this machine for ever
    "CREATE TRIGGER IF NOT EXISTS hub_own_ratings_only BEFORE INSERT ON ratings "
    f"WHEN {ROLE_SQL} = '{Role.ANNOTATOR.value}' "
    f"AND NEW.annotator_id IS NOT (SELECT id FROM annotators WHERE name = {NAME_SQL}) BEGIN "
    "SELECT RAISE(ABORT, 'this is an annotator''s replica of a hub: it holds only that "
    "person''s own ratings, and the hub would take no other; import them into the "
    "organizer''s replica'); END",
)
#: Every value that may differ from the hub's copy goes in once when the outbox is made
#: or upgraded; a round sends only what differs.
SEED_OUTBOX = (
    f"{_ADD[:-8]} SELECT 'rating', r.item_ord, r.annotator_id, i.id, a.name, r.updated_at "
    "FROM ratings r JOIN items i ON i.ord = r.item_ord JOIN annotators a "
    "ON a.id = r.annotator_id",
    f"{_ADD[:-8]} SELECT 'rating', -1, -1, h.item_id, h.annotator, {_NOW} FROM hub_ratings h",
    f"{_ADD[:-8]} SELECT 'adjudication', d.item_ord, -1, i.id, NULL, d.at "
    "FROM adjudications d JOIN items i ON i.ord = d.item_ord",
    f"{_ADD[:-8]} SELECT 'adjudication', -1, -1, h.item_id, NULL, {_NOW} "
    "FROM hub_adjudications h",
    f"{_ADD[:-8]} SELECT 'exclude', -1, a.id, NULL, a.name, {_NOW} FROM annotators a "
    "WHERE a.excluded = 1 OR a.name IN (SELECT name FROM hub_annotators)",
    f"{_ADD[:-8]} SELECT 'rater', -1, a.id, NULL, a.name, {_NOW} FROM annotators a "
    "WHERE a.kind <> 'machine' AND a.name NOT IN (SELECT name FROM hub_annotators)",
)


def ensure_tables(conn: sqlite3.Connection) -> None:
    """Create the replica's hub tables if missing (inside a write transaction)."""
    for statement in REPLICA_SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    ensure_outbox(conn)


def ensure_outbox(conn: sqlite3.Connection) -> None:
    """Create the outbox and its triggers if missing, or bring an older one up to every
    kind of change (inside a write transaction).

    A replica linked by an older simrate has no outbox, or one of ratings alone: every
    value it holds, and every key the hub holds for it, goes in once, so that what older
    routes never sent (imports, undo, adjudications and exclusions written while a round
    applied its pull) is compared with the hub's copy at the next round.
    """
    columns = {r[1] for r in conn.execute("PRAGMA table_info(hub_outbox)")}
    if "undo" in columns:
        return
    if not columns:
        conn.execute(OUTBOX_TABLE)
    for name, kind in OUTBOX_COLUMNS:
        conn.execute(f"ALTER TABLE hub_outbox ADD COLUMN {name} {kind}")
    conn.execute("DELETE FROM hub_outbox")  # the seed below queues every key again
    for name in OLD_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for statement in SEED_OUTBOX:
        conn.execute(statement)
    for statement in OUTBOX_TRIGGERS:
        conn.execute(statement)


def has_outbox(project: Project) -> bool:
    """True once the file's ratings leave their keys in the outbox."""
    return bool(project.team_tables.read(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'hub_outbox_exclude'"))


def set_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    """Write meta keys (inside a write transaction)."""
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [(k, str(v)) for k, v in values.items()])


def link_replica(project: Project, url: str, role: Role, name: str | None,
                 project_uuid: str, replica: str = "", token: str = "") -> ReplicaMode:
    """Make the file a replica of the hub at `url` (its id at the hub: `replica`, else the
    one it had, else a new one; `token`: the person's at a sync service), in one
    transaction with the replica's tables; returns the mode it now has."""
    replica = replica or project.mode.replica or str(uuid.uuid4())
    with project.relink(ReplicaMode(role, url, replica, name, token)) as conn:
        ensure_tables(conn)
        set_meta(conn, {"project_uuid": project_uuid})
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('hub_pushed', '0')")
    return project.mode


def unlink_replica(project: Project) -> ReplicaMode:
    """Make the file a plain project again. Its replica tables and outbox stay, and go on
    collecting its changes: linked again to the same hub, it sends what differs from the
    hub's copy; published to another, the copies are made anew (publish.py)."""
    with project.relink(project.mode.unlinked()):
        pass
    return project.mode


def read_link(project: Project) -> ReplicaMode:
    """The file's link to its hub (its mode); SimrateError if the project is not a replica."""
    return project.mode.require_link(project.path)


def meta_int(project: Project, key: str) -> int:
    """An integer meta key, 0 when absent."""
    value = project.meta(key)
    return int(float(value)) if value else 0


def watermarks(project: Project, tables: tuple[str, ...]) -> dict[str, int]:
    """The highest hub sequence number pulled so far from each table."""
    return {table: meta_int(project, f"hub_wm_{table}") for table in tables}


def acknowledged(project: Project) -> int:
    """The last local change-log id the hub has taken."""
    return meta_int(project, "hub_pushed")


def last_sync(project: Project) -> float | None:
    """Unix time of the replica's last good round, None before the first."""
    return float(project.meta("hub_last_sync") or 0) or None
