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

Alpha's sums follow every rating at once; the rater-level sums (pairs, vs rest), whose
update grows with the raters of the unit, follow per unit when next read (live_raters.py),
so a batch of ratings costs each unit it touched one such update.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from simrate.core.agreement.live_raters import RaterSums
from simrate.core.agreement.sums import LEVELS, add_unit_pairs, interval_alpha, matrix_alpha
from simrate.core.data.units import UnitTable

#: Units whose rater-level sums may wait for a read; past this many they are settled
#: anyway, so that a program that never reads them keeps few copies of units.
STALE_UNITS = 4096


class LiveAgreement(RaterSums):
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
        #: unit -> its ratings as the vs-rest sums hold them, for units changed since
        self._stale: dict[Hashable, dict[Hashable, int]] = {}

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
        self._settle()  # the waiting units' old values are at the old scale
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
        """Set, change or (value None) remove one rating; cost independent of the unit count
        and of the ratings the unit holds beyond a count of its values (the pair and vs-rest
        sums of the unit's raters follow when next read: live_raters.py)."""
        new = None if value is None else self._intern(value)
        ratings = self._units.get(unit)
        old = None if ratings is None else ratings.get(rater)
        if old == new:
            return
        if ratings is None:
            ratings = self._units[unit] = {}
        if unit not in self._stale:
            if len(self._stale) >= STALE_UNITS:
                self._settle()  # nobody read them for long: keep the copies few
            self._stale[unit] = dict(ratings)
        pos = self._rater(rater)
        counts = Counter(ratings.values())
        self._account(counts, len(ratings), -1)
        if old is not None:
            self._own(pos, self._x[old], -1)
            del ratings[rater]
            counts[old] -= 1
        if new is not None:
            self._own(pos, self._x[new], 1)
            ratings[rater] = new
            counts[new] += 1
        self._account(counts, len(ratings), 1)
        if not ratings:
            del self._units[unit]

    def _own(self, i: int, xi: int, sign: int) -> None:
        """Add (sign 1) or remove (-1) rater i's value xi from the per-rater sums."""
        self._n_ratings += sign
        own = self._rsum[i]
        own[0] += sign
        own[1] += sign * xi
        own[2] += sign * xi * xi

    def _account(self, counts: dict[int, int], m: int, sign: int) -> None:
        """Add (sign 1) or remove (-1) a unit's share of the alpha sums, from its value
        counts ({value index: ratings}, m ratings in all)."""
        if m < 2:
            return
        counts = {i: c for i, c in counts.items() if c}
        x = self._x
        s1 = sum(x[i] * c for i, c in counts.items())
        s2 = sum(x[i] * x[i] * c for i, c in counts.items())
        self._pairable_units += sign
        self._n += sign * m
        self._s1 += sign * s1
        self._s2 += sign * s2
        self._t[m] = self._t.get(m, 0) + sign * (m * s2 - s1 * s1)
        for c, nc in counts.items():
            self._nv[c] += sign * nc
        matrix = self._coincidences(m)
        add_unit_pairs(matrix, counts, sign)
        if sign < 0 and not matrix.any():  # no unit of m ratings left: forget the size,
            del self._coinc[m], self._t[m]  # which every alpha would otherwise go through

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
        self._reset_sums()  # forgets the units waiting too

    def load(self, units: Sequence[Hashable], raters: Sequence[Hashable],
             values: Iterable[object]) -> None:
        """Add many ratings at once (vectorised when empty); same result as set_rating calls."""
        self._settle()  # a bulk fill of an empty engine starts the vs-rest sums afresh
        from simrate.core.agreement.load import bulk_state  # load.py imports pandas: only when used

        values = list(values) if not isinstance(values, np.ndarray) else values
        if self._units or len(units) == 0 or not bulk_state(self, units, raters, values):
            self._set_each(units, raters, values)

    def load_indexed(self, unit_idx: np.ndarray, unit_labels: Sequence[Hashable],
                     rater_idx: np.ndarray, rater_labels: Sequence[Hashable],
                     codes: np.ndarray) -> None:
        """`load` of rating k = (unit_labels[unit_idx[k]], rater_labels[rater_idx[k]], codes[k])."""
        self._settle()
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
