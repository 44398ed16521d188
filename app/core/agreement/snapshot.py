"""The per-scope engine's input: a project's ratings read once, as a compact snapshot.

`read_snapshot` takes the project's integer columns (no item texts, no DataFrame) and
returns the items x raters step codes the engine updates in place (`SparseCodes`: the
ratings as read, in long form, plus the items changed since), with each item's dataset and
genre and whether it is settled (flagged or adjudicated), and the same ratings in long
form, from which the engine's sums are built. A dense items x raters array would take
200 MB at 200,000 items and 500 crowd workers, nearly all of it empty cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simrate.core.review.flags import run_sums

ALL, UNADJUDICATED = "all", "unadjudicated"
SUBSETS = (ALL, UNADJUDICATED)
GROUPINGS = ("dataset", "genre")
OVERALL = ""  # the grouping (and group) name of the whole project
MISSING = -1  # an empty cell of the codes array


@dataclass
class Snapshot:
    """Everything the engine needs, read from the project file in one go."""

    item_ids: list[str]
    group_names: dict[str, list[str]]  # grouping -> names; codes index into them
    group_codes: dict[str, np.ndarray]  # grouping -> int32 per item
    raters: list[str]  # counted (not excluded) annotators
    codes: SparseCodes  # items x raters step codes
    unadjudicated: np.ndarray  # bool per item: neither flagged nor adjudicated
    excluded: list[str]
    n_codes: int
    low: float
    step: float

    def copy(self) -> Snapshot:
        """A copy whose arrays a worker thread may read while the engine changes its own."""
        return Snapshot(list(self.item_ids), self.group_names,
                        {k: v.copy() for k, v in self.group_codes.items()}, list(self.raters),
                        self.codes.copy(), self.unadjudicated.copy(), list(self.excluded),
                        self.n_codes, self.low, self.step)


def read_snapshot(project: Any) -> tuple[Snapshot, LongForm]:
    """The snapshot of an open Project (passed in: this module does not import it), read as
    integer columns (no item texts, no DataFrame), and its ratings in long form (what the
    engine builds its sums from)."""
    rows, aids, scores, datasets, genres = project.scope_columns()
    excluded = project.roster.left_out()  # machine raters are not in it either
    raters = [a for a in project.annotators() if a not in excluded]
    ids = project.roster.ids()
    column_of = np.full(max(ids.values(), default=0) + 1, -1, dtype=np.int64)
    for column, name in enumerate(raters):
        column_of[ids[name]] = column
    keep = column_of[aids] >= 0
    item_ids = project.item_ids()
    long = LongForm(rows[keep], column_of[aids[keep]], scores[keep].astype(np.int64))
    codes = SparseCodes(len(item_ids), len(raters), long.rows, long.columns, long.codes)
    names, group_codes = {}, {}
    for grouping, values in (("dataset", datasets), ("genre", genres)):
        labels, uniques = pd.factorize(pd.Series(values, dtype=object).fillna(""), sort=True)
        names[grouping] = [str(u) for u in uniques]
        group_codes[grouping] = np.asarray(labels, dtype=np.int32)
    # settled = flagged or adjudicated; flagged = a spread of k codes, unless adjudicated
    scale = project.scale
    rule = project.flag_rule.in_codes(scale.step)
    settled = np.zeros(len(item_ids), dtype=bool)
    starts, count, spread, total, squares = run_sums(long.rows, long.codes)
    settled[long.rows[starts[rule.mask(count, spread, total, squares)]]] = True
    adjudicated = [project.position(i) for i in project.adjudications()["item_id"]]
    settled[[row for row in adjudicated if row >= 0]] = True
    snapshot = Snapshot(item_ids, names, group_codes, raters, codes, ~settled, excluded,
                        scale.n_codes, scale.low, scale.step)
    return snapshot, long


@dataclass(frozen=True)
class LongForm:
    """A snapshot's ratings, one per entry: item row (ascending), rater column, code."""

    rows: np.ndarray
    columns: np.ndarray
    codes: np.ndarray


class SparseCodes:
    """An items x raters table of step codes, held sparsely: the ratings as read (sorted by
    item, then rater: a compressed row per item) and, for each item changed since, its
    codes as a dict. Reads and writes of one item cost the item's ratings."""

    def __init__(self, n_items: int, n_raters: int, rows: np.ndarray, columns: np.ndarray,
                 codes: np.ndarray):
        rows, columns = np.asarray(rows, np.int64), np.asarray(columns, np.int64)
        key = rows * max(n_raters, 1) + columns
        if key.size and (np.diff(key) <= 0).any():  # not strictly ascending: sort
            order = np.argsort(key, kind="stable")
            rows, columns, codes = rows[order], columns[order], np.asarray(codes)[order]
        self.n_items, self.n_raters = n_items, n_raters
        self._columns = columns.astype(np.int32)
        self._codes = np.asarray(codes).astype(np.int16)
        self._offsets = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_items), out=self._offsets[1:])
        self._edited: dict[int, dict[int, int]] = {}

    @classmethod
    def from_dense(cls, codes: np.ndarray) -> SparseCodes:
        """From an items x raters array with MISSING in empty cells."""
        rows, columns = np.nonzero(codes != MISSING)
        return cls(codes.shape[0], codes.shape[1], rows, columns, codes[rows, columns])

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_items, self.n_raters

    def row(self, row: int) -> dict[int, int]:
        """{rater column: code} of one item."""
        if row in self._edited:
            return dict(self._edited[row])
        start, end = self._offsets[row], self._offsets[row + 1]
        return dict(zip(self._columns[start:end].tolist(), self._codes[start:end].tolist(),
                        strict=True))

    def set(self, row: int, column: int, code: int | None) -> int:
        """Set (or with None, clear) one cell; returns the code it held, or MISSING."""
        current = self._edited.get(row)
        if current is None:
            current = self._edited[row] = self.row(row)
        old = current.pop(column, MISSING)
        if code is not None:
            current[column] = int(code)
        return old

    def add_column(self) -> int:
        """One more rater, with no codes yet; returns its column."""
        self.n_raters += 1
        return self.n_raters - 1

    def long(self) -> LongForm:
        """Every code as (row, column, code), sorted by row, then column."""
        rows = np.repeat(np.arange(self.n_items, dtype=np.int64), np.diff(self._offsets))
        columns, codes = self._columns.astype(np.int64), self._codes.astype(np.int64)
        if not self._edited:
            return LongForm(rows, columns, codes)
        edited = np.fromiter(self._edited, dtype=np.int64, count=len(self._edited))
        keep = ~np.isin(rows, edited)
        cells = sorted((row, column, code) for row, values in self._edited.items()
                       for column, code in values.items())
        extra = np.array(cells, dtype=np.int64).reshape(-1, 3)
        width = max(self.n_raters, 1)
        base_key = rows[keep] * width + columns[keep]
        at = np.searchsorted(base_key, extra[:, 0] * width + extra[:, 1])
        return LongForm(np.insert(rows[keep], at, extra[:, 0]),
                        np.insert(columns[keep], at, extra[:, 1]),
                        np.insert(codes[keep], at, extra[:, 2]))

    def dense(self) -> np.ndarray:
        """The items x raters array, MISSING in empty cells (for small tables and tests)."""
        table = np.full(self.shape, MISSING, dtype=np.int16)
        long = self.long()
        table[long.rows, long.columns] = long.codes
        return table

    def copy(self) -> SparseCodes:
        """A copy that changes on its own (the arrays read are never written, so shared)."""
        twin = object.__new__(SparseCodes)
        twin.__dict__.update(self.__dict__)
        twin._edited = {row: dict(values) for row, values in self._edited.items()}
        return twin
