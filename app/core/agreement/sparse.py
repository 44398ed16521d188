"""Agreement from long-form ratings (unit, rater, value): alpha and Pearson at crowd scale.

A crowd gives each item a handful of ratings from a few of many workers: 200,000 items rated
five times by 500 workers fill 1% of a raters x items matrix. Everything here works on the
ratings themselves, never on that matrix:
- alpha at every level: interval and ordinal from per-unit sums, nominal and ratio from the
  coincidence matrix built as a sparse product (units x values counts), so the cost grows
  with the ratings, not with units x values x values;
- pairwise Pearson from four sparse products (raters x units), kept only for pairs with at
  least `min_overlap` shared items;
- each rater against the mean of the others, from per-unit sums.
Results equal the dense functions of batch.py and correlation.py (tests/core/agreement).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas and scipy take a third of a second to import: loaded where used
    import pandas as pd

from simrate.core.agreement.batch import (
    REASON_NO_EXPECTED,
    REASON_NO_PAIRABLE,
    REASON_NO_RATINGS,
    REASON_NO_VARIANCE,
    REASON_ONE_RATER,
    expected_nominal,
    expected_ratio,
    midranks,
)
from simrate.core.agreement.correlation import (  # DEFAULT_MIN_OVERLAP: also imported from here
    DEFAULT_MIN_OVERLAP,
    MIN_PEARSON_ITEMS,
    REASON_NO_COMMON,
    REASON_NO_OTHERS,
    REASON_ONE_COMMON,
    REASON_TWO_COMMON,
    pearson_with_reason,
    reason_few_common,
    tame_magnitude,
)
from simrate.core.agreement.correlation import REASON_NO_VARIANCE as REASON_FLAT
from simrate.core.agreement.pair_sums import pair_sums
from simrate.core.agreement.sums import LEVELS, nominal_distance, ratio_distance

#: Relative size below which a variance computed from sums counts as zero (rounding noise).
_VARIANCE_TOLERANCE = 1e-12


def _codes(column: pd.Series, labels: list[str] | None) -> tuple[np.ndarray, list]:
    """(index of each value in `labels`, -1 if absent; the labels), labels default to
    first-seen order. One hashing pass over the column, then a pass over the few labels."""
    import pandas as pd

    codes, seen = pd.factorize(column, sort=False)
    if labels is None:
        return codes, list(seen)
    position = pd.Index(list(labels)).get_indexer(seen)
    return np.append(position, -1)[codes], list(labels)


@dataclass(frozen=True)
class LongRatings:
    """Ratings as three aligned arrays: unit index, rater index, value (no missing values).

    `units` and `raters` label the indices; units may include items nobody rated.
    """

    unit: np.ndarray
    rater: np.ndarray
    value: np.ndarray
    units: list[str]
    raters: list[str]

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, value_column: str = "score",
                   units: list[str] | None = None,
                   raters: list[str] | None = None) -> LongRatings:
        """From a long frame (item_id, annotator, value); labels default to frame order."""
        rated = frame[frame[value_column].notna()]
        unit, unit_labels = _codes(rated["item_id"], units)
        rater, rater_labels = _codes(rated["annotator"], raters)
        keep = (unit >= 0) & (rater >= 0)
        return cls(unit[keep].astype(np.int64), rater[keep].astype(np.int64),
                   rated[value_column].to_numpy(np.float64)[keep],
                   [str(u) for u in unit_labels], [str(r) for r in rater_labels])

    @classmethod
    def from_matrix(cls, data: np.ndarray) -> LongRatings:
        """From a raters x units array with NaN for missing (labels are the indices)."""
        rater, unit = np.nonzero(~np.isnan(data))
        order = np.argsort(unit, kind="stable")
        return cls(unit[order], rater[order], data[rater[order], unit[order]],
                   [str(u) for u in range(data.shape[1])], [str(r) for r in range(data.shape[0])])

    def select_units(self, chosen: np.ndarray) -> LongRatings:
        """Only the ratings of units where the boolean mask `chosen` (per unit) is true."""
        keep = chosen[self.unit]
        return LongRatings(self.unit[keep], self.rater[keep], self.value[keep], self.units,
                           self.raters)

    def select_raters(self, chosen: np.ndarray) -> LongRatings:
        """Only the ratings of raters where the boolean mask `chosen` (per rater) is true."""
        keep = chosen[self.rater]
        return LongRatings(self.unit[keep], self.rater[keep], self.value[keep], self.units,
                           self.raters)

    def active_raters(self) -> np.ndarray:
        """Indices of the raters with at least one rating, in label order."""
        return np.flatnonzero(np.bincount(self.rater, minlength=len(self.raters)))

    def unit_counts(self) -> np.ndarray:
        """Ratings per unit."""
        return np.bincount(self.unit, minlength=len(self.units))


# ----------------------------------------------------------------- alpha
def pairable_ratings(unit: np.ndarray, units: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask of the ratings in units with two or more, their units renumbered 0.. in unit
    order, ratings per such unit), for ratings of `units` units given by unit index."""
    m = np.bincount(unit, minlength=units)
    keep = m[unit] >= 2
    return keep, (np.cumsum(m >= 2) - 1)[unit[keep]], m[m >= 2]


def _pairable(long: LongRatings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(compact unit index, value, per-unit count) of the ratings in units with two or more."""
    keep, unit, m = pairable_ratings(long.unit, len(long.units))
    return unit, long.value[keep], m.astype(np.float64)


def _interval_do(unit: np.ndarray, value: np.ndarray, m: np.ndarray) -> float:
    """Observed disagreement, squared differences: sum_u 2 m sum (x - mean_u)^2 / (m - 1)."""
    mean = np.bincount(unit, weights=value, minlength=m.size) / m
    deviation = value - mean[unit]
    within = np.bincount(unit, weights=deviation * deviation, minlength=m.size)
    return float((2.0 * m * within / (m - 1.0)).sum())


def _interval_de(value: np.ndarray) -> float:
    centred = value - value.mean()
    return 2.0 * value.size * float((centred * centred).sum()) / (value.size - 1.0)


def _coincidence_do(unit: np.ndarray, value: np.ndarray, m: np.ndarray, level: str) -> float:
    """Observed disagreement summed over the coincidence matrix (a sparse product)."""
    from scipy import sparse

    domain, code = np.unique(value, return_inverse=True)
    counts = sparse.csr_matrix((np.ones(value.size), (unit, code.ravel())),
                               shape=(m.size, domain.size))
    weighted = sparse.diags(1.0 / (m - 1.0)) @ counts
    coincidence = (counts.T @ weighted).tocoo()
    c, k = domain[coincidence.row], domain[coincidence.col]
    distance = nominal_distance(c, k) if level == "nominal" else ratio_distance(c, k)
    return float((coincidence.data * distance).sum())


def long_alpha(long: LongRatings, level: str = "interval") -> tuple[float | None, str | None]:
    """Krippendorff's alpha of long-form ratings: (value, None) or (None, reason)."""
    if level not in LEVELS:
        raise ValueError(f"level_of_measurement must be one of {', '.join(LEVELS)}, "
                         f"not {level!r}")
    raters = long.active_raters().size
    if raters < 2:
        return None, REASON_ONE_RATER if raters else REASON_NO_RATINGS
    unit, value, m = _pairable(long)
    if not m.size:
        return None, REASON_NO_PAIRABLE
    if value.min() == value.max():
        return None, REASON_NO_VARIANCE
    value = tame_magnitude(value)
    if level == "ordinal":
        value = midranks(value, value)
    if level in ("interval", "ordinal"):
        observed, expected = _interval_do(unit, value, m), _interval_de(value)
    elif level == "nominal":
        observed, expected = _coincidence_do(unit, value, m, level), expected_nominal(value)
    else:
        observed, expected = _coincidence_do(unit, value, m, level), expected_ratio(value)
    if not expected > 0.0:
        return None, REASON_NO_EXPECTED
    return 1.0 - observed / expected, None


# ----------------------------------------------------------------- Pearson
@dataclass(frozen=True)
class PairwisePearson:
    """Pairwise Pearson over shared items: r (NaN where undefined), shared counts, reasons."""

    r: np.ndarray
    overlap: np.ndarray
    reasons: dict[tuple[int, int], str]


def _self_cells(long: LongRatings, count: np.ndarray) -> tuple[np.ndarray, dict]:
    """Diagonal: 1.0 when a rater's values vary, else NaN with the reason."""
    low, high = grouped_extremes(long.rater, long.value, len(long.raters))
    diagonal = np.where((count >= 2) & (low < high), 1.0, np.nan)
    reasons = {}
    for i in np.flatnonzero(np.isnan(diagonal)).tolist():
        reasons[(i, i)] = (REASON_NO_COMMON if count[i] == 0 else REASON_ONE_COMMON
                           if count[i] == 1 else REASON_FLAT)
    return diagonal, reasons


def _pair_reasons(n: np.ndarray, undefined: np.ndarray, min_overlap: int) -> dict:
    """{(i, j): reason} for every undefined off-diagonal cell."""
    reasons = {}
    few = reason_few_common(min_overlap)
    rows, cols = np.nonzero(undefined)
    for i, j, k in zip(rows.tolist(), cols.tolist(), n[rows, cols].tolist(), strict=True):
        if i != j:
            reasons[(i, j)] = (REASON_NO_COMMON if k == 0 else REASON_ONE_COMMON if k == 1
                               else REASON_TWO_COMMON if k == 2
                               else few if k < min_overlap else REASON_FLAT)
    return reasons


def pairwise_pearson(long: LongRatings, min_overlap: int = DEFAULT_MIN_OVERLAP
                     ) -> PairwisePearson:
    """Pearson of every two raters over the units both rated, from sparse products."""
    count = len(long.raters)
    per_rater = np.bincount(long.rater, minlength=count)
    value = tame_magnitude(long.value)
    # Pearson does not change when one rater's values shift: centring each rater on their
    # own mean keeps the sums small, so n * sum(x^2) - sum(x)^2 loses no digits.
    mean = np.bincount(long.rater, weights=value, minlength=count) / np.maximum(per_rater, 1)
    x = value - mean[long.rater]
    n, sx, sxx, sxy = pair_sums(long.unit, long.rater, x, len(long.units), count)
    var_a = n * sxx - sx * sx
    var_b = var_a.T
    with np.errstate(invalid="ignore", divide="ignore"):
        flat_a = var_a <= _VARIANCE_TOLERANCE * n * sxx
        flat_b = flat_a.T
        r = (n * sxy - sx * sx.T) / np.sqrt(var_a * var_b)
    fewest = max(MIN_PEARSON_ITEMS, min_overlap)
    undefined = (n < fewest) | flat_a | flat_b
    r = np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))
    reasons = _pair_reasons(n, undefined, min_overlap)
    # Where a pair's own spread is tiny beside the rater's mean over all their units, the
    # one-pass sums lose digits (n * sxx - sx^2): those pairs are worked out again, two-pass.
    with np.errstate(invalid="ignore"):
        lossy = (var_a < _RECHECK * n * sxx) | (var_b < _RECHECK * n * sxx.T)
    _recheck(long, value, lossy & (n >= fewest), r, reasons)
    diagonal, self_reasons = _self_cells(long, per_rater)
    np.fill_diagonal(r, diagonal)
    reasons.update(self_reasons)
    return PairwisePearson(r, n.astype(np.int64), reasons)


#: A pair whose variance is below this share of n * sum(x^2) is worked out again, two-pass
#: (a one-pass difference of that kind keeps about 12 of its 16 digits at worst).
_RECHECK = 1e-4


def _recheck(long: LongRatings, value: np.ndarray, chosen: np.ndarray, r: np.ndarray,
             reasons: dict) -> None:
    """r (and the reason, when undefined) of the chosen pairs from their shared ratings,
    as correlation.pair_correlation gives it."""
    rows, cols = np.nonzero(np.triu(chosen, 1))
    pairs = list(zip(rows.tolist(), cols.tolist(), strict=True))
    if not pairs:
        return
    order = np.lexsort((long.unit, long.rater))
    starts = np.r_[0, np.cumsum(np.bincount(long.rater, minlength=len(long.raters)))]
    unit, value = long.unit[order], value[order]
    for i, j in pairs:
        a, b = slice(starts[i], starts[i + 1]), slice(starts[j], starts[j + 1])
        _common, at_a, at_b = np.intersect1d(unit[a], unit[b], assume_unique=True,
                                             return_indices=True)
        found, reason = pearson_with_reason(value[a][at_a], value[b][at_b])
        r[i, j] = r[j, i] = found
        for key in ((i, j), (j, i)):
            if reason:
                reasons[key] = reason
            else:
                reasons.pop(key, None)


#: Up to this many keys, per-key extremes come from a mask per key rather than a sort.
_KEYS_BY_MASK = 16


def grouped_extremes(keys: np.ndarray, values: np.ndarray, size: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Per-key min and max (NaN for keys without values)."""
    low, high = np.full(size, np.nan), np.full(size, np.nan)
    if not values.size:
        return low, high
    if size <= _KEYS_BY_MASK:
        for key in range(size):
            chosen = values[keys == key]
            if chosen.size:
                low[key], high[key] = chosen.min(), chosen.max()
        return low, high
    order = np.argsort(keys, kind="stable")
    sorted_keys, sorted_values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    present = sorted_keys[starts]
    low[present] = np.minimum.reduceat(sorted_values, starts)
    high[present] = np.maximum.reduceat(sorted_values, starts)
    return low, high


def pearson_vs_rest(long: LongRatings, counted: np.ndarray | None = None,
                    min_overlap: int = MIN_PEARSON_ITEMS) -> tuple[np.ndarray, dict[int, str]]:
    """Each rater's Pearson with the mean of the others on each unit (NaN where undefined).

    Over the units the rater rated and someone else did too; the mean is over whichever
    others rated the unit, as in correlation.vs_rest_correlation. With `counted` (a per-rater
    mask) only those raters make up "the others", for every rater alike (an excluded
    worker or a machine is compared with the people who count). Like the pairwise figures
    (pairwise_pearson), it needs `min_overlap` units in common, never fewer than
    MIN_PEARSON_ITEMS (over two units r is +1 or -1 whatever the scores).
    """
    count = len(long.raters)
    value = tame_magnitude(long.value)
    mine = np.ones(value.size) if counted is None else counted[long.rater].astype(np.float64)
    m = np.bincount(long.unit, weights=mine, minlength=len(long.units))
    total = np.bincount(long.unit, weights=value * mine, minlength=m.size)
    others = m[long.unit] - mine
    keep = others >= 1
    rater, x = long.rater[keep], value[keep]
    y = (total[long.unit[keep]] - x * mine[keep]) / others[keep]
    n = np.bincount(rater, minlength=count).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - (np.bincount(rater, weights=x, minlength=count) / n)[rater]
        dy = y - (np.bincount(rater, weights=y, minlength=count) / n)[rater]
        sxx = np.bincount(rater, weights=dx * dx, minlength=count)
        syy = np.bincount(rater, weights=dy * dy, minlength=count)
        sxy = np.bincount(rater, weights=dx * dy, minlength=count)
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    x_low, x_high = grouped_extremes(rater, x, count)
    y_low, y_high = grouped_extremes(rater, y, count)
    size_x = np.bincount(rater, weights=x * x, minlength=count)
    size_y = np.bincount(rater, weights=y * y, minlength=count)
    # values equal but for rounding noise (77 and 77 + 1e-14) vary by nothing real
    noise = (sxx <= _VARIANCE_TOLERANCE ** 2 * size_x) | (syy <= _VARIANCE_TOLERANCE ** 2 * size_y)
    flat = ~(x_low < x_high) | ~(y_low < y_high) | ~(sxx * syy > 0.0) | noise
    reasons = _undefined_reasons(n, flat)
    for i in np.flatnonzero((n >= 2) & (n < max(MIN_PEARSON_ITEMS, min_overlap))):
        reasons[int(i)] = REASON_TWO_COMMON if n[i] == 2 else reason_few_common(min_overlap)
    r[list(reasons)] = np.nan
    return r, reasons


def _undefined_reasons(n: np.ndarray, flat: np.ndarray) -> dict[int, str]:
    """{rater: why their r vs rest is undefined}: no common units, one, or no variance."""
    reasons = {}
    for i in range(n.size):
        if n[i] == 0:
            reasons[i] = REASON_NO_OTHERS
        elif n[i] == 1:
            reasons[i] = REASON_ONE_COMMON
        elif flat[i]:
            reasons[i] = REASON_FLAT
    return reasons
