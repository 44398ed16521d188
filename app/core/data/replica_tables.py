"""The tables a hub replica adds to its project file: the hub's last known values and the
outbox of changes not yet sent. They are part of the file (checked by core/check), so they
are defined here; the hub adapter (hub/link/replica.py) creates them and their triggers."""

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
-- scores pulled from a hub that let them in before it refused them (off the scale, or
-- skipped and scored), never stored as ratings or verdicts, only listed here
-- (hub/team/kept_out.py): kind 'rating' or 'verdict' (annotator '')
CREATE TABLE IF NOT EXISTS hub_kept_out (
    kind TEXT NOT NULL, item_id TEXT NOT NULL, annotator TEXT NOT NULL, code INTEGER,
    skipped INTEGER NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (kind, item_id, annotator)
) WITHOUT ROWID;
"""

OUTBOX_TABLE = """CREATE TABLE hub_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT, item_ord INTEGER NOT NULL,
    annotator_id INTEGER NOT NULL, at REAL NOT NULL)"""
#: Columns added to the outbox when every kind of change began to travel (issue 31): the
#: kind, the keys by name (an undone import's rater is gone from `annotators` by the time
#: the round reads the outbox) and whether the change is an undo's (core/edits/writes.py).
OUTBOX_COLUMNS = (("kind", "TEXT NOT NULL DEFAULT 'rating'"), ("item_id", "TEXT"),
                  ("annotator", "TEXT"), ("undo", "INTEGER NOT NULL DEFAULT 0"))

#: Where an undo's writes begin in the outbox (core/edits/writes.py writes it, in the
#: undo's transaction; the hub adapter's trigger marks the outbox rows after it).
UNDO_MARKS_TABLE = "CREATE TABLE IF NOT EXISTS undo_marks (since INTEGER NOT NULL)"
