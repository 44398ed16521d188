"""LiveAgreement: alpha and Pearson kept up to date one rating at a time, with exact sums.

Every value is held as an integer x: the step code itself (LiveAgreement(low, step)), or, for
arbitrary numbers (LiveAgreement()), the value times 2**K with K the finest binary exponent seen
so far (every float is an integer times a power of two, so this is exact; when a finer value
arrives, the stored sums are rescaled, which does not depend on the number of units). Sums of x
and x*x are Python integers, so after any sequence of edits they equal a recomputation exactly.

Per unit u with m_u values, the observed disagreement at the interval level is
2 (m_u S2_u - S1_u^2) / (m_u - 1); units are summed by m, so the division happens once per
distinct m at query time. The other levels use coincidence counts kept per m as integer V x V
matrices (V = distinct values, 21 on a 0-5 scale with quarter steps).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from simrate.core.agreement.correlation import correlation_from_sums
from simrate.core.agreement.sums import LEVELS, add_unit_pairs, interval_alpha, matrix_alpha
from simrate.core.data.units import UnitTable

if TYPE_CHECKING:  # pandas takes over half a second to import; few paths here need it
    import pandas as pd


class LiveAgreement:
    """Krippendorff's alpha (all levels) and Pearson correlations, updated per rating change.

    LiveAgreement(low, step): values given to set_rating are integer step codes; the real value
    low + code * step is used where the level needs it (ratio). LiveAgreement(): values are
    arbitrary numbers.
    """

    def __init__(self, low: float | None = None, step: float | None = None):
        if step is None and low is not None:
            raise ValueError("LiveAgreement(low, step): give step with low")
        if step is not None and not step > 0:
            raise ValueError("step must be positive")
        self.codes = step is not None
        self.low = 0.0 if low is None else float(low)
        self.step = 1.0 if step is None else float(step)
        self._exponent = 0  # free mode: x = value * 2**exponent
        self._index: dict[object, int] = {}
        self._keys: list[object] = []
        self._x: list[int] = []
        self._real: list[float] = []
        self._units = UnitTable()
        self._rater_pos: dict[Hashable, int] = {}
        self._raters: list[Hashable] = []
        self._reset_sums()

    def _reset_sums(self) -> None:
        self._n_ratings = 0
        self._pairable_units = 0
        self._nv: list[int] = [0] * len(self._keys)  # pairable values per value index
        self._coinc: dict[int, np.ndarray] = {}  # m -> integer coincidence counts
        self._cap = max(8, len(self._keys))  # rows of each coincidence matrix
        self._n = self._s1 = self._s2 = 0  # over pairable values
        self._t: dict[int, int] = {}  # m -> sum of (m S2_u - S1_u^2)
        r = len(self._raters)
        self._rsum = [[0, 0, 0] for _ in range(r)]  # per rater: n, sum x, sum x^2
        self._pn = [[0] * r for _ in range(r)]
        self._psx = [[0] * r for _ in range(r)]  # [i][j]: sum of i's x over units both rated
        self._psxx = [[0] * r for _ in range(r)]
        self._psxy = [[0] * r for _ in range(r)]
        self._rest: list[dict[int, list[int]]] = [{} for _ in range(r)]

    # ------------------------------------------------------------------ values and raters
    def _intern(self, value: object) -> int:
        """Index of a value, registering it (and rescaling in free mode) when new."""
        key = self._key(value)
        idx = self._index.get(key)
        if idx is not None:
            return idx
        if self.codes:
            x, real = int(key), self.low + key * self.step
        else:
            numerator, denominator = key.as_integer_ratio()
            exponent = denominator.bit_length() - 1
            if exponent > self._exponent:
                self._rescale(exponent - self._exponent)
            x, real = numerator << (self._exponent - exponent), key
        idx = len(self._keys)
        self._index[key] = idx
        self._keys.append(key)
        self._x.append(x)
        self._real.append(real)
        self._nv.append(0)
        if idx >= self._cap:
            self._grow(max(8, 2 * self._cap))
        return idx

    def _grow(self, cap: int) -> None:
        """Enlarge the coincidence matrices to `cap` values."""
        for m, mat in self._coinc.items():
            bigger = np.zeros((cap, cap), dtype=np.int64)
            bigger[:self._cap, :self._cap] = mat
            self._coinc[m] = bigger
        self._cap = cap

    def _key(self, value: object) -> int | float:
        if isinstance(value, bool):
            raise TypeError("a rating must be a number, not a bool")
        if self.codes:
            code = int(value)  # type: ignore[call-overload]
            if code != value:
                raise ValueError(f"{value!r} is not an integer step code")
            return code
        number = float(value)  # type: ignore[arg-type]
        if not math.isfinite(number):
            raise ValueError(f"{value!r} is not a finite number")
        return number + 0.0  # -0.0 and 0.0 are one value

    def _rescale(self, shift: int) -> None:
        """Multiply every stored x by 2**shift (sums of x by the same, sums of x*x by its square)."""
        self._exponent += shift
        self._x = [x << shift for x in self._x]
        self._s1 <<= shift
        self._s2 <<= 2 * shift
        self._t = {m: t << (2 * shift) for m, t in self._t.items()}
        for sums in self._rsum:
            sums[1] <<= shift
            sums[2] <<= 2 * shift
        for table, power in ((self._psx, 1), (self._psxx, 2), (self._psxy, 2)):
            for row in table:
                row[:] = [v << (power * shift) for v in row]
        for groups in self._rest:
            for acc in groups.values():
                acc[1:] = [v << ((1 if k in (0, 2) else 2) * shift)
                           for k, v in enumerate(acc[1:])]

    def _rater(self, rater: Hashable) -> int:
        pos = self._rater_pos.get(rater)
        if pos is None:
            pos = len(self._raters)
            self._rater_pos[rater] = pos
            self._raters.append(rater)
            self._rsum.append([0, 0, 0])
            for table in (self._pn, self._psx, self._psxx, self._psxy):
                for row in table:
                    row.append(0)
                table.append([0] * (pos + 1))
            self._rest.append({})
        return pos

    # ------------------------------------------------------------------ updates
    def set_rating(self, unit: Hashable, rater: Hashable, value: object) -> None:
        """Set, change or (value None) remove one rating; cost independent of the unit count."""
        new = None if value is None else self._intern(value)
        ratings = self._units.get(unit)
        old = None if ratings is None else ratings.get(rater)
        if old == new:
            return
        if ratings is None:
            ratings = self._units[unit] = {}
        pos = self._rater(rater)
        x, rater_pos = self._x, self._rater_pos
        others = [(rater_pos[r], x[i]) for r, i in ratings.items() if r != rater]
        self._account(ratings, -1)
        if old is not None:
            self._pairs(pos, x[old], others, -1)
            del ratings[rater]
        if new is not None:
            self._pairs(pos, x[new], others, 1)
            ratings[rater] = new
        self._account(ratings, 1)
        if not ratings:
            del self._units[unit]

    def _pairs(self, i: int, xi: int, others: list[tuple[int, int]], sign: int) -> None:
        """Add (sign 1) or remove (-1) rater i's value xi from the per-rater and pair sums."""
        self._n_ratings += sign
        own = self._rsum[i]
        own[0] += sign
        own[1] += sign * xi
        own[2] += sign * xi * xi
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

    def _account(self, ratings: dict[Hashable, int], sign: int) -> None:
        """Add (sign 1) or remove (-1) a unit's share of the alpha and vs-rest sums."""
        m = len(ratings)
        if m < 2:
            return
        x = self._x
        counts: dict[int, int] = {}
        for i in ratings.values():
            counts[i] = counts.get(i, 0) + 1
        s1 = sum(x[i] * c for i, c in counts.items())
        s2 = sum(x[i] * x[i] * c for i, c in counts.items())
        self._pairable_units += sign
        self._n += sign * m
        self._s1 += sign * s1
        self._s2 += sign * s2
        self._t[m] = self._t.get(m, 0) + sign * (m * s2 - s1 * s1)
        for c, nc in counts.items():
            self._nv[c] += sign * nc
        add_unit_pairs(self._coincidences(m), counts, sign)
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

    def _coincidences(self, m: int) -> np.ndarray:
        mat = self._coinc.get(m)
        if mat is None:
            mat = self._coinc[m] = np.zeros((self._cap, self._cap), dtype=np.int64)
        return mat

    def remove_unit(self, unit: Hashable) -> None:
        """Remove every rating of one unit."""
        for rater in list(self._units.get(unit, {})):
            self.set_rating(unit, rater, None)

    def remove_rater(self, rater: Hashable) -> None:
        """Remove every rating by one rater (time grows with the number of units)."""
        for unit in [u for u, r in self._units.items() if rater in r]:
            self.set_rating(unit, rater, None)

    def clear(self) -> None:
        """Remove all ratings (the raters and values seen stay registered)."""
        self._units = UnitTable()
        self._reset_sums()

    def load(self, units: Sequence[Hashable], raters: Sequence[Hashable],
             values: Iterable[object]) -> None:
        """Add many ratings at once (vectorised when empty); same result as set_rating calls."""
        from simrate.core.agreement.load import bulk_state  # load.py imports pandas: only when used

        values = list(values) if not isinstance(values, np.ndarray) else values
        if self._units or len(units) == 0 or not bulk_state(self, units, raters, values):
            self._set_each(units, raters, values)

    def load_indexed(self, unit_idx: np.ndarray, unit_labels: Sequence[Hashable],
                     rater_idx: np.ndarray, rater_labels: Sequence[Hashable],
                     codes: np.ndarray) -> None:
        """`load` of rating k = (unit_labels[unit_idx[k]], rater_labels[rater_idx[k]], codes[k])."""
        from simrate.core.agreement.load import bulk_state_indexed  # as in `load`
        if self._units or not codes.size or not self.codes or not bulk_state_indexed(
                self, unit_idx, unit_labels, rater_idx, rater_labels, codes):
            # one by one (not through `load`, which would try the same bulk fill again)
            self._set_each([unit_labels[k] for k in unit_idx.tolist()],
                           [rater_labels[k] for k in rater_idx.tolist()], codes)

    def _set_each(self, units: Sequence[Hashable], raters: Sequence[Hashable],
                  values: Iterable[object]) -> None:
        for unit, rater, value in zip(units, raters, values, strict=True):
            self.set_rating(unit, rater, value)

    # ------------------------------------------------------------------ counts and access
    @property
    def n_units(self) -> int:
        """Units with at least one rating."""
        return len(self._units)

    @property
    def n_pairable_units(self) -> int:
        """Units with two or more ratings."""
        return self._pairable_units

    @property
    def n_ratings(self) -> int:
        """Number of ratings held."""
        return self._n_ratings

    def _active(self) -> list[int]:
        """Positions of the raters who hold at least one rating."""
        return [i for i, sums in enumerate(self._rsum) if sums[0] > 0]

    def raters(self) -> list[Hashable]:
        """Raters holding at least one rating, in the order first seen."""
        return [self._raters[i] for i in self._active()]

    def units(self) -> list[Hashable]:
        """Units with at least one rating."""
        return list(self._units)

    def unit_ratings(self, unit: Hashable) -> dict[Hashable, object]:
        """{rater: value} of one unit, values as given to set_rating (codes in code mode)."""
        keys = self._keys
        return {r: keys[i] for r, i in self._units.get(unit, {}).items()}

    def to_matrix(self) -> tuple[np.ndarray, list[Hashable], list[Hashable]]:
        """(raters x units array of real values with NaN missing, raters, units)."""
        units, raters = list(self._units), self.raters()
        data = np.full((len(raters), len(units)), np.nan)
        real, row = self._real, {rater: k for k, rater in enumerate(raters)}
        for col, unit in enumerate(units):
            for rater, i in self._units[unit].items():
                data[row[rater], col] = real[i]
        return data, raters, units

    # ------------------------------------------------------------------ alpha
    def alpha(self, level: str = "interval") -> float | None:
        """Krippendorff's alpha at `level`; None when undefined (no pairs, no variance)."""
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        if self._pairable_units == 0:
            return None
        if level == "interval":
            return interval_alpha(self._n, self._s1, self._s2, self._t)
        _, observed, counts, values = self._matrix_state()
        return matrix_alpha(level, observed, counts, values)

    def _matrix_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(indices of the values with pairable counts sorted by value, their coincidences,
        counts and values): what alpha needs at the levels other than interval."""
        present = np.flatnonzero(np.asarray(self._nv) > 0)
        real = np.asarray(self._real)
        order = present[np.argsort(real[present], kind="stable")]
        grid = np.ix_(order, order)
        observed = np.zeros((order.size, order.size))
        for m in sorted(self._coinc):
            observed += self._coinc[m][grid] / (m - 1)
        return order, observed, np.asarray(self._nv, dtype=np.float64)[order], real[order]

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
        return {r: self._vs_rest(self._rater_pos[r]) for r in raters}

    def rater_counts(self, raters: Iterable[Hashable] | None = None
                     ) -> dict[Hashable, tuple[int, int]]:
        """{rater: (ratings, ratings on units others rated too)}; default: active raters."""
        pos = self._active() if raters is None else [self._rater_pos[r] for r in raters]
        return {self._raters[i]: (self._rsum[i][0], sum(a[0] for a in self._rest[i].values()))
                for i in pos}

    def pearson_among(self, raters: Sequence[Hashable], min_overlap: int = 0) -> np.ndarray:
        """Pearson r between the given raters (NaN: undefined, unknown, < min_overlap shared)."""
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
