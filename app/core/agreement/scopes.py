"""Agreement per scope (dataset, genre; all items or unadjudicated ones), kept up to date.

The project's LiveAgreement (`Project.live`) covers every item. The dashboard also needs
alpha over subsets: the items that needed no adjudication, each dataset, each genre, and
their crossings, which is the CLSS paper's Table 4 for any project. A LiveAgreement per
subset would keep a copy of every unit's ratings (about 45 MB each at 200,000 items), so
subsets keep only alpha's sufficient statistics (`AlphaSums`: a few integers and one
coincidence matrix per unit size), and the ratings are held once, as sparse step codes
(`SparseCodes`). One rating change updates the handful of subsets its item
belongs to in time independent of the number of items.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simrate.core.agreement.batch import LEVELS
from simrate.core.agreement.snapshot import (
    ALL,
    GROUPINGS,
    MISSING,
    OVERALL,
    SUBSETS,
    UNADJUDICATED,
    LongForm,
    Snapshot,
)
from simrate.core.agreement.sparse import pairable_ratings
from simrate.core.agreement.sums import add_unit_pairs, interval_alpha, matrix_alpha


class AlphaSums:
    """Sufficient statistics of Krippendorff's alpha over a set of units of step codes.

    Interval alpha comes from exact integer sums; the other levels from integer
    coincidence counts per unit size m (ordered pairs of values within a unit), divided by
    m - 1 only when asked. Same results as `simrate.core.agreement.alpha`.
    """

    def __init__(self, n_codes: int, low: float, step: float):
        self.n_codes = n_codes
        self.low = low
        self.step = step
        self.units = 0  # units with at least one value
        self.pairable = 0  # units with two or more
        self.n = self.s1 = self.s2 = 0  # over pairable values
        self.spread: dict[int, int] = {}  # m -> sum over units of (m S2_u - S1_u^2)
        self.coincidences: dict[int, np.ndarray] = {}
        self.counts = np.zeros(n_codes, dtype=np.int64)  # pairable values per code

    def _matrix(self, m: int) -> np.ndarray:
        matrix = self.coincidences.get(m)
        if matrix is None:
            matrix = self.coincidences[m] = np.zeros((self.n_codes, self.n_codes), np.int64)
        return matrix

    def update(self, codes: Sequence[int], sign: int) -> None:
        """Add (sign 1) or remove (-1) one unit holding these codes."""
        m = len(codes)
        if m == 0:
            return
        self.units += sign
        if m < 2:
            return
        s1 = sum(codes)
        s2 = sum(c * c for c in codes)
        self.pairable += sign
        self.n += sign * m
        self.s1 += sign * s1
        self.s2 += sign * s2
        self.spread[m] = self.spread.get(m, 0) + sign * (m * s2 - s1 * s1)
        counts: dict[int, int] = {}
        for c in codes:
            counts[c] = counts.get(c, 0) + 1
        for c, nc in counts.items():
            self.counts[c] += sign * nc
        add_unit_pairs(self._matrix(m), counts, sign)

    def add_rows(self, codes: np.ndarray) -> None:
        """Add many units at once: rows of an items x raters array, MISSING for no rating."""
        # Work on the present codes only (row-major, so each unit's codes sit together): the
        # cost follows the ratings, not items x raters (500 crowd workers, 5 per item).
        present = codes != MISSING
        m_all = present.sum(axis=1)
        self.add_units(codes[present].astype(np.int64), m_all, np.ones(m_all.size, bool))

    def add_units(self, values: np.ndarray, m_all: np.ndarray, chosen: np.ndarray) -> None:
        """Add the chosen units of a long-form table: `values` holds every unit's codes one
        unit after another, unit u holding m_all[u] of them; `chosen` is a mask of units."""
        self.units += int((chosen & (m_all > 0)).sum())
        pairable = chosen & (m_all >= 2)
        values = values[np.repeat(pairable, m_all)]
        m = m_all[pairable]
        if not m.size:
            return
        starts = np.r_[0, np.cumsum(m)[:-1]]
        s1_u = np.add.reduceat(values, starts)
        s2_u = np.add.reduceat(values * values, starts)
        self.pairable += len(m)
        self.n += int(m.sum())
        self.s1 += int(s1_u.sum())
        self.s2 += int(s2_u.sum())
        for size in np.unique(m).tolist():
            same = m == size  # the units of this size (`chosen` is a mask over all units)
            self.spread[size] = self.spread.get(size, 0) + int(
                (size * s2_u[same] - s1_u[same] ** 2).sum())
            self._add_pairs(size, values[np.repeat(same, m)].reshape(-1, size))
        self.counts += np.bincount(values, minlength=self.n_codes)

    def _add_pairs(self, size: int, packed: np.ndarray) -> None:
        """Coincidences of units of `size` codes each (one unit per row of `packed`)."""
        matrix = self._matrix(size)
        for a in range(size):
            for b in range(size):
                if a != b:
                    flat = packed[:, a] * self.n_codes + packed[:, b]
                    matrix += np.bincount(flat, minlength=self.n_codes ** 2).reshape(
                        self.n_codes, self.n_codes)

    def alpha(self, level: str = "interval") -> float | None:
        """Krippendorff's alpha at `level`; None when undefined (no pairs, no variance)."""
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        if self.pairable == 0:
            return None
        if level == "interval":
            return interval_alpha(self.n, self.s1, self.s2, self.spread)
        present = np.flatnonzero(self.counts > 0)
        grid = np.ix_(present, present)
        observed = np.zeros((present.size, present.size))
        for m, matrix in self.coincidences.items():
            observed += matrix[grid] / (m - 1)
        return matrix_alpha(level, observed, self.counts[present],
                            self.low + present * self.step)


# ----------------------------------------------------------------------------- the engine
ScopeKey = tuple[str, str, str]  # (grouping or OVERALL, group name, subset)


@dataclass(frozen=True)
class ScopeRow:
    """One row of the agreement table: a group's alpha over all and unadjudicated items."""

    grouping: str
    group: str
    items: int  # rated items in the group
    alpha: float | None
    unadjudicated_items: int
    alpha_unadjudicated: float | None


class ScopedAgreement:
    """Alpha per scope and each rater's score histogram, updated one item at a time."""

    def __init__(self, snapshot: Snapshot, long: LongForm | None = None):
        self.snapshot = snapshot
        self.raters = list(snapshot.raters)
        self._column = {name: i for i, name in enumerate(self.raters)}
        self.scopes: dict[ScopeKey, AlphaSums] = {}
        self._build(long)

    def _new_sums(self) -> AlphaSums:
        s = self.snapshot
        return AlphaSums(s.n_codes, s.low, s.step)

    def _build(self, long: LongForm | None) -> None:
        # Every scope works on the ratings in long form, never on copies of the items x
        # raters array's rows (at 500 crowd workers that array is mostly empty).
        s = self.snapshot
        if long is None:
            long = s.codes.long()  # each item's codes together
        m_all = np.bincount(long.rows, minlength=s.codes.n_items)
        values = long.codes
        for subset in SUBSETS:
            items = np.ones(m_all.size, bool) if subset == ALL else s.unadjudicated
            self.scopes[(OVERALL, OVERALL, subset)] = sums = self._new_sums()
            sums.add_units(values, m_all, items)
            for grouping in GROUPINGS:
                labels = s.group_codes[grouping]
                for code, name in enumerate(s.group_names[grouping]):
                    self.scopes[(grouping, name, subset)] = sums = self._new_sums()
                    sums.add_units(values, m_all, items & (labels == code))
        flat = long.columns * s.n_codes + values  # rater-major bins
        self.histograms = np.bincount(flat, minlength=len(self.raters) * s.n_codes).reshape(
            len(self.raters), s.n_codes).astype(np.int64)

    # ------------------------------------------------------------------- updates
    def _scope_keys(self, row: int, subset: str) -> list[ScopeKey]:
        s = self.snapshot
        keys = [(OVERALL, OVERALL, subset)]
        for grouping in GROUPINGS:
            keys.append((grouping, s.group_names[grouping][s.group_codes[grouping][row]], subset))
        return keys

    def _add_rater(self, name: str) -> int:
        s = self.snapshot
        column = len(self.raters)
        self.raters.append(name)
        s.raters.append(name)
        self._column[name] = column
        s.codes.add_column()
        self.histograms = np.vstack([self.histograms, np.zeros((1, s.n_codes), np.int64)])
        return column

    def unit_codes(self, row: int) -> list[int]:
        """The codes held for one item (counted raters)."""
        return list(self.snapshot.codes.row(row).values())

    def update_item(self, row: int, changes: dict[str, int | None],
                    unadjudicated: bool) -> None:
        """Apply rating changes ({rater: code or None}) and the item's unadjudicated state."""
        s = self.snapshot
        old_codes, old_unadjudicated = self.unit_codes(row), bool(s.unadjudicated[row])
        for rater, code in changes.items():
            column = self._column.get(rater)
            if column is None:
                if code is None:
                    continue
                column = self._add_rater(rater)
            old = s.codes.set(row, column, code)
            if old != MISSING:
                self.histograms[column, old] -= 1
            if code is not None:
                self.histograms[column, code] += 1
        new_codes = self.unit_codes(row)
        s.unadjudicated[row] = unadjudicated
        for key in self._scope_keys(row, ALL):
            self.scopes[key].update(old_codes, -1)
            self.scopes[key].update(new_codes, 1)
        for key in self._scope_keys(row, UNADJUDICATED):
            if old_unadjudicated:
                self.scopes[key].update(old_codes, -1)
            if unadjudicated:
                self.scopes[key].update(new_codes, 1)

    # ------------------------------------------------------------------- reading
    def alpha(self, level: str = "interval", grouping: str = OVERALL, group: str = OVERALL,
              subset: str = ALL) -> float | None:
        """Alpha of one scope."""
        return self.scopes[(grouping, group, subset)].alpha(level)

    def table(self, grouping: str, level: str = "interval") -> list[ScopeRow]:
        """Table 4: one row per group of `grouping`, then the whole project."""
        names = self.snapshot.group_names[grouping]
        rows = []
        for key_grouping, name in [*((grouping, n) for n in names), (OVERALL, OVERALL)]:
            every = self.scopes[(key_grouping, name, ALL)]
            settled = self.scopes[(key_grouping, name, UNADJUDICATED)]
            rows.append(ScopeRow(key_grouping, name, every.units, every.alpha(level),
                                 settled.units, settled.alpha(level)))
        return rows

    def groups(self, grouping: str) -> list[str]:
        """The group names of a grouping, sorted."""
        return list(self.snapshot.group_names[grouping])


# ----------------------------------------------------------------------------- intervals
@dataclass(frozen=True)
class ScopeRatings:
    """What an interval job reads: the ratings in long form (item order) and the scopes'
    item labels, copied so that the engine may go on changing its own arrays."""

    item: np.ndarray  # int32 row of each rating, non-decreasing
    rater: np.ndarray  # int32 column of each rating
    code: np.ndarray  # int16 step code of each rating
    items: int
    group_names: dict[str, list[str]]
    group_codes: dict[str, np.ndarray]
    unadjudicated: np.ndarray
    low: float
    step: float


def scope_ratings(snapshot: Snapshot) -> ScopeRatings:
    """List a snapshot's ratings in long form, with copies of its item labels."""
    long = snapshot.codes.long()
    return ScopeRatings(long.rows.astype(np.int32), long.columns.astype(np.int32),
                        long.codes.astype(np.int16), snapshot.codes.n_items,
                        snapshot.group_names,
                        {k: v.copy() for k, v in snapshot.group_codes.items()},
                        snapshot.unadjudicated.copy(), snapshot.low, snapshot.step)


def _scope_values(ratings: ScopeRatings, chosen: np.ndarray) -> Any:
    """The pairable values of the chosen items, unit by unit in item order."""
    from simrate.core.agreement.intervals import UnitValues

    keep = chosen[ratings.item]
    item, rater = ratings.item[keep], ratings.rater[keep]
    pairs, unit, _ = pairable_ratings(item, ratings.items)
    value = ratings.low + ratings.code[keep][pairs] * ratings.step
    raters = int(np.count_nonzero(np.bincount(rater))) if rater.size else 0
    return UnitValues(unit, value, raters)


def scope_intervals(source: Snapshot | ScopeRatings, level: str, keys: Sequence[ScopeKey],
                    replicates: int = 1000, seed: int = 0,
                    cancelled=lambda: False) -> dict[ScopeKey, tuple[float, float] | None]:
    """95% unit-bootstrap intervals of alpha for the chosen scopes (for a worker thread),
    from the ratings in long form: memory follows the ratings, not items x raters. Scopes of
    the same items (a project's only dataset and the whole project) are bootstrapped once."""
    from simrate.core.agreement.intervals import alpha_ci

    ratings = source if isinstance(source, ScopeRatings) else scope_ratings(source)
    out: dict[ScopeKey, tuple[float, float] | None] = {}
    by_items: dict[bytes, tuple[float, float] | None] = {}  # scopes of the same items
    for key in keys:
        if cancelled():
            break
        grouping, group, subset = key
        chosen = np.ones(ratings.items, dtype=bool)
        if grouping != OVERALL:
            code = ratings.group_names[grouping].index(group)
            chosen &= ratings.group_codes[grouping] == code
        if subset == UNADJUDICATED:
            chosen &= ratings.unadjudicated
        items = np.packbits(chosen).tobytes()
        if items not in by_items:
            try:
                by_items[items] = alpha_ci(_scope_values(ratings, chosen), level,
                                           replicates=replicates, seed=seed)
            except ValueError:
                by_items[items] = None
        out[key] = by_items[items]
    return out
