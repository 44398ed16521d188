"""Columnar reads of the ratings table: integer arrays without a Python tuple per row.

Python's sqlite3 module builds a tuple and an int object per value, which costs more than
SQLite's own scan. Packing (item, annotator, code) into one integer in SQL and handing a
chunk of them over as one comma-separated text (group_concat), parsed by numpy, reads
three million ratings about three times faster. Integers are exact both ways. Outside a
transaction, a large file's chunks are read on up to four threads (_THREADS), each on its
own connection (SQLite runs outside Python's lock), and kept only when no other connection
committed meanwhile.
"""

from __future__ import annotations

import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.core.data.store import connect_for_reading

#: Items per group_concat chunk: bounds the size of one text (about 40 bytes per item).
_CHUNK_ITEMS = 250_000
#: From this many items on, chunks are read on several threads.
PARALLEL_FROM = 50_000
_THREADS = max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class CodeColumns:
    """Ratings as parallel arrays: item ord, annotator id, code (-1 where there is none)."""

    ords: np.ndarray
    aids: np.ndarray
    codes: np.ndarray

    def __len__(self) -> int:
        return int(self.ords.size)

    def take(self, mask: np.ndarray) -> CodeColumns:
        """The rows where mask is True (or at the given positions)."""
        return CodeColumns(self.ords[mask], self.aids[mask], self.codes[mask])


def _bounds(conn: sqlite3.Connection) -> tuple[int, int, int]:
    low, high = conn.execute("SELECT MIN(ord), MAX(ord) FROM items").fetchone()
    aid_top = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM annotators").fetchone()[0]
    return (0 if low is None else int(low)), (-1 if high is None else int(high)), int(aid_top)


def read_codes(conn: sqlite3.Connection, n_codes: int, where: str = "",
               params: tuple = ()) -> CodeColumns:
    """Every rating row (optionally filtered by `where`, SQL on the ratings table) as arrays,
    in (item, annotator) order; `n_codes` bounds the codes (the scale's number of points).
    Every part (bounds and chunks) comes from one state of the file."""
    span = n_codes + 2  # code + 1 in 0..n_codes+1, NULL as 0
    condition = f" AND ({where})" if where else ""
    path = conn.execute("PRAGMA database_list").fetchone()[2]
    if _THREADS > 1 and path and not conn.in_transaction:
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        low, high, aid_top = _bounds(conn)
        if high + 1 - low >= PARALLEL_FROM:
            try:
                texts = _read_in_parallel(Path(path), _sql(aid_top, span, condition),
                                          _chunks(low, high, _THREADS), params)
            except (sqlite3.Error, OSError, SimrateError):
                texts = None  # a reader could not open or read the file: read it here
            # kept only when no other connection committed since the version was read
            if texts is not None and conn.execute("PRAGMA data_version").fetchone()[0] == version:
                return _unpack(texts, span, aid_top)
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        low, high, aid_top = _bounds(conn)
        sql = _sql(aid_top, span, condition)
        texts = [conn.execute(sql, (*chunk, *params)).fetchone()[0]
                 for chunk in _chunks(low, high, 1)]
    finally:
        if own:
            conn.execute("COMMIT")
    return _unpack(texts, span, aid_top)


def _sql(aid_top: int, span: int, condition: str) -> str:
    """One chunk's ratings, each packed as one integer, as one comma-separated text."""
    packed = f"(item_ord * {aid_top} + annotator_id) * {span} + COALESCE(code, -1) + 1"
    return (f"SELECT group_concat({packed}) FROM ratings "
            f"WHERE item_ord >= ? AND item_ord < ?{condition}")


def _unpack(texts: list[str | None], span: int, aid_top: int) -> CodeColumns:
    parts = [np.fromstring(text, dtype=np.int64, sep=",") for text in texts if text]
    packed = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    # group_concat follows the scan, which is in primary key order; sorting makes sure
    packed.sort(kind="stable")
    codes = packed % span - 1
    pair = packed // span
    return CodeColumns(pair // aid_top, pair % aid_top, codes)


def _chunks(low: int, high: int, at_least: int) -> list[tuple[int, int]]:
    """[start, end) ranges of item ords covering low..high: at least `at_least` of them,
    none longer than _CHUNK_ITEMS."""
    count = max(at_least, -(-(high + 1 - low) // _CHUNK_ITEMS), 1)
    bounds = [low + (high + 1 - low) * k // count for k in range(count + 1)]
    return list(zip(bounds, bounds[1:], strict=False))


def _read_in_parallel(path: Path, sql: str, chunks: list[tuple[int, int]],
                      params: tuple) -> list[str | None]:
    """Each chunk's text, read on threads, each with a connection of its own."""
    def read(chunk: tuple[int, int]) -> str | None:
        reader = connect_for_reading(path)
        try:
            return reader.execute(sql, (*chunk, *params)).fetchone()[0]
        finally:
            reader.close()

    with ThreadPoolExecutor(_THREADS) as pool:
        return list(pool.map(read, chunks))


class ColumnCache:
    """One columnar read, kept for as long as the file is unchanged.

    SQLite tells exactly when that is: a connection's `total_changes` counts every row it
    wrote, and `PRAGMA data_version` moves with every commit of another connection. So the
    flags, the live engine and the per-scope sums, built one after the other, share one read.
    """

    def __init__(self) -> None:
        self._token: tuple[int, int] | None = None
        self._value = None

    def get(self, conn: sqlite3.Connection, read):
        """The kept value, or `read()` when the file changed since (or nothing is kept)."""
        token = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        if self._value is None or token != self._token:
            self._value, self._token = read(), token
        return self._value

    def clear(self) -> None:
        """Let the kept arrays go."""
        self._value = self._token = None
