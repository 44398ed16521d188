"""The one module whose SQL writes a replica's `hub_outbox` and `hub_ratings` tables.

`hub_outbox` is where every write to `ratings` leaves its key, whatever wrote it (a rating,
an import, a package merge, crowd results, a machine rater, an undo, a pull): triggers on
`ratings` add the row inside the writer's own transaction, so no route can forget it. `at`
is when this machine made the change: the row's `updated_at`, or the time of the write
when the row carries an older stamp (an undo that puts back an earlier value), or of the
delete. A round reads the outbox, sends the keys whose value differs from the hub's copy,
and then deletes the outbox rows it read; the rows a pull wrote go at once (they hold the
hub's value already). In an annotator's replica a rating under another name is refused
by a trigger as well: the hub would never take it, so it could never leave the machine.

An undo's writes are marked as such: the core notes, in its own table `undo_marks` and in
the undo's transaction, the outbox position its writes began at (core/edits/writes.py);
the trigger `hub_outbox_undo` here marks the outbox rows after it. So the core never
writes the outbox, and the mark is made in the same transaction as the undo.

`hub_ratings` holds each rating as the hub last had it (see replica.py); the sync, the
pull and the publish write it through the functions below, inside their own transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence

from simrate.core.data.replica_mode import NAME_SQL, ROLE_SQL, Role
from simrate.core.data.replica_tables import OUTBOX_COLUMNS, OUTBOX_TABLE, UNDO_MARKS_TABLE

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
        _ensure_undo_marks(conn)
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
    _ensure_undo_marks(conn)


#: The outbox rows after an undo's mark are that undo's (see the module's docstring).
UNDO_TRIGGER = ("CREATE TRIGGER IF NOT EXISTS hub_outbox_undo AFTER INSERT ON undo_marks "
                "BEGIN UPDATE hub_outbox SET undo = 1 WHERE id > NEW.since; END")


def _ensure_undo_marks(conn: sqlite3.Connection) -> None:
    conn.execute(UNDO_MARKS_TABLE)
    conn.execute(UNDO_TRIGGER)


# ----------------------------------------------------------------- the outbox's rows
#: Delete the outbox rows of ratings above an id whose key holds the value of the hub's copy.
PRUNE_QUEUED = """
DELETE FROM hub_outbox WHERE id > ? AND id IN (
    SELECT o.id FROM hub_outbox o
    LEFT JOIN items i ON i.id = o.item_id
    LEFT JOIN annotators a ON a.name = o.annotator
    LEFT JOIN ratings r ON r.item_ord = i.ord AND r.annotator_id = a.id
    LEFT JOIN hub_ratings h ON h.item_id = o.item_id AND h.annotator = o.annotator
    WHERE o.id > ? AND o.kind = 'rating' AND r.code IS h.code
      AND COALESCE(r.note, '') = COALESCE(h.note, '')
      AND COALESCE(r.skipped, 0) = COALESCE(h.skipped, 0))
"""


def queue_ratings(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """Queue ratings (item ord, annotator id, item id, annotator, at) to be sent."""
    conn.executemany("INSERT INTO hub_outbox (item_ord, annotator_id, item_id, "
                     "annotator, at) VALUES (?, ?, ?, ?, ?)", rows)


def drop_sent(conn: sqlite3.Connection, upto: int) -> None:
    """The rows a round has sent, up to and with `upto`, are done."""
    conn.execute("DELETE FROM hub_outbox WHERE id <= ?", (upto,))


def drop_known_raters(conn: sqlite3.Connection, names: Iterable[str],
                      after: int | None = None) -> None:
    """The raters the hub has already (of any row, or of the rows after `after`)."""
    if after is None:
        conn.executemany("DELETE FROM hub_outbox WHERE kind IN ('machine', 'rater') "
                         "AND annotator = ?", [(name,) for name in names])
    else:
        conn.executemany("DELETE FROM hub_outbox WHERE id > ? AND kind = 'rater' AND "
                         "annotator = ?", [(after, name) for name in names])


def drop_pulled_ratings(conn: sqlite3.Connection, after: int) -> None:
    """The ratings queued after `after` whose value is the hub's copy (a pull wrote them)."""
    conn.execute(PRUNE_QUEUED, (after, after))


def drop_pulled_others(conn: sqlite3.Connection, after: int) -> None:
    """The rows after `after` of anything but ratings (a pull's own writes)."""
    conn.execute("DELETE FROM hub_outbox WHERE id > ? AND kind <> 'rating'", (after,))


# ----------------------------------------------------------------- the hub's copies
def keep_hub_ratings(conn: sqlite3.Connection, rows: Iterable[Sequence]) -> None:
    """The hub's values of ratings: (item id, annotator, code, note, skipped)."""
    conn.executemany("INSERT OR REPLACE INTO hub_ratings VALUES (?,?,?,?,?)",
                     [(r[0], r[1], r[2], r[3], int(r[4])) for r in rows])


def take_as_uploaded(conn: sqlite3.Connection, since: float) -> None:
    """Every rating of the file taken as the hub's copy (a publish uploaded them), but those
    edited since `since` (during the upload): they get no copy and are queued instead."""
    copy_ratings_as_hub(conn)
    late = conn.execute("SELECT r.item_ord, r.annotator_id, i.id, a.name FROM ratings r "
                        "JOIN items i ON i.ord = r.item_ord JOIN annotators a "
                        "ON a.id = r.annotator_id WHERE r.updated_at >= ?", (since,)).fetchall()
    forget_hub_ratings(conn, [(item, name) for _, _, item, name in late])
    queue_ratings(conn, [(o, a, i, n, time.time()) for o, a, i, n in late])


def copy_ratings_as_hub(conn: sqlite3.Connection) -> None:
    """Every rating of the file taken as the hub's copy (a publish uploaded them)."""
    conn.execute("INSERT OR REPLACE INTO hub_ratings SELECT i.id, a.name, r.code, r.note, "
                 "r.skipped FROM ratings r JOIN items i ON i.ord = r.item_ord "
                 "JOIN annotators a ON a.id = r.annotator_id")


def forget_hub_ratings(conn: sqlite3.Connection, keys: Iterable[tuple[str, str]]) -> None:
    """No hub copy of these (item id, annotator) any more."""
    conn.executemany("DELETE FROM hub_ratings WHERE item_id = ? AND annotator = ?", keys)
