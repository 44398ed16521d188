"""Bulk reads of a project file as pandas tables (the Project's read side)."""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from simrate.core.base.events import RatingState, Verdict
from simrate.core.base.scale import Scale
from simrate.core.data.columns import read_codes
from simrate.core.data.item_index import ItemIndex

ITEM_FRAME_COLUMNS = ["item_id", "ord", "left", "right", "dataset", "genre", "reference", "meta"]
RATING_FRAME_COLUMNS = [
    "item_id", "annotator", "code", "score", "note", "skipped", "seconds", "updated_at",
]
_ITEM_SQL = "SELECT id, ord, left, right, dataset, genre, reference, meta FROM items"


@contextlib.contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """Every read inside sees the file as one state: a read transaction (WAL keeps other
    processes' commits out of it until it ends). Inside one already, nothing changes."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")  # nothing was written: this only ends the read


def read_items(conn: sqlite3.Connection, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """All items in order: item_id, ord, left, right, dataset, genre, reference, meta (dict);
    with `columns`, item_id and those only (a million items' texts without their meta read
    in half the time)."""
    names = ITEM_FRAME_COLUMNS if columns is None else ["item_id", *columns]
    unknown = set(names) - set(ITEM_FRAME_COLUMNS)
    if unknown:
        raise ValueError(f"no item column {sorted(unknown)}")
    fields = ", ".join("id" if name == "item_id" else name for name in names)
    rows = conn.execute(f"SELECT {fields} FROM items ORDER BY ord").fetchall()
    frame = pd.DataFrame.from_records(rows, columns=names)
    if "reference" in frame:
        frame["reference"] = frame["reference"].astype("float64")
    if "meta" in frame:
        loads = json.loads
        frame["meta"] = [loads(m) if isinstance(m, str) and m else {} for m in frame["meta"]]
    return frame


def read_item(conn: sqlite3.Connection, ord_: int) -> dict:
    """One item as a dict with the keys of `read_items`."""
    row = conn.execute(_ITEM_SQL + " WHERE ord = ?", (ord_,)).fetchone()
    item = dict(zip(ITEM_FRAME_COLUMNS, row, strict=True))
    item["meta"] = json.loads(item["meta"]) if item["meta"] else {}
    return item


def _names_by_id(conn: sqlite3.Connection) -> np.ndarray:
    names = dict(conn.execute("SELECT id, name FROM annotators"))
    by_id = np.empty(max(names, default=0) + 1, dtype=object)
    for aid, name in names.items():
        by_id[aid] = name
    return by_id


def read_ratings(conn: sqlite3.Connection, index: ItemIndex, scale: Scale) -> pd.DataFrame:
    """All ratings: item_id, annotator, code, score, note, skipped, seconds, updated_at."""
    rows = conn.execute(
        "SELECT item_ord, annotator_id, code, note, skipped, seconds, updated_at "
        "FROM ratings ORDER BY item_ord, annotator_id"
    ).fetchall()
    table = np.array(rows, dtype=object).reshape(len(rows), 7)  # fast column split
    code = table[:, 2].astype(np.float64)  # NULL (skipped) -> nan
    return pd.DataFrame({
        "item_id": index.ids_for_ords(table[:, 0].astype(np.int64)),
        "annotator": _names_by_id(conn)[table[:, 1].astype(np.int64)],
        "code": pd.array(code, dtype="Float64").astype("Int64"),
        "score": scale.values_of(code),
        "note": pd.Series(table[:, 3], dtype=object),
        "skipped": table[:, 4].astype(bool),
        "seconds": table[:, 5].astype(np.float64),
        "updated_at": table[:, 6].astype(np.float64),
    })


def read_annotator_columns(conn: sqlite3.Connection, index: ItemIndex, n_codes: int,
                           aid: int | None) -> tuple[np.ndarray, ...]:
    """One annotator's ratings as arrays: (item positions, codes with -1 for none, skipped,
    seconds with NaN where none was recorded); what a rating window starts from."""
    if aid is None:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty.astype(bool), empty.astype(np.float64)
    mine = read_codes(conn, n_codes, "annotator_id = ?", (aid,))
    rows = index.rows_for_ords(mine.ords)
    skipped = np.isin(mine.ords, np.array([r[0] for r in conn.execute(
        "SELECT item_ord FROM ratings WHERE annotator_id = ? AND skipped != 0", (aid,))],
        dtype=np.int64))
    seconds = np.full(len(mine), np.nan)
    timed = conn.execute("SELECT item_ord, seconds FROM ratings WHERE annotator_id = ? AND "
                         "seconds IS NOT NULL ORDER BY item_ord", (aid,)).fetchall()
    if timed:
        ords, values = np.array(timed, dtype=np.float64).T
        seconds[np.searchsorted(mine.ords, ords.astype(np.int64))] = values
    return rows, mine.codes, skipped, seconds


def read_rating_state(conn: sqlite3.Connection, ord_: int, aid: int | None) -> RatingState:
    """One annotator's stored state for one item (empty when there is none)."""
    if aid is None:
        return RatingState()
    row = conn.execute("SELECT code, note, skipped, seconds FROM ratings "
                       "WHERE item_ord = ? AND annotator_id = ?", (ord_, aid)).fetchone()
    return RatingState() if row is None else RatingState(row[0], row[1] or "", bool(row[2]), row[3])


def read_verdict(conn: sqlite3.Connection, ord_: int) -> Verdict:
    """An item's stored verdict (code None when there is none)."""
    row = conn.execute("SELECT code, note FROM adjudications WHERE item_ord = ?",
                       (ord_,)).fetchone()
    return Verdict() if row is None else Verdict(row[0], row[1] or "")


def read_adjudications(conn: sqlite3.Connection, index: ItemIndex, scale: Scale) -> pd.DataFrame:
    """Adjudications: item_id, code, score, note, by, at."""
    rows = conn.execute(
        "SELECT item_ord, code, note, by, at FROM adjudications ORDER BY item_ord").fetchall()
    frame = pd.DataFrame.from_records(rows, columns=["ord", "code", "note", "by", "at"])
    ords = frame.pop("ord").to_numpy(dtype=np.int64)
    frame.insert(0, "item_id", index.ids_for_ords(ords) if len(ords) else [])
    frame["code"] = frame["code"].astype("int64")
    frame.insert(2, "score", scale.values_of(frame["code"].to_numpy(dtype=np.float64)))
    return frame


def read_gold_inputs(conn: sqlite3.Connection, index: ItemIndex,
                     scale: Scale) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, ratings) with only what gold needs, read in bulk for large exports.

    items: item_id, dataset, genre, left, right in project order; ratings: item_id,
    annotator, score, updated_at, row (position in items) of every rating with a score.
    Text columns are plain object columns: converting 200,000 strings to pandas' string
    dtype costs seconds.
    """
    names = ["item_id", "dataset", "genre", "left", "right"]
    rows = conn.execute("SELECT id, dataset, genre, left, right FROM items ORDER BY ord").fetchall()
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
    items = pd.DataFrame({n: pd.Series(c, dtype=object)
                          for n, c in zip(names, columns, strict=True)})
    rows = conn.execute("SELECT item_ord, annotator_id, code, updated_at FROM ratings "
                        "WHERE code IS NOT NULL").fetchall()
    table = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.float64,
                        count=4 * len(rows)).reshape(len(rows), 4)
    ords = table[:, 0].astype(np.int64)
    ratings = pd.DataFrame({
        "item_id": pd.Series(index.ids_for_ords(ords), dtype=object),
        "annotator": pd.Series(_names_by_id(conn)[table[:, 1].astype(np.int64)], dtype=object),
        "score": scale.values_of(table[:, 2]),
        "updated_at": table[:, 3],
        # the item's row in `items`, sparing gold a string lookup per rating
        "row": index.rows_for_ords(ords),
    })
    return items, ratings


def read_changes(conn: sqlite3.Connection) -> pd.DataFrame:
    """The append-only change log: id, at, who, kind, item_id, annotator, old, new."""
    rows = conn.execute(
        "SELECT id, at, who, kind, item_id, annotator, old, new FROM changes ORDER BY id"
    ).fetchall()
    columns = ["id", "at", "who", "kind", "item_id", "annotator", "old", "new"]
    data = {name: [r[i] for r in rows] for i, name in enumerate(columns)}
    for col in ("old", "new"):
        data[col] = [json.loads(v) if v is not None else None for v in data[col]]
    return pd.DataFrame({c: pd.Series(data[c], dtype=object) for c in columns})


def read_adjudication_inputs(conn: sqlite3.Connection
                             ) -> tuple[dict[int, int], list[tuple[int, int, int]]]:
    """What the flag index needs besides the scores: {ord: code} of every adjudication, and
    (ord, annotator id, code) of the scores saved after their item's adjudication (the
    candidates for a second look)."""
    adjudicated = dict(conn.execute("SELECT item_ord, code FROM adjudications"))
    late = conn.execute(
        "SELECT r.item_ord, r.annotator_id, r.code FROM ratings r JOIN adjudications a "
        "ON a.item_ord = r.item_ord WHERE r.code IS NOT NULL AND r.updated_at > a.at"
    ).fetchall()
    return adjudicated, late


def read_scope_columns(conn: sqlite3.Connection, index: ItemIndex, n_codes: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], list[str]]:
    """(item position, annotator id, code) of every score as arrays, then each item's
    dataset and genre in project order: what the per-scope sums are built from."""
    scores = read_codes(conn, n_codes, "code IS NOT NULL")
    groups = conn.execute("SELECT dataset, genre FROM items ORDER BY ord").fetchall()
    return (index.rows_for_ords(scores.ords), scores.aids, scores.codes,
            [g[0] for g in groups], [g[1] for g in groups])
