"""Adding a reader's items to a project on arrays, and undoing such an import.

An import appends items with consecutive ords, so the rows it wrote are named exactly by
its first ord and its count, kept in its one change-log entry. Each source path is stored
once, in the `sources` table.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import line_at
from simrate.core.base.names import hidden_character, text_problem
from simrate.core.data.changelog import inserted_id

#: Items written between two calls of an import's progress callback.
INSERT_CHUNK = 20_000
_INSERT = ("INSERT INTO items (ord, id, left, right, dataset, genre, reference, meta, source_id) "
           "VALUES (?,?,?,?,?,?,?,?,?)")


def source_id(conn: sqlite3.Connection, source: str) -> int | None:
    """The id of a source path in the `sources` table, adding it (None for no source)."""
    if not source:
        return None
    row = conn.execute("SELECT id FROM sources WHERE path = ?", (source,)).fetchone()
    if row is not None:
        return int(row[0])
    return inserted_id(conn.execute("INSERT INTO sources (path) VALUES (?)", (source,)))


def _stored_ids(conn: sqlite3.Connection, ids: np.ndarray) -> np.ndarray:
    """Mask of the ids that the project already holds."""
    held = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
    if not held:
        return np.zeros(ids.size, dtype=bool)
    stored = [r[0] for r in conn.execute("SELECT id FROM items")]
    return pd.Index(stored, dtype=object).get_indexer(ids) >= 0


def _stored_texts(conn: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for start in range(0, len(ids), 900):
        chunk = ids[start:start + 900]
        marks = ",".join("?" * len(chunk))
        for item_id, left, right in conn.execute(
                f"SELECT id, left, right FROM items WHERE id IN ({marks})", chunk):
            found[item_id] = (left, right)
    return found


def check_present(conn: sqlite3.Connection, frame: pd.DataFrame, source: str) -> np.ndarray:
    """Mask of the rows already in the project with the same texts; SimrateError (with
    the line) for the first one stored with other texts."""
    ids = frame["item_id"].to_numpy(dtype=object)
    present = _stored_ids(conn, ids)
    rows = np.flatnonzero(present)
    if rows.size:
        texts = _stored_texts(conn, ids[rows].tolist())
        left, right = frame["left"].to_numpy(dtype=object), frame["right"].to_numpy(dtype=object)
        for row in rows.tolist():
            if texts[ids[row]] != (left[row], right[row]):
                raise SimrateError(f"item {ids[row]!r} is already in the project with other "
                                   "texts", source or None, line_at(frame, row))
    return present


def check_texts(frame: pd.DataFrame, source: str) -> None:
    """SimrateError (with the line) for the first item whose id or either text is empty or
    only white space: the rule of every reader, so that an export reads back."""
    for column, what in (("item_id", "id"), ("left", "left text"), ("right", "right text")):
        values = frame[column].tolist()
        bad = [k for k, v in enumerate(values) if not isinstance(v, str) or not v or v.isspace()]
        if bad:
            row = bad[0]
            item = frame["item_id"].iat[row]
            name = f"item {item!r}: " if column != "item_id" and isinstance(item, str) else ""
            raise SimrateError(f"{name}the {what} is empty or only white space",
                               source or None, line_at(frame, row))
    # Ids go into one-line listings and are typed on command lines: no line breaks, tabs,
    # zero-width or bidi characters (a file's dataset column is data, kept as written).
    values = frame["item_id"].tolist()
    if not all(isinstance(v, str) and v.isprintable() for v in values):
        for row, value in enumerate(values):
            if isinstance(value, str) and hidden_character(value) is not None:
                raise SimrateError(text_problem(value, "item id") or "item id", source or None,
                                   line_at(frame, row))


def check_references(frame: pd.DataFrame, low: float, high: float, describe: str,
                     source: str) -> None:
    """SimrateError (with the line) for the first reference score that is not a finite
    number within the scale's range: the one rule for references of every format."""
    reference = frame["reference"].astype("float64").to_numpy()
    bad = np.flatnonzero(np.isinf(reference) | (reference < low - 1e-9)
                         | (reference > high + 1e-9))
    if bad.size:
        row = int(bad[0])
        value = float(reference[row])
        why = ("is not a finite number" if np.isinf(value)
               else f"is outside the scale {describe} of this project")
        raise SimrateError(f"item {frame['item_id'].iat[row]!r}: the reference score "
                           f"{value:g} {why}", source or None, line_at(frame, row))


def insert_items(conn: sqlite3.Connection, frame: pd.DataFrame, source: str,
                 progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """Insert the rows of `frame` (none of them stored yet) after the last ord; returns
    (first ord, count). Their ids and texts are checked first (check_texts). `progress`
    (rows written, rows in all) is called after each INSERT_CHUNK rows."""
    first = conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM items").fetchone()[0]
    n = len(frame)
    if not n:
        return first, 0
    check_texts(frame, source)
    reference = frame["reference"].astype("float64").to_numpy()
    references = [None if math.isnan(value) else value for value in reference.tolist()]
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    metas = [dumps(m) if m else None for m in frame["meta"].tolist()]

    def text(column: str) -> list:
        return frame[column].fillna("").astype(object).tolist()

    rows = list(zip(
        range(first, first + n), frame["item_id"].tolist(), frame["left"].tolist(),
        frame["right"].tolist(), text("dataset"), text("genre"), references, metas,
        [source_id(conn, source)] * n, strict=True))
    for start in range(0, n, INSERT_CHUNK):  # one transaction still: chunks only to report
        conn.executemany(_INSERT, rows[start:start + INSERT_CHUNK])
        if progress is not None:
            progress(min(n, start + INSERT_CHUNK), n)
    return first, n


def undo_items_import(conn: sqlite3.Connection, first: int, count: int) -> int:
    """Remove the items an import added (ords first .. first+count-1); SimrateError when
    any of them has been rated, adjudicated or otherwise used since."""
    last = first + count
    for table in ("ratings", "adjudications", "check_items", "assignment", "crowd_tasks"):
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                              (table,)).fetchone()
        if exists and conn.execute(f"SELECT 1 FROM {table} WHERE item_ord >= ? AND "
                                   "item_ord < ? LIMIT 1", (first, last)).fetchone():
            raise SimrateError("cannot undo this import: some of its items have ratings or "
                               "other work since; undo that first")
    return conn.execute("DELETE FROM items WHERE ord >= ? AND ord < ?", (first, last)).rowcount


def blank_references(conn: sqlite3.Connection) -> int:
    """Take every item's reference score and metadata out (an annotator's replica keeps
    neither); the number of items changed."""
    return conn.execute("UPDATE items SET reference = NULL, meta = NULL "
                        "WHERE reference IS NOT NULL OR meta IS NOT NULL").rowcount
