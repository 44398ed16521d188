"""The network half of a sync round: push an outbox to the hub, pull what is new.

It touches no local file: it takes plain data (an Outbox and watermarks) and returns plain
data (a Received), so the window can run it on a pool thread while the GUI thread owns the
project. See sync.py for the local half and the rules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from app.core.team.hub.connection import HubError, explain

#: Rows fetched per query while pulling.
PAGE = 50_000

PULL_SQL = {
    "settings": "SELECT key, value, seq FROM simrate.settings",
    "items": 'SELECT id, "left", "right", dataset, genre, reference, meta, source, seq '
             "FROM simrate.items",
    # a hub made before machine raters travelled has no kind column: NULL there
    "annotators": "SELECT name, excluded, to_jsonb(a) ->> 'kind', seq FROM simrate.annotators a",
    "ratings": "SELECT item_id, annotator, code, note, skipped, seconds, updated_at, seq "
               "FROM simrate.ratings",
    "adjudications": "SELECT item_id, code, note, by, at, seq FROM simrate.adjudications",
}
#: An annotator's role may read no reference score, item metadata or source path (blind.py);
#: the rows keep their shape, with those left empty.
ANNOTATOR_PULL_SQL = {
    "items": 'SELECT id, "left", "right", dataset, genre, NULL::double precision, NULL::text, '
             "''::text, seq FROM simrate.items",
}
#: What an annotator's role may read; organizers pull every table.
ANNOTATOR_TABLES = ("settings", "items", "ratings")
ORGANIZER_TABLES = ("settings", "items", "annotators", "ratings", "adjudications")

UPSERT_RATING = """
INSERT INTO simrate.ratings AS r (item_id, annotator, code, note, skipped, seconds, updated_at)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (item_id, annotator) DO UPDATE SET code = EXCLUDED.code, note = EXCLUDED.note,
    skipped = EXCLUDED.skipped, seconds = EXCLUDED.seconds, updated_at = EXCLUDED.updated_at
WHERE (r.code, r.note, r.skipped) IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.note,
                                                    EXCLUDED.skipped)
"""
#: The hub's rows, for the keys just pushed, whose value is not the one pushed.
REFUSED_RATINGS = """
SELECT r.item_id, r.annotator, r.code, r.note, r.skipped, r.seconds, r.updated_at, r.seq
FROM simrate.ratings r
JOIN unnest(%s::text[], %s::text[], %s::integer[], %s::text[], %s::boolean[])
     AS k(item_id, annotator, code, note, skipped)
  ON r.item_id = k.item_id AND r.annotator = k.annotator
WHERE (r.code, r.note, r.skipped) IS DISTINCT FROM (k.code, k.note, k.skipped)
"""
UPSERT_ADJUDICATION = """
INSERT INTO simrate.adjudications AS a (item_id, code, note, by, at) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (item_id) DO UPDATE SET code = EXCLUDED.code, note = EXCLUDED.note,
    by = EXCLUDED.by, at = EXCLUDED.at
WHERE (a.code, a.note) IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.note)
"""
UPSERT_ANNOTATOR = """
INSERT INTO simrate.annotators AS a (name, excluded) VALUES (%s, %s)
ON CONFLICT (name) DO UPDATE SET excluded = EXCLUDED.excluded
WHERE a.excluded IS DISTINCT FROM EXCLUDED.excluded
"""
UPSERT_MACHINE = """
INSERT INTO simrate.annotators AS a (name, excluded, kind) VALUES (%s, false, 'machine')
ON CONFLICT (name) DO UPDATE SET kind = 'machine' WHERE a.kind <> 'machine'
"""
HAS_KIND = """
SELECT 1 FROM information_schema.columns
WHERE table_schema = 'simrate' AND table_name = 'annotators' AND column_name = 'kind'
"""
UPSERT_SETTING = """
INSERT INTO simrate.settings AS s (key, value) VALUES (%s, %s)
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE s.value <> EXCLUDED.value
"""
INSERT_ITEM = """
INSERT INTO simrate.items (ord, id, "left", "right", dataset, genre, reference, meta, source)
VALUES ((SELECT COALESCE(max(ord), -1) + 1 FROM simrate.items), %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (id) DO NOTHING
"""


@dataclass
class Outbox:
    """Local changes the hub has not acknowledged, each with the last change-log id behind it.

    ratings: (item_id, annotator, code, note, skipped, seconds, updated_at, outbox id), the
    keys of the replica's outbox up to `queued_upto` whose value the hub's copy lacks;
    adjudications: (item_id, code, note, by, at, change_id); annotators: (name, excluded,
    change_id); threshold: (value, change_id) or None; items: (item_id, left, right,
    dataset, genre, reference, meta, source, ord) of items the hub lacks.
    """

    since: int
    upto: int
    ratings: list[tuple] = field(default_factory=list)
    adjudications: list[tuple] = field(default_factory=list)
    annotators: list[tuple] = field(default_factory=list)
    threshold: tuple | None = None
    items: list[tuple] = field(default_factory=list)
    queued_upto: int = 0
    #: (name, change_id) of machine raters added here.
    machines: list[tuple] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Number of pending changes."""
        return (len(self.ratings) + len(self.adjudications) + len(self.annotators)
                + (self.threshold is not None) + len(self.items))


@dataclass
class Received:
    """What one exchange did: what the hub had already, what it took, what came back."""

    acked_before: int
    pushed: int
    rows: dict[str, list[tuple]]
    watermarks: dict[str, int]
    #: Pushed ratings the hub kept its own (later) value for, as it holds them (the shape
    #: of pulled ratings): edits of this machine that lost to a later edit.
    refused: list[tuple] = field(default_factory=list)
    #: Seconds this machine's clock is ahead of the hub's (negative: behind).
    clock_offset: float = 0.0

    @property
    def pulled(self) -> int:
        """Number of rows pulled."""
        return sum(len(rows) for rows in self.rows.values())


def exchange(conn: Any, replica: str, outbox: Outbox, marks: dict[str, int],
             organizer: bool, url: str = "") -> Received:
    """Push the outbox (once: rows the hub acknowledged before are left out), then pull."""
    import psycopg

    try:
        acked, pushed, refused = _push(conn, replica, outbox)
        tables = ORGANIZER_TABLES if organizer else ANNOTATOR_TABLES
        rows, new_marks = pull(conn, tables, marks, organizer)
        # a whole round (push and pull) went through: the team panel's "Last sync"
        conn.execute("UPDATE simrate.replicas SET last_seen = now() WHERE replica = %s",
                     (replica,))
        offset = clock_offset(conn)
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    return Received(acked, pushed, rows, new_marks, refused, offset)


def clock_offset(conn: Any) -> float:
    """Seconds this machine's clock is ahead of the hub's (ratings are ordered by the time
    their edits were made, so a clock far off decides conflicts wrongly)."""
    sent = time.time()
    hub_now = float(conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()[0])
    return (sent + time.time()) / 2 - hub_now


def _push(conn: Any, replica: str, outbox: Outbox) -> tuple[int, int, list[tuple]]:
    """One transaction: lock this replica's row, write what it has not acknowledged.

    Ratings are sent whatever the acknowledged id says: they are keyed by value and by the
    time each edit was made, so a second delivery changes nothing on the hub (an equal
    value is left alone, an older edit is refused there)."""
    with conn.transaction():
        conn.execute("INSERT INTO simrate.replicas (replica) VALUES (%s) "
                     "ON CONFLICT (replica) DO NOTHING", (replica,))
        row = conn.execute("SELECT acked FROM simrate.replicas WHERE replica = %s FOR UPDATE",
                           (replica,)).fetchone()
        if row is None:
            raise HubError("this file's replica id belongs to another login on the hub: "
                           "join again to make a replica of your own", "refused")
        acked = int(row[0])
        items = _write_items(conn, outbox.items)  # first: ratings refer to them
        pushed, refused = _write_ratings(conn, outbox.ratings)
        pushed += items if outbox.upto > acked else 0
        if outbox.upto > acked:  # else a round whose reply was lost delivered all of it
            pushed += _write(conn, outbox, acked)
        conn.execute("UPDATE simrate.replicas SET acked = %s, last_seen = now() "
                     "WHERE replica = %s", (max(outbox.upto, acked), replica))
    return acked, pushed, refused


def _write_ratings(conn: Any, ratings: list[tuple]) -> tuple[int, list[tuple]]:
    """Upsert the ratings; returns how many changed the hub, and the hub's rows for those
    it kept another value for (its trigger refuses an edit older than the one it holds)."""
    if not ratings:
        return 0, []
    with conn.cursor() as cur:
        cur.executemany(UPSERT_RATING, [r[:7] for r in ratings])
        changed = max(cur.rowcount, 0)
    refused = conn.execute(REFUSED_RATINGS, (
        [r[0] for r in ratings], [r[1] for r in ratings], [r[2] for r in ratings],
        [r[3] for r in ratings], [bool(r[4]) for r in ratings])).fetchall()
    return changed, [tuple(r) for r in refused]


def _write_items(conn: Any, items: list[tuple]) -> int:
    """Insert the items the hub lacks (an item it has is left alone); returns how many."""
    if items:
        with conn.cursor() as cur:
            cur.executemany(INSERT_ITEM, [r[:8] for r in items])
    return len(items)


def _write(conn: Any, outbox: Outbox, acked: int) -> int:
    """Write the outbox rows other than items and ratings newer than `acked`; returns how
    many."""
    adjudications = [r[:5] for r in outbox.adjudications if r[-1] > acked]
    annotators = [r[:2] for r in outbox.annotators if r[-1] > acked]
    machines = [r[:1] for r in outbox.machines if r[-1] > acked]
    with conn.cursor() as cur:
        if machines and cur.execute(HAS_KIND).fetchone():  # else: publish again to upgrade
            cur.executemany(UPSERT_MACHINE, machines)
        if annotators:
            cur.executemany(UPSERT_ANNOTATOR, annotators)
        if adjudications:
            cur.executemany(UPSERT_ADJUDICATION, adjudications)
        threshold = outbox.threshold
        if threshold is not None and threshold[1] > acked:
            cur.execute(UPSERT_SETTING, ("threshold", str(threshold[0])))
    return (len(adjudications) + len(annotators)
            + (threshold is not None and threshold[1] > acked))


def pull(conn: Any, tables: tuple[str, ...], marks: dict[str, int], organizer: bool = True
         ) -> tuple[dict[str, list[tuple]], dict[str, int]]:
    """Rows with a sequence number above each table's watermark, in sequence order."""
    queries = PULL_SQL if organizer else {**PULL_SQL, **ANNOTATOR_PULL_SQL}
    rows: dict[str, list[tuple]] = {}
    new_marks = dict(marks)
    for table in tables:
        found: list[tuple] = []
        mark = marks.get(table, 0)
        while True:
            page = conn.execute(f"{queries[table]} WHERE seq > %s ORDER BY seq LIMIT {PAGE}",
                                (mark,)).fetchall()
            found.extend(page)
            if page:
                mark = int(page[-1][-1])
            if len(page) < PAGE:
                break
        rows[table] = found
        new_marks[table] = mark
    return rows, new_marks
