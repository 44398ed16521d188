"""The rater-level part of LiveAgreement (live.py): Pearson between raters and against the
mean of the others, from per-rater, pair and vs-rest sums.

A rating changes the pair sums of its rater with every other rater of the unit, and the
vs-rest sums of all of them (the mean of the others moves): time in proportion to the
unit's raters, which with hundreds of raters on each item dominated a hub pull. So these
sums are brought up to date per unit when next read (`_settle`), not per rating: a batch
of ratings (a hub pull) costs each unit it touched one update, and a pull nobody reads
them after costs nothing more.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from simrate.core.agreement.correlation import correlation_from_sums

if TYPE_CHECKING:  # pandas takes over half a second to import; few paths here need it
    import pandas as pd


class RaterSums:
    """Correlations of LiveAgreement (the sums are its own: see live.py)."""

    _units: Any
    _x: list[int]
    _raters: list[Hashable]
    _rater_pos: dict[Hashable, int]
    _rsum: list[list[int]]
    _pn: list[list[int]]
    _psx: list[list[int]]
    _psxx: list[list[int]]
    _psxy: list[list[int]]
    _rest: list[dict[int, list[int]]]
    _stale: dict[Hashable, dict[Hashable, int]]

    def raters(self) -> list[Hashable]:
        """Every rater that has ratings now (LiveAgreement, live.py)."""
        raise NotImplementedError

    def _active(self) -> list[int]:
        """Positions of the raters with ratings now (LiveAgreement, live.py)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ vs-rest sums
    def _account_rest(self, ratings: dict[Hashable, int], sign: int) -> None:
        """Add (sign 1) or remove (-1) a unit's share of its raters' vs-rest sums."""
        m = len(ratings)
        if m < 2:
            return
        x = self._x
        s1 = sum(x[i] for i in ratings.values())
        for rater, i in ratings.items():
            xr = x[i]
            rest = s1 - xr
            acc = self._rest[self._rater_pos[rater]].setdefault(m, [0, 0, 0, 0, 0, 0])
            acc[0] += sign
            acc[1] += sign * xr
            acc[2] += sign * xr * xr
            acc[3] += sign * rest
            acc[4] += sign * rest * rest
            acc[5] += sign * xr * rest
            if not acc[0]:  # no unit of m ratings left for this rater: every sum is 0
                del self._rest[self._rater_pos[rater]][m]

    def _settle(self) -> None:
        """Bring the pair and vs-rest sums up to date: once per unit changed since they
        were read, each rater whose rating changed there paired once with the others."""
        stale, self._stale = self._stale, {}
        x, pos = self._x, self._rater_pos
        for unit, before in stale.items():
            after = self._units.get(unit) or {}
            self._account_rest(before, -1)
            state = dict(before)
            for rater in [r for r in before.keys() | after.keys()
                          if before.get(r) != after.get(r)]:
                others = [(pos[r], x[i]) for r, i in state.items() if r != rater]
                if rater in state:
                    self._pairs(pos[rater], x[state.pop(rater)], others, -1)
                if rater in after:
                    state[rater] = after[rater]
                    self._pairs(pos[rater], x[state[rater]], others, 1)
            self._account_rest(after, 1)

    def _pairs(self, i: int, xi: int, others: list[tuple[int, int]], sign: int) -> None:
        """Add (sign 1) or remove (-1) rater i's value xi from the pair sums."""
        pn, psx, psxx, psxy = self._pn[i], self._psx[i], self._psxx[i], self._psxy[i]
        for j, xj in others:
            pn[j] += sign
            self._pn[j][i] += sign
            psx[j] += sign * xi
            self._psx[j][i] += sign * xj
            psxx[j] += sign * xi * xi
            self._psxx[j][i] += sign * xj * xj
            psxy[j] += sign * xi * xj
            self._psxy[j][i] += sign * xi * xj

    @property
    def unsettled_units(self) -> int:
        """Units whose raters' pair and vs-rest sums wait for the next read (`_settle`)."""
        return len(self._stale)

    # ------------------------------------------------------------------ correlations
    def pearson_matrix(self) -> tuple[np.ndarray, list[Hashable]]:
        """(rater x rater Pearson r over units both rated, NaN where undefined; raters)."""
        raters = self.raters()
        return self.pearson_among(raters), raters

    def pearson(self) -> pd.DataFrame:
        """Pearson r between every two raters as a DataFrame (NaN where undefined)."""
        import pandas as pd

        matrix, raters = self.pearson_matrix()
        return pd.DataFrame(matrix, index=pd.Index(raters), columns=pd.Index(raters))

    def pearson_vs_rest(self) -> dict[Hashable, float | None]:
        """{rater: Pearson r of their value against the mean of the unit's other values}."""
        self._settle()
        return {self._raters[i]: self._vs_rest(i) for i in self._active()}

    def _vs_rest(self, i: int) -> float | None:
        n, sx, sxx, sy, syy, sxy = 0, 0, 0, Fraction(0), Fraction(0), Fraction(0)
        for m, (count, x1, x2, y1, y2, xy) in self._rest[i].items():
            n, sx, sxx = n + count, sx + x1, sxx + x2
            sy += Fraction(y1, m - 1)
            syy += Fraction(y2, (m - 1) ** 2)
            sxy += Fraction(xy, m - 1)
        return correlation_from_sums(n, sx, sy, sxx, syy, sxy)

    def vs_rest_of(self, raters: Iterable[Hashable]) -> dict[Hashable, float | None]:
        """pearson_vs_rest for some known raters only (an edit changes those of one unit)."""
        self._settle()
        return {r: self._vs_rest(self._rater_pos[r]) for r in raters}

    def rater_counts(self, raters: Iterable[Hashable] | None = None
                     ) -> dict[Hashable, tuple[int, int]]:
        """{rater: (ratings, ratings on units others rated too)}; default: active raters."""
        self._settle()
        pos = self._active() if raters is None else [self._rater_pos[r] for r in raters]
        return {self._raters[i]: (self._rsum[i][0], sum(a[0] for a in self._rest[i].values()))
                for i in pos}

    def pearson_among(self, raters: Sequence[Hashable], min_overlap: int = 0) -> np.ndarray:
        """Pearson r between the given raters (NaN: undefined, unknown, < min_overlap shared)."""
        self._settle()
        pos = [self._rater_pos.get(r) for r in raters]
        out = np.full((len(pos), len(pos)), np.nan)
        known = [(a, i) for a, i in enumerate(pos) if i is not None]
        for k, (a, i) in enumerate(known):
            n, sx, sxx = self._rsum[i]
            out[a, a] = 1.0 if n >= 2 and n * sxx - sx * sx > 0 else np.nan  # values vary
            for b, j in known[k + 1:]:
                r = correlation_from_sums(self._pn[i][j], self._psx[i][j], self._psx[j][i],
                                          self._psxx[i][j], self._psxx[j][i], self._psxy[i][j])
                out[a, b] = out[b, a] = np.nan if r is None or self._pn[i][j] < min_overlap else r
        return out
