"""Reading a replica's values, its copies of the hub's values, and its outbox.

The outbox: triggers (replica.py) leave a row in `hub_outbox` for every write of a rating,
an adjudication, an exclusion or a machine rater, whatever wrote it and whenever (also while
a round applies its pull), keyed by names. A round sends the keys whose value differs from
the replica's copy of the hub's, with the time this machine made the change; the outbox
rows it read go once the hub has taken them (sync.py). A key whose newest outbox row is an
undo's goes out as an undo: the hub takes it only over the value this machine last saw
there (its copy), so a newer value made on another machine stays (exchange.py).
"""

from __future__ import annotations

import sqlite3

from simrate.core.project import Project

#: Above this many keys a whole table is read once instead of one query per key.
BULK_KEYS = 400

ABSENT_RATING = (None, "", 0)


def local_ratings(project: Project, keys: list[tuple[str, str]]
                  ) -> dict[tuple[str, str], tuple]:
    """{(item_id, annotator): (code, note, skipped, seconds, updated_at)} for these keys."""
    if not keys:
        return {}
    sql = ("SELECT i.id, a.name, r.code, r.note, r.skipped, r.seconds, r.updated_at "
           "FROM ratings r JOIN items i ON i.ord = r.item_ord "
           "JOIN annotators a ON a.id = r.annotator_id")
    if len(keys) > BULK_KEYS:
        wanted = set(keys)
        return {(r[0], r[1]): tuple(r[2:]) for r in project.team_tables.read(sql)
                if (r[0], r[1]) in wanted}
    found = {}
    for item_id, annotator in keys:
        rows = project.team_tables.read(sql + " WHERE i.id = ? AND a.name = ?", (item_id, annotator))
        if rows:
            found[(item_id, annotator)] = tuple(rows[0][2:])
    return found


def hub_copies(project: Project, table: str, keys: list) -> dict:
    """The replica's copies of hub values for these keys: {key: values tuple}."""
    if not keys:
        return {}
    columns = {"hub_ratings": ("item_id, annotator", "code, note, skipped", 2),
               "hub_adjudications": ("item_id", "code, note", 1),
               "hub_annotators": ("name", "excluded", 1)}[table]
    key_cols, value_cols, width = columns
    if not project.team_tables.read("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)):
        return {}
    sql = f"SELECT {key_cols}, {value_cols} FROM {table}"
    if len(keys) > BULK_KEYS:
        wanted = set(keys)
        rows = project.team_tables.read(sql)
    else:
        wanted = None
        where = " AND ".join(f"{c.strip()} = ?" for c in key_cols.split(","))
        rows = []
        for key in keys:
            rows.extend(project.team_tables.read(f"{sql} WHERE {where}", key if width > 1 else (key,)))
    found = {}
    for row in rows:
        key = tuple(row[:width]) if width > 1 else row[0]
        if wanted is None or key in wanted:
            found[key] = tuple(row[width:])
    return found


def adjudication_values(project: Project) -> dict[str, tuple]:
    """{item_id: (code, note, by, at)} of the replica's adjudications."""
    return {r[0]: tuple(r[1:]) for r in project.team_tables.read(
        "SELECT i.id, d.code, d.note, d.by, d.at FROM adjudications d "
        "JOIN items i ON i.ord = d.item_ord")}


def annotator_values(project: Project) -> dict[str, int]:
    """{name: excluded} of the replica's annotators."""
    return dict(project.team_tables.read("SELECT name, excluded FROM annotators"))

#: The queued ratings whose local value differs from the hub's copy (absent on either side
#: counts as no score, no note, not skipped), with the time this machine made the change
#: (the later of the row's `updated_at` and its outbox time), the newest outbox id, whether
#: that row is an undo's, and the hub's copy (the value an undo may replace).
CHANGED_RATINGS = """
SELECT q.item_id, q.annotator, r.code, COALESCE(r.note, ''), COALESCE(r.skipped, 0),
       r.seconds, max(COALESCE(r.updated_at, 0), q.at), q.last, l.undo,
       h.code, COALESCE(h.note, ''), COALESCE(h.skipped, 0)
FROM (SELECT item_id, annotator, max(at) AS at, max(id) AS last FROM hub_outbox
      WHERE id <= ? AND kind = 'rating' GROUP BY item_id, annotator) q
JOIN hub_outbox l ON l.id = q.last
LEFT JOIN items i ON i.id = q.item_id
LEFT JOIN annotators a ON a.name = q.annotator
LEFT JOIN ratings r ON r.item_ord = i.ord AND r.annotator_id = a.id
LEFT JOIN hub_ratings h ON h.item_id = q.item_id AND h.annotator = q.annotator
WHERE (r.code IS NOT h.code OR COALESCE(r.note, '') <> COALESCE(h.note, '')
   OR COALESCE(r.skipped, 0) <> COALESCE(h.skipped, 0))
"""

#: The same for adjudications: item_id, code, note, by, made at, last id, undo, copy.
CHANGED_VERDICTS = """
SELECT q.item_id, d.code, COALESCE(d.note, ''), COALESCE(d.by, ''),
       max(COALESCE(d.at, 0), q.at), q.last, l.undo, h.code, COALESCE(h.note, '')
FROM (SELECT item_id, max(at) AS at, max(id) AS last FROM hub_outbox
      WHERE id <= ? AND kind = 'adjudication' GROUP BY item_id) q
JOIN hub_outbox l ON l.id = q.last
LEFT JOIN items i ON i.id = q.item_id
LEFT JOIN adjudications d ON d.item_ord = i.ord
LEFT JOIN hub_adjudications h ON h.item_id = q.item_id
WHERE d.code IS NOT h.code OR (d.code IS NOT NULL AND COALESCE(d.note, '') <> COALESCE(h.note, ''))
"""

#: The same for exclusions: name, excluded, made at, last id, undo, copy.
CHANGED_EXCLUSIONS = """
SELECT q.annotator, a.excluded, q.at, q.last, l.undo, h.excluded
FROM (SELECT annotator, max(at) AS at, max(id) AS last FROM hub_outbox
      WHERE id <= ? AND kind = 'exclude' GROUP BY annotator) q
JOIN hub_outbox l ON l.id = q.last
JOIN annotators a ON a.name = q.annotator
LEFT JOIN hub_annotators h ON h.name = q.annotator
WHERE h.excluded IS NOT a.excluded
"""

QUEUED_MACHINES = """
SELECT DISTINCT annotator, max(id) FROM hub_outbox WHERE id <= ? AND kind = 'machine'
GROUP BY annotator
"""


def queued_upto(project: Project) -> int:
    """The newest outbox id now (a round reads up to it)."""
    return project.team_tables.read("SELECT COALESCE(max(id), 0) FROM hub_outbox")[0][0]


def changed_ratings(project: Project, upto: int, only: str | None = None) -> list[tuple]:
    """(item_id, annotator, code, note, skipped, seconds, made at, outbox id, undo, copy's
    code, note, skipped) of the queued ratings the hub's copy lacks; `only`: of that
    annotator alone (an annotator's replica sends only the person's own)."""
    sql, params = CHANGED_RATINGS, (upto,) if only is None else (upto, only)
    if only is not None:
        sql += " AND q.annotator = ?"
    return [(item_id, name, code, note, bool(skipped), seconds, float(at), last, bool(undo),
             hub_code, hub_note, bool(hub_skipped))
            for (item_id, name, code, note, skipped, seconds, at, last, undo, hub_code,
                 hub_note, hub_skipped) in project.team_tables.read(sql, params)]


def changed_verdicts(project: Project, upto: int) -> list[tuple]:
    """(item_id, code, note, by, made at, outbox id, undo, copy's code, note)."""
    return [(i, c, n, b, float(at), last, bool(undo), hc, hn)
            for i, c, n, b, at, last, undo, hc, hn
            in project.team_tables.read(CHANGED_VERDICTS, (upto,))]


def changed_exclusions(project: Project, upto: int) -> list[tuple]:
    """(name, excluded, made at, outbox id, undo, copy's excluded or None)."""
    return [(name, bool(excluded), float(at), last, bool(undo),
             None if copy is None else bool(copy))
            for name, excluded, at, last, undo, copy
            in project.team_tables.read(CHANGED_EXCLUSIONS, (upto,))]


QUEUED_RATERS = """
SELECT o.annotator, a.kind, max(o.id) FROM hub_outbox o JOIN annotators a ON a.name = o.annotator
WHERE o.id <= ? AND o.kind = 'rater' GROUP BY o.annotator
"""


def queued_raters(project: Project, upto: int) -> list[tuple]:
    """(name, kind, outbox id) of the people and crowd workers added here and still here
    (an undone import's rater is gone: only its clears travel)."""
    return [tuple(r) for r in project.team_tables.read(QUEUED_RATERS, (upto,))]


def queued_machines(project: Project, upto: int) -> list[tuple]:
    """(name, outbox id) of machine raters added here and not yet taken by the hub."""
    return [tuple(r) for r in project.team_tables.read(QUEUED_MACHINES, (upto,))]


#: Meta key: seconds this machine's clock was ahead of the hub's at the last round.
CLOCK_OFFSET = "hub_clock_offset"


def clock_offset(project: Project) -> float:
    """This machine's clock minus the hub's, as the last round measured it (0 before one):
    subtracted from this machine's edit times wherever they meet the hub's."""
    try:
        value = float(project.meta(CLOCK_OFFSET) or 0.0)
    except ValueError:
        return 0.0
    return value if abs(value) < 10 * 365 * 86400 else 0.0  # a stored value gone wrong


def queued_times(project: Project, kind: str, keys: list) -> dict:
    """{key: when this machine last changed it} from the outbox; keys are (item_id,
    annotator) for ratings, item ids for adjudications, names for exclusions."""
    if not keys:
        return {}
    key = {"rating": "item_id, annotator", "adjudication": "item_id",
           "exclude": "annotator"}[kind]
    wanted = set(keys)
    width = key.count(",") + 1
    rows = project.team_tables.read(
        f"SELECT {key}, max(at) FROM hub_outbox WHERE kind = ? GROUP BY {key}", (kind,))
    found = {}
    for row in rows:
        k = tuple(row[:width]) if width > 1 else row[0]
        if k in wanted:
            found[k] = float(row[width])
    return found


def items_on_hub_upto(conn: sqlite3.Connection, pulled: set[str]) -> int:
    """The highest ord up to which every item is on the hub (inside a write transaction):
    the items known before, then those the pull brought; not past an item imported here
    meanwhile (by another program while the pull was applied), which the next round must
    still send."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'hub_item_ord'").fetchone()
    known = int(float(row[0])) if row else -1
    for ord_, item_id in conn.execute("SELECT ord, id FROM items WHERE ord > ? ORDER BY ord",
                                      (known,)):
        if item_id not in pulled:
            break
        known = ord_
    return known
