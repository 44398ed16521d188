"""Columnar reads of the ratings table: integer arrays without a Python tuple per row.

Python's sqlite3 module builds a tuple and an int object per value, which costs more than
SQLite's own scan. Packing (item, annotator, code) into one integer in SQL and handing a
chunk of them over as one comma-separated text (group_concat), parsed by numpy, reads
three million ratings about three times faster. Integers are exact both ways.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

#: Items per group_concat chunk: bounds the size of one text (about 40 bytes per item).
_CHUNK_ITEMS = 250_000


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
    in (item, annotator) order; `n_codes` bounds the codes (the scale's number of points)."""
    low, high, aid_top = _bounds(conn)
    span = n_codes + 2  # code + 1 in 0..n_codes+1, NULL as 0
    packed_sql = f"(item_ord * {aid_top} + annotator_id) * {span} + COALESCE(code, -1) + 1"
    condition = f" AND ({where})" if where else ""
    parts = []
    for start in range(low, high + 1, _CHUNK_ITEMS):
        text = conn.execute(
            f"SELECT group_concat({packed_sql}) FROM ratings "
            f"WHERE item_ord >= ? AND item_ord < ?{condition}",
            (start, start + _CHUNK_ITEMS, *params)).fetchone()[0]
        if text:
            parts.append(np.fromstring(text, dtype=np.int64, sep=","))
    packed = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    # group_concat follows the scan, which is in primary key order; sorting makes sure
    packed.sort(kind="stable")
    codes = packed % span - 1
    pair = packed // span
    return CodeColumns(pair // aid_top, pair % aid_top, codes)


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
