"""Merging a reader's ratings table into a project: check, classify, write (all or nothing).

Everything runs on arrays: the checks, the comparison with the ratings the project holds
and the write, which is one batched insert. The change log gets one entry per import
(source, counts, annotators); each row written carries that entry's id in `ratings.batch`
and each row it overwrote is kept in `import_replaced`, so `undo_ratings_import` removes
exactly what the import wrote and puts back what it replaced.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import RATING_COLUMNS, line_at, name_problem
from simrate.core.base.scale import Scale
from simrate.core.data.changelog import log_change
from simrate.core.data.columns import read_codes
from simrate.core.data.item_index import ItemIndex
from simrate.core.edits.roster import kind_clash
from simrate.core.edits.writes import insert_import_rows, undo_import_rows

#: Status codes of ArrayPlan.status, and their names in PlannedRating.status.
ADDED, UNCHANGED, NOTE, SCORE = 0, 1, 2, 3
STATUS_NAMES = ("added", "unchanged", "note", "score")


@dataclass(frozen=True)
class PlannedRating:
    """One rating of an incoming ratings table, checked and compared with the project.

    status: `added` (no score yet), `unchanged`, `note` (same score, a note the project
    lacks or holds otherwise) or `score` (the project holds another score).
    """

    item_id: str
    annotator: str
    code: int
    note: str
    line: int
    old_code: int | None
    old_note: str
    status: str


@dataclass
class ArrayPlan:
    """A checked ratings table as arrays, one entry per row of the file (see plan_arrays)."""

    item_ids: np.ndarray  # object
    names: list[str]  # distinct annotator names (stripped), in order of first appearance
    who: np.ndarray  # position in `names` per row
    ords: np.ndarray
    codes: np.ndarray
    notes: np.ndarray  # object
    lines: np.ndarray
    old_codes: np.ndarray  # -1: no score held (no row, or a skip)
    old_notes: np.ndarray  # object, "" when none
    has_old: np.ndarray  # bool: the project holds a row for this item and annotator
    status: np.ndarray  # ADDED / UNCHANGED / NOTE / SCORE
    seconds: np.ndarray  # float, NaN where the table gives no work time

    def counts(self) -> dict[str, int]:
        """added / changed / unchanged, as import_ratings reports them."""
        tally = np.bincount(self.status, minlength=4)
        return {"added": int(tally[ADDED]), "changed": int(tally[NOTE] + tally[SCORE]),
                "unchanged": int(tally[UNCHANGED])}


def _codes(scores: np.ndarray, scale: Scale) -> tuple[np.ndarray, np.ndarray]:
    """(codes, bad) with the rule of Scale.to_code applied to every score at once."""
    with np.errstate(invalid="ignore", over="ignore"):  # ±1e308: refused below, no warning
        steps = (scores - scale.low) / scale.step
        nearest = np.rint(steps)
        bad = ~np.isfinite(scores) | (scores < scale.low - 1e-9) | (scores > scale.high + 1e-9)
    codes = np.where(bad, 0, nearest).astype(np.int64)
    # exactly a grid value, as Scale.to_code asks: no tolerance, nothing rounded to the grid
    grid = scale.grid_values()  # and the `low + code * step` floats older exports wrote
    own = scale.low + np.arange(scale.n_codes) * scale.step
    chosen = np.clip(codes, 0, scale.n_codes - 1)
    bad |= ~((scores == grid[chosen]) | (scores == own[chosen]))
    return codes, bad


def _first_error(frame: pd.DataFrame, scale: Scale, where: str | None, row: int,
                 unknown: np.ndarray, bad: np.ndarray, key: np.ndarray) -> None:
    """Raise the error of one row, checking in the order of the rules (item, score, again)."""
    line = line_at(frame, row)
    item_id, annotator = frame["item_id"].iat[row], frame["annotator"].iat[row]
    if unknown[row]:
        raise SimrateError(f"no item with id {item_id!r} in the project", where, line)
    if bad[row]:
        try:
            scale.to_code(frame["score"].to_numpy()[row])
        except SimrateError as exc:
            raise SimrateError(exc.message, where, line) from None
    first = line_at(frame, int(np.flatnonzero(key == key[row])[0]))
    raise SimrateError(f"{annotator!r} rates item {item_id!r} again (first on line {first})",
                       where, line)


def _check_names(frame: pd.DataFrame, who: np.ndarray, raw_names: np.ndarray,
                 where: str | None) -> None:
    """SimrateError with the line of the first row whose annotator name is not allowed."""
    for position, name in enumerate(raw_names):
        problem = name_problem(str(name).strip())
        if problem:
            row = int(np.flatnonzero(who == position)[0])
            raise SimrateError(problem, where, line_at(frame, row))


def check_arrays(frame: pd.DataFrame, index: ItemIndex, scale: Scale, source: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(item positions, codes, annotator position per row, distinct raw names); SimrateError
    with the line of the first row that names an unknown item, gives a score off the scale
    or repeats a rating."""
    _check_columns(frame, source)
    positions = index.positions_of(frame["item_id"].to_numpy(dtype=object))
    codes, who, raw_names = _check_rows(frame, scale, source, positions, positions < 0)
    return positions, codes, who, raw_names


def check_values(frame: pd.DataFrame, scale: Scale, source: str) -> None:
    """The checks of `check_arrays` that need no project: every annotator name allowed,
    every score on the scale, no rating given twice (for items not in the project yet)."""
    _check_columns(frame, source)
    items, _ = pd.factorize(frame["item_id"].to_numpy(dtype=object), sort=False)
    _check_rows(frame, scale, source, items, np.zeros(len(frame), dtype=bool))


def _check_columns(frame: pd.DataFrame, source: str) -> None:
    missing = [c for c in RATING_COLUMNS if c not in frame.columns]
    if missing:
        raise SimrateError(f"ratings table lacks columns {missing}", source or None)


def _check_rows(frame: pd.DataFrame, scale: Scale, source: str, items: np.ndarray,
                unknown: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(codes, annotator position per row, distinct raw names), once no row fails a rule;
    `items` numbers the items (one number per item), `unknown` marks items not found."""
    codes, bad = _codes(frame["score"].to_numpy(dtype=np.float64, na_value=np.nan), scale)
    who, raw_names = pd.factorize(frame["annotator"].astype(str).to_numpy(dtype=object),
                                  sort=False)
    # one integer per (item, annotator); an unknown item never repeats (its own key)
    key = np.where(unknown, -1 - np.arange(len(frame)), items * max(1, len(raw_names)) + who)
    again = pd.Series(key).duplicated().to_numpy()
    _check_names(frame, who, raw_names, source or None)
    failing = np.flatnonzero(unknown | bad | again)
    if failing.size:
        _first_error(frame, scale, source or None, int(failing[0]), unknown, bad, key)
    return codes, who.astype(np.int64), [str(n) for n in raw_names]


def _held(conn: sqlite3.Connection, aids: list[int], n_codes: int
          ) -> tuple[np.ndarray, np.ndarray, dict[int, str], int]:
    """(keys ord * top + aid sorted, codes, {key: note} of notes, top) of these annotators."""
    marks = ",".join(str(int(a)) for a in aids)
    columns = read_codes(conn, n_codes, f"annotator_id IN ({marks})")
    top = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM annotators").fetchone()[0]
    keys = columns.ords * top + columns.aids
    notes = {o * top + a: n for o, a, n in conn.execute(
        f"SELECT item_ord, annotator_id, note FROM ratings WHERE annotator_id IN ({marks}) "
        "AND note != ''")}
    return keys, columns.codes, notes, top


def plan_arrays(conn: sqlite3.Connection, frame: pd.DataFrame, index: ItemIndex, scale: Scale,
                source: str, known: dict[str, int]) -> ArrayPlan:
    """Check a ratings table and classify each row against the ratings held for the same
    annotators (`known`: {name: id} of the project's annotators); writes nothing. A
    `seconds` column, when the table has one (crowd results), is the work time per row."""
    positions, codes, who, raw_names = check_arrays(frame, index, scale, source)
    names = [n.strip() for n in raw_names]
    ords = index.ords_at(positions)
    check_item_texts(conn, frame, ords, source)
    n = len(frame)
    old_codes, has_old = np.full(n, -1, np.int64), np.zeros(n, bool)
    old_notes = np.full(n, "", dtype=object)
    aid_of = np.array([known.get(name, -1) for name in names], dtype=np.int64)
    present = [int(a) for a in aid_of if a >= 0]
    if present and n:
        keys, held_codes, held_notes, top = _held(conn, present, scale.n_codes)
        row_aid = aid_of[who]
        want = np.where(row_aid >= 0, ords * top + row_aid, -1)
        if keys.size:
            at = np.minimum(np.searchsorted(keys, want), keys.size - 1)
            has_old = (row_aid >= 0) & (keys[at] == want)
            old_codes[has_old] = held_codes[at[has_old]]
        for row in np.flatnonzero(has_old):
            old_notes[row] = held_notes.get(int(want[row]), "")
    notes = frame["note"].fillna("").astype(str).to_numpy(dtype=object)
    status = _status(codes, notes, old_codes, old_notes, has_old)
    seconds = (frame["seconds"].to_numpy(dtype=np.float64, na_value=np.nan)
               if "seconds" in frame.columns else np.full(n, np.nan))
    return ArrayPlan(frame["item_id"].to_numpy(dtype=object), names, who, ords, codes, notes,
                     frame["line"].to_numpy(dtype=np.int64), old_codes, old_notes, has_old,
                     status, seconds)


def check_item_texts(conn: sqlite3.Connection, frame: pd.DataFrame, ords: np.ndarray,
                     source: str) -> None:
    """When the table shows each item's texts (`left`, `right` columns: a ratings file
    with text columns), SimrateError with the line of the first row whose texts are not
    those of the project's item of that id: its rating is about another pair."""
    if "left" not in frame.columns or "right" not in frame.columns or not len(frame):
        return
    left = frame["left"].fillna("").astype(str).to_numpy(dtype=object)
    right = frame["right"].fillna("").astype(str).to_numpy(dtype=object)
    shown = np.flatnonzero((left != "") | (right != ""))
    if not shown.size:
        return
    wanted = np.unique(ords[shown])
    stored: dict[int, tuple[str, str]] = {}
    for start in range(0, wanted.size, 500):
        chunk = wanted[start:start + 500].tolist()
        stored.update((o, (a, b)) for o, a, b in conn.execute(
            f"SELECT ord, left, right FROM items WHERE ord IN ({','.join('?' * len(chunk))})",
            chunk))
    for row in shown.tolist():
        held = stored.get(int(ords[row]))
        if held is not None and held != (left[row], right[row]):
            side = "left" if held[0] != left[row] else "right"
            raise SimrateError(f"item {frame['item_id'].iat[row]!r}: the file's {side} text "
                               "differs from the project's item of that id; nothing was "
                               "imported", source or None, line_at(frame, row))


def check_kinds(plan: ArrayPlan, kinds: dict[str, str], kind: str, source: str) -> None:
    """SimrateError, with the line of its first row, for a rater of the plan whose name is
    held by an annotator of another kind than `kind` (a ratings file naming a machine rater,
    a crowd worker taking a person's name): such ratings would be misattributed."""
    for position, name in enumerate(plan.names):
        held = kinds.get(name)
        if held is not None and held != kind:
            row = int(np.flatnonzero(plan.who == position)[0])
            raise SimrateError(kind_clash(name, held, kind), source or None,
                               int(plan.lines[row]))


def _status(codes: np.ndarray, notes: np.ndarray, old_codes: np.ndarray,
            old_notes: np.ndarray, has_old: np.ndarray) -> np.ndarray:
    """The rule of PlannedRating.status, on arrays."""
    no_note = notes == ""
    same_note = no_note | (notes == old_notes)
    status = np.full(codes.size, SCORE, dtype=np.int64)
    status[old_codes == codes] = NOTE
    status[old_codes < 0] = ADDED
    status[has_old & (old_codes == codes) & same_note] = UNCHANGED
    return status


def planned_list(plan: ArrayPlan) -> list[PlannedRating]:
    """The plan as one PlannedRating per row (for previews)."""
    return [PlannedRating(str(i), plan.names[w], int(c), str(nt), int(ln),
                          None if oc < 0 else int(oc), str(on), STATUS_NAMES[s])
            for i, w, c, nt, ln, oc, on, s in zip(
                plan.item_ids, plan.who.tolist(), plan.codes.tolist(), plan.notes,
                plan.lines.tolist(), plan.old_codes.tolist(), plan.old_notes,
                plan.status.tolist(), strict=True)]


def write_arrays(conn: sqlite3.Connection, plan: ArrayPlan, aids: list[int],
                 source: str, extra: dict | None = None) -> tuple[dict[str, int], int]:
    """Write the added and changed rows of a plan as one batch (inside the caller's
    transaction): one change-log entry (with `extra` facts for its undo), its id on every
    row written. Returns the counts and that id (0 when nothing was written)."""
    counts = plan.counts()
    row_aids = np.asarray(aids, dtype=np.int64)[plan.who]
    changing = np.flatnonzero(plan.status != UNCHANGED)
    if not changing.size:
        return counts, 0
    # in key order, every insert lands at the end of the table's B-tree: about 4x faster
    writing = changing[np.lexsort((row_aids[changing], plan.ords[changing]))]
    batch = log_change(conn, "import_ratings", who=source, new={
        "source": source, **counts, "annotators": sorted({plan.names[w] for w in
                                                          plan.who[writing].tolist()}),
        **(extra or {})})
    replacing = writing[plan.has_old[writing]]
    if replacing.size:
        conn.executemany(
            "INSERT INTO import_replaced (batch, item_ord, annotator_id, code, note, skipped, "
            "seconds, updated_at, was_batch) SELECT ?, item_ord, annotator_id, code, note, "
            "skipped, seconds, updated_at, batch FROM ratings WHERE item_ord = ? AND "
            "annotator_id = ?",
            zip([batch] * replacing.size, plan.ords[replacing].tolist(),
                row_aids[replacing].tolist(), strict=True))
    check_parents(conn, plan.ords[writing], np.asarray(aids, dtype=np.int64))
    notes = np.where(plan.notes[writing] == "", plan.old_notes[writing], plan.notes[writing])
    seconds = [None if s != s else s for s in plan.seconds[writing].tolist()]  # NaN: none
    now = time.time()
    insert_import_rows(conn, zip(plan.ords[writing].tolist(), row_aids[writing].tolist(),
                                  plan.codes[writing].tolist(), notes.tolist(), seconds,
                                  [now] * writing.size, [batch] * writing.size, strict=True))
    return counts, batch


def check_parents(conn: sqlite3.Connection, ords: np.ndarray, aids: np.ndarray) -> None:
    """What the foreign keys would check, for a whole batch at once (inside its transaction):
    every item (`ords`, ascending) and annotator written to exists. An item can be gone when
    another program undid an items import after this project read its index."""
    distinct = ords[np.r_[True, ords[1:] != ords[:-1]]] if ords.size else ords
    if distinct.size:
        low, high = int(distinct[0]), int(distinct[-1])
        found = conn.execute("SELECT COUNT(*) FROM items WHERE ord BETWEEN ? AND ?",
                             (low, high)).fetchone()[0]
        if found != high - low + 1:  # a gap in the ords: look each one up
            found = _count_present(conn, "items", "ord", distinct.tolist())
        if found < distinct.size:
            raise SimrateError("items this file rates were removed from the project while "
                               "it was being imported (by another window or program); "
                               "nothing was imported: import the file again")
    wanted = sorted(set(aids.tolist()))
    if _count_present(conn, "annotators", "id", wanted) < len(wanted):
        raise SimrateError("an annotator was removed from the project while the file was "
                           "being imported; nothing was imported: import the file again")


def _count_present(conn: sqlite3.Connection, table: str, key: str, values: list[int]) -> int:
    """How many of the (distinct) values are keys of the table."""
    found = 0
    for start in range(0, len(values), 500):
        chunk = values[start:start + 500]
        found += conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {key} IN "
                              f"({','.join('?' * len(chunk))})", chunk).fetchone()[0]
    return found


_SAME_KEY = ("p.batch = ? AND p.item_ord = import_replaced.item_ord "
             "AND p.annotator_id = import_replaced.annotator_id")


def undo_ratings_import(conn: sqlite3.Connection, batch: int) -> dict[str, int]:
    """Remove the rows a ratings import wrote (as they still stand) and put back the rows it
    replaced where nothing newer took their place; returns counts removed / restored.

    A restored row keeps the tag of the import that had written it, so undoing that import
    later removes it too. Rows of this import that a later import replaced are not in the
    ratings but in that import's `import_replaced`: there they become what this import had
    replaced (or go, where this import had added them), so that undoing the later import
    brings back nothing of this one."""
    removed, restored = undo_import_rows(conn, batch)  # app/core/edits/writes.py
    conn.execute(
        "UPDATE import_replaced SET (code, note, skipped, seconds, updated_at, was_batch) = "
        "(SELECT p.code, p.note, p.skipped, p.seconds, p.updated_at, p.was_batch FROM "
        f"import_replaced p WHERE {_SAME_KEY}) WHERE batch != ? AND was_batch = ? AND EXISTS "
        f"(SELECT 1 FROM import_replaced p WHERE {_SAME_KEY})", (batch, batch, batch, batch))
    conn.execute("DELETE FROM import_replaced WHERE batch != ? AND was_batch = ?",
                 (batch, batch))
    conn.execute("DELETE FROM import_replaced WHERE batch = ?", (batch,))
    return {"removed": removed, "restored": restored}
