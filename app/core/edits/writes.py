"""The one module whose SQL writes ratings, adjudications and exclusions of a project file.

Every route that changes them (the window, the API, bulk imports and their undo, package
merges, web studies on a file, hub pulls) calls these functions inside one transaction of
`Project.edit()` (app/core/edits/edit.py), which publishes one typed event per change after the
commit. The rules are written here once:

- one stamp rule, the later edit wins: a value's stamp is when its edit was made (a hub's
  value keeps its own), and an edit made here is always stamped after the value it
  replaces, so an edit made after seeing a value from another machine counts as the later
  one even when this machine's clock is behind;
- one change-log entry per change;
- a no-op writes nothing: a value equal to the stored one leaves the row, its stamp and
  the change log alone, and the caller publishes no event;
- an undo is an edit made now: its writes are marked in the hub's outbox (when the file is
  a replica), so that the hub takes them only over the value this machine last saw there
  (app/hub/link/push_others.py); a newer value from another machine stays.

tests/core/test_one_write_path.py fails when SQL that writes these tables appears in
any other module.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingState, Verdict
from simrate.core.base.rules import LATER_STAMP_STEP
from simrate.core.base.scale import Scale
from simrate.core.data import raters
from simrate.core.data.changelog import inserted_id, log_change
from simrate.core.data.tables import read_rating_state, read_verdict

#: Columns of a rating row as bulk imports write it (see insert_import_rows).
IMPORT_ROW = ("item_ord", "annotator_id", "code", "note", "seconds", "updated_at", "batch")


def stamp_after(conn: sqlite3.Connection, sql: str, key: tuple) -> float:
    """Now, or just after the stamp the row under `key` holds when that is not earlier."""
    at = time.time()
    prior = conn.execute(sql, key).fetchone()
    if prior is not None and prior[0] is not None and prior[0] >= at:
        at = prior[0] + LATER_STAMP_STEP  # the hub's web_rate: the same step
    return at


def write_rating(conn: sqlite3.Connection, scale: Scale, ord_: int, aid: int, item_id: str,
                 annotator: str, wanted: RatingState, expect: RatingState | None = None,
                 at: float | None = None, who: str = "") -> tuple[RatingState, RatingState]:
    """Write one rating and its change-log row inside the caller's transaction; a note of
    None keeps the stored note. Returns (old, new) states; new is old (the same object)
    when the value is the stored one: nothing was written.

    With `expect` (undo and redo: what the action left there), SimrateError when the stored
    rating is another one: a change the action did not make, which it must not overwrite.
    `at` is when the edit was made (a hub's rating keeps its own); by default now (see the
    module's stamp rule). `who` is logged as the author (default: the annotator).
    """
    old = read_rating_state(conn, ord_, aid)
    if expect is not None and not old.same_as(expect):
        raise SimrateError(f"{annotator}'s rating of {item_id!r} was changed elsewhere "
                           f"(to {_rating_words(old, scale)}) since this step; the newer "
                           "value stays and this step cannot be undone or redone")
    new = RatingState(wanted.code, old.note if wanted.note is None else wanted.note,
                      wanted.skipped, wanted.seconds)
    if new.same_as(old):
        return old, old  # a no-op writes nothing
    note_overwritten(conn, ord_, aid)
    if new.empty:
        conn.execute("DELETE FROM ratings WHERE item_ord = ? AND annotator_id = ?", (ord_, aid))
    else:
        if at is None:
            at = stamp_after(conn, "SELECT updated_at FROM ratings WHERE item_ord = ? AND "
                             "annotator_id = ?", (ord_, aid))
        conn.execute("INSERT OR REPLACE INTO ratings (item_ord, annotator_id, code, note, "
                     "skipped, seconds, updated_at) VALUES (?,?,?,?,?,?,?)",
                     (ord_, aid, new.code, new.note, int(new.skipped), new.seconds, at))

    def score(code: int | None) -> float | None:
        return None if code is None else scale.from_code(code)

    log_change(conn, "skip" if new.skipped else "rating", who, item_id, annotator,
               old=score(old.code), new=score(new.code), note_old=old.note or None,
               note_new=wanted.note)
    return old, new


def _rating_words(state: RatingState, scale: Scale) -> str:
    """`3.25`, `skipped` or `nothing`, for messages."""
    if state.skipped:
        return "skipped"
    if state.code is not None:
        return f"{scale.from_code(state.code):g}"
    return "a note only" if state.note else "nothing"


def write_verdict(conn: sqlite3.Connection, scale: Scale, ord_: int, item_id: str,
                  verdict: Verdict, by: str, expect: Verdict | None = None,
                  at: float | None = None) -> Verdict:
    """Write an item's verdict (code None withdraws) and its change-log row inside the
    caller's transaction; returns the verdict it replaced (equal to `verdict` when nothing
    was written). With `expect`, SimrateError when the stored verdict is another one (see
    write_rating); `at` as there."""
    old = read_verdict(conn, ord_)
    if expect is not None and (old.code, old.note) != (expect.code, expect.note):
        now = "none" if old.code is None else f"{scale.from_code(old.code):g}"
        raise SimrateError(f"the adjudication of {item_id!r} was changed elsewhere (to "
                           f"{now}) since this step; the newer value stays and this step "
                           "cannot be undone or redone")
    if (old.code, old.note if old.code is not None else "") == \
            (verdict.code, verdict.note if verdict.code is not None else ""):
        return old  # a no-op writes nothing
    if verdict.code is None:
        conn.execute("DELETE FROM adjudications WHERE item_ord = ?", (ord_,))
    else:
        if at is None:
            at = stamp_after(conn, "SELECT at FROM adjudications WHERE item_ord = ?", (ord_,))
        conn.execute("INSERT OR REPLACE INTO adjudications VALUES (?,?,?,?,?)",
                     (ord_, verdict.code, verdict.note, by, at))
    log_change(conn, "adjudication", by, item_id,
               old=None if old.code is None else scale.from_code(old.code),
               new=None if verdict.code is None else scale.from_code(verdict.code),
               note_old=old.note or None, note_new=verdict.note)
    return old


def write_exclusions(conn: sqlite3.Connection, names: Sequence[str], excluded: bool,
                     by: str, rule: dict | None = None, expect: bool | None = None
                     ) -> list[bool]:
    """Exclude (or count again) these annotators inside the caller's transaction, one
    change-log entry each (and `rule`, what decided it, once); returns their previous
    states. Those already in that state are left alone (a no-op writes nothing). With
    `expect`, SimrateError, nothing written, unless every one is still in that state."""
    old = [bool(conn.execute("SELECT excluded FROM annotators WHERE name = ?",
                             (name,)).fetchone()[0]) for name in names]
    moved = [n for n, was in zip(names, old, strict=True)
             if expect is not None and was != expect]
    if moved:
        now = "excluded" if not expect else "counted again"
        raise SimrateError(f"the exclusion of {moved[0]!r} was changed elsewhere ({now}) "
                           "since this step; the newer state stays and this step cannot be "
                           "undone or redone")
    changing = [n for n, was in zip(names, old, strict=True) if was != excluded]
    conn.executemany("UPDATE annotators SET excluded = ? WHERE name = ?",
                     [(int(excluded), name) for name in changing])
    for name in changing:
        # who: the organizer (never the excluded annotator, log_change's default)
        log_change(conn, "exclude", by or "unknown", annotator=name, old=not excluded,
                   new=excluded)
    if rule is not None and changing:
        log_change(conn, "exclude_rule", by or "unknown",
                   new={**rule, "annotators": list(changing), "excluded": excluded})
    return old


def insert_import_rows(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """Write a bulk import's rows (IMPORT_ROW, never skipped) inside its transaction; the
    import's one change-log entry is its caller's (ratings_import.write_arrays)."""
    conn.executemany("INSERT OR REPLACE INTO ratings (item_ord, annotator_id, code, note, "
                     "skipped, seconds, updated_at, batch) VALUES (?,?,?,?,0,?,?,?)", rows)


#: Rows a bulk import wrote that a single edit (or clear) changed since: undoing that import
#: is refused while they are listed (import_log.py). Made when first needed, like the team
#: tables; a file without it has none.
OVERWRITTEN_TABLE = ("CREATE TABLE IF NOT EXISTS import_overwritten (batch INTEGER NOT NULL, "
                     "item_ord INTEGER NOT NULL, annotator_id INTEGER NOT NULL, "
                     "PRIMARY KEY (batch, item_ord, annotator_id)) WITHOUT ROWID")


def note_overwritten(conn: sqlite3.Connection, ord_: int, aid: int) -> None:
    """Before a single edit of a rating: when a bulk import wrote the row as it stands,
    remember that a newer value replaces it (inside the edit's transaction)."""
    row = conn.execute("SELECT batch FROM ratings WHERE item_ord = ? AND annotator_id = ?",
                       (ord_, aid)).fetchone()
    if row is None or row[0] is None:
        return
    conn.execute(OVERWRITTEN_TABLE)
    conn.execute("INSERT OR IGNORE INTO import_overwritten VALUES (?,?,?)", (row[0], ord_, aid))


def overwritten_rows(conn: sqlite3.Connection, batch: int) -> list[tuple]:
    """(item id, annotator, code now or None, skipped now) of the rows import `batch` wrote
    that a single edit changed since."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'import_overwritten'"
                    ).fetchone() is None:
        return []
    return conn.execute(
        "SELECT i.id, a.name, r.code, COALESCE(r.skipped, 0) FROM import_overwritten o "
        "JOIN items i ON i.ord = o.item_ord JOIN annotators a ON a.id = o.annotator_id "
        "LEFT JOIN ratings r ON r.item_ord = o.item_ord AND r.annotator_id = o.annotator_id "
        "WHERE o.batch = ? ORDER BY o.item_ord, o.annotator_id", (batch,)).fetchall()


def undo_import_rows(conn: sqlite3.Connection, batch: int) -> tuple[int, int]:
    """Remove the rows an import wrote (as they still stand) and put back what it replaced
    where nothing newer took their place (inside the undo's transaction); (removed,
    restored). A restored row keeps its stamp; the hub's outbox marks it as an undo made
    now (see the module's docstring)."""
    removed = conn.execute("DELETE FROM ratings WHERE batch = ?", (batch,)).rowcount
    restored = conn.execute(
        "INSERT OR IGNORE INTO ratings (item_ord, annotator_id, code, note, skipped, seconds, "
        "updated_at, batch) SELECT item_ord, annotator_id, code, note, skipped, seconds, "
        "updated_at, was_batch FROM import_replaced WHERE batch = ?", (batch,)).rowcount
    return removed, restored


# ----------------------------------------------------------------- undo marks (hub outbox)
def _marks_undo(conn: sqlite3.Connection) -> bool:
    """True when the file is a replica whose outbox takes undo marks (the hub adapter made
    `undo_marks` with its trigger, app/hub/link/outbox.py)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'undo_marks'").fetchone() is not None


def undo_mark(conn: sqlite3.Connection) -> int:
    """Where an undo's writes begin in the hub's outbox (-1: the file is no replica)."""
    if not _marks_undo(conn):
        return -1
    return conn.execute("SELECT COALESCE(max(id), 0) FROM hub_outbox").fetchone()[0]


def mark_undo(conn: sqlite3.Connection, mark: int) -> None:
    """Note that the outbox rows written since `mark` are an undo's; the hub adapter's
    trigger marks them, in this same transaction (the core never writes the outbox)."""
    if mark >= 0:
        conn.execute("DELETE FROM undo_marks")
        conn.execute("INSERT INTO undo_marks (since) VALUES (?)", (mark,))


def insert_package_rows(conn: sqlite3.Connection, rows: Iterable[tuple]) -> None:
    """Copy an annotator's ratings (item_ord, annotator_id, code, note, skipped, seconds,
    updated_at) into a new package file, stamps kept (app/core/team/packages.py)."""
    conn.executemany("INSERT INTO ratings (item_ord, annotator_id, code, note, skipped, "
                     "seconds, updated_at) VALUES (?,?,?,?,?,?,?)", rows)


def insert_rater(conn: sqlite3.Connection, name: str, kind: str) -> int:
    """Add rater `name` (already checked, NFC) of `kind` with an id above every id ever
    given; returns the id. The caller has checked that no rater holds the key."""
    return inserted_id(conn.execute(
        f"INSERT INTO annotators (id, name, kind, key) SELECT "
        f"max(COALESCE(MAX(id), 0), {raters.TOP}) + 1, ?, ?, ? FROM annotators",
        (name, kind, raters.rater_key(name))))


def remove_unused_raters(conn: sqlite3.Connection, names: tuple[str, ...]) -> int:
    """Remove the annotators an undone import added, unless they have rated since."""
    removed = 0
    for name in names:
        removed += conn.execute(
            "DELETE FROM annotators WHERE name = ? AND NOT EXISTS (SELECT 1 FROM ratings "
            "WHERE annotator_id = annotators.id) AND NOT EXISTS (SELECT 1 FROM "
            "import_replaced WHERE annotator_id = annotators.id)", (name,)).rowcount
    return removed
