"""ItemIndex: item ids, their ords (keys in the file) and positions, held in memory."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import nfc

if TYPE_CHECKING:  # imported on first bulk lookup only: `info` stays light
    import pandas as pd


def read_item_ids(conn: sqlite3.Connection) -> tuple[list[str], np.ndarray | None]:
    """(item ids in project order, their ords, or None when ords are the positions 0..n-1,
    as imports make them). The ids come as one text rather than a tuple each: a million
    ids in a third of the time."""
    low, high, count = conn.execute("SELECT MIN(ord), MAX(ord), COUNT(*) FROM items").fetchone()
    ords = None
    if count and (low, high) != (0, count - 1):
        ords = np.fromiter((r[0] for r in conn.execute("SELECT ord FROM items ORDER BY ord")),
                           dtype=np.int64, count=count)
    text = conn.execute("SELECT group_concat(id, char(31)) FROM "
                        "(SELECT id FROM items ORDER BY ord)").fetchone()[0]
    ids = text.split("\x1f") if text else []
    if len(ids) != count:  # an id holds the separator: one tuple per id after all
        ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY ord")]
    return ids, ords


class ItemIndex:
    """Every item's id and ord in project order; ords are 0..n-1 unless edited by hand.

    With ords equal to positions (every file simrate writes), `id_by_ord` is the id list
    itself; only a hand-edited file pays for a second dict."""

    def __init__(self, ids: list[str], ords: np.ndarray | None = None,
                 path: Path | None = None):
        self.path = path
        self.ids = ids
        if ords is None:
            self.ord: dict[str, int] = dict(zip(ids, range(len(ids)), strict=True))
            self.id_by_ord: dict[int, str] | list[str] = ids
        else:
            self.ord = dict(zip(ids, ords.tolist(), strict=True))
            self.id_by_ord = dict(zip(ords.tolist(), ids, strict=True))
        self._lookup: pd.Index | None = None  # of the ids, made on first bulk lookup

    @classmethod
    def read(cls, conn: sqlite3.Connection, path: Path | None = None) -> ItemIndex:
        """The index of the items stored now."""
        ids, ords = read_item_ids(conn)
        return cls(ids, ords, path)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, item_id: object) -> bool:
        return (nfc(item_id) if isinstance(item_id, str) else item_id) in self.ord

    def ord_of(self, item_id: str) -> int:
        """The item's ord; SimrateError if unknown (ids compare in NFC, see core/base/names.py)."""
        try:
            return self.ord[nfc(item_id)]
        except KeyError:
            raise SimrateError(f"no item with id {item_id!r} in this project", self.path) from None

    def position(self, item_id: str) -> int:
        """0-based position of an item in project order, -1 for an unknown id."""
        item_id = nfc(item_id)
        ord_ = self.ord.get(item_id)
        if ord_ is None:
            return -1
        in_step = ord_ < len(self.ids) and self.ids[ord_] == item_id
        return ord_ if in_step else self.ids.index(item_id)

    def ords_are_positions(self) -> bool:
        """True when ords are 0..n-1, as import makes them: ords rise with position, so the
        last one being n-1 means every one is."""
        return not self.ids or self.ord[self.ids[-1]] == len(self.ids) - 1

    def ids_for_ords(self, ords: np.ndarray) -> np.ndarray:
        """Item ids for an array of ords."""
        if self.ords_are_positions():
            return np.asarray(self.ids, dtype=object)[ords]
        return np.array([self.id_by_ord[o] for o in ords], dtype=object)

    def positions_of(self, ids: np.ndarray) -> np.ndarray:
        """Positions of many ids at once (-1 for an unknown id)."""
        import pandas as pd  # only bulk imports need it; `info` stays light

        if self._lookup is None:
            self._lookup = pd.Index(self.ids, dtype=object)
        return self._lookup.get_indexer(pd.Index(ids)).astype(np.int64)

    def ords_at(self, positions: np.ndarray) -> np.ndarray:
        """Ords of the items at these positions (all known)."""
        if self.ords_are_positions():
            return positions.astype(np.int64)
        ords = np.fromiter((self.ord[i] for i in self.ids), dtype=np.int64, count=len(self.ids))
        return ords[positions]

    def rows_for_ords(self, ords: np.ndarray) -> np.ndarray:
        """Positions for an array of ords."""
        if self.ords_are_positions():
            return ords
        position = {o: i for i, o in enumerate(self.ord[i] for i in self.ids)}
        return np.array([position[o] for o in ords.tolist()], dtype=np.int64)
