"""Pearson and Spearman correlation between raters, over the units both rated (never by position).

All functions take a raters x units array with NaN for a missing rating. Undefined values
(no common units, fewer than MIN_PEARSON_ITEMS, no variance) are NaN in arrays, with the
reason available from `pair_reason`; no function prints a numpy warning.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

REASON_NO_COMMON = "no common items"
REASON_ONE_COMMON = "only one common item"
REASON_TWO_COMMON = "only two common items (r would be +1 or -1 whatever the scores)"
#: Fewest shared items for a Pearson r: two points always lie on a line, so over two items r
#: is +1 or -1 whatever the scores, says nothing, and drawn it stretches a chart's axis.
MIN_PEARSON_ITEMS = 3
REASON_NO_VARIANCE = "no variance"
REASON_NO_OTHERS = "no other rater rated the same items"
#: Fewest shared items for any correlation the program shows (`agreement --min-overlap`
#: changes it there): the heatmap, the annotator table and report, `annotators`,
#: `agreement` and the XLSX agreement sheet all leave a pair with fewer undefined, so no
#: rater is judged on a chance overlap of a few items.
DEFAULT_MIN_OVERLAP = 10


def reason_few_common(min_overlap: int) -> str:
    """Why a pair with a few shared items has no Pearson here (the one wording for it)."""
    return f"fewer than {min_overlap} common items (--min-overlap)"


def value_range(data: np.ndarray) -> tuple[float, float] | None:
    """(smallest, largest) value, NaN ignored; None when there is none."""
    if data.size == 0:
        return None
    low = float(np.fmin.reduce(data, axis=None))
    if low != low:
        return None
    return low, float(np.fmax.reduce(data, axis=None))


def tame_magnitude(data: np.ndarray, extremes: tuple[float, float] | None = None) -> np.ndarray:
    """Scale by a power of two (exactly) when values are so large or small that squares would
    overflow or underflow; alpha and correlations do not change under scaling. `extremes`
    are value_range(data) when the caller has them."""
    extremes = extremes or value_range(data)
    if extremes is None:
        return data
    largest = max(abs(extremes[0]), abs(extremes[1]))
    if largest == 0.0 or 2.0 ** -400 < largest < 2.0 ** 400:
        return data
    return np.ldexp(data, -math.frexp(largest)[1])


def pearson_with_reason(x: np.ndarray, y: np.ndarray, min_overlap: int = MIN_PEARSON_ITEMS
                        ) -> tuple[float, str | None]:
    """r of two equally long vectors, or (NaN, reason); undefined under `min_overlap` pairs."""
    if x.size == 0:
        return np.nan, REASON_NO_COMMON
    if x.size < MIN_PEARSON_ITEMS:
        return np.nan, REASON_ONE_COMMON if x.size == 1 else REASON_TWO_COMMON
    if x.size < min_overlap:
        return np.nan, reason_few_common(min_overlap)
    if x.min() == x.max() or y.min() == y.max():
        return np.nan, REASON_NO_VARIANCE
    dx = x - x.mean()
    dy = y - y.mean()
    scale = np.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    if not scale > 0.0:
        return np.nan, REASON_NO_VARIANCE
    return float(np.clip(float((dx * dy).sum()) / scale, -1.0, 1.0)), None


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given the mean of the ranks they span."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], values.size]
    mean_rank = (starts + ends + 1) / 2.0  # ranks starts+1 .. ends, averaged
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def pair_correlation(data: np.ndarray, i: int, j: int, method: str = "pearson",
                     min_overlap: int = MIN_PEARSON_ITEMS) -> tuple[float, str | None]:
    """Correlation of raters i and j over the units both rated, or (NaN, reason)."""
    both = ~np.isnan(data[i]) & ~np.isnan(data[j])
    x, y = data[i, both], data[j, both]
    if method == "spearman":
        x, y = average_ranks(x), average_ranks(y)
    elif method != "pearson":
        raise ValueError(f"method must be pearson or spearman, not {method!r}")
    return pearson_with_reason(x, y, min_overlap)


def self_correlation(data: np.ndarray, i: int) -> tuple[float, str | None]:
    """1.0 on the diagonal when the rater's values vary, else (NaN, reason)."""
    values = data[i, ~np.isnan(data[i])]
    if values.size < 2:
        return np.nan, REASON_ONE_COMMON if values.size else REASON_NO_COMMON
    return (1.0, None) if values.min() < values.max() else (np.nan, REASON_NO_VARIANCE)


def correlation_matrix(data: np.ndarray, method: str = "pearson",
                       min_overlap: int = MIN_PEARSON_ITEMS
                       ) -> tuple[np.ndarray, dict[tuple[int, int], str]]:
    """(raters x raters r, NaN where undefined; {(i, j): reason} for the undefined cells)."""
    data = tame_magnitude(np.asarray(data, dtype=np.float64))
    count = data.shape[0]
    matrix = np.full((count, count), np.nan)
    reasons: dict[tuple[int, int], str] = {}
    for i in range(count):
        matrix[i, i], reason = self_correlation(data, i)
        if reason:
            reasons[(i, i)] = reason
        for j in range(i + 1, count):
            r, reason = pair_correlation(data, i, j, method, min_overlap)
            matrix[i, j] = matrix[j, i] = r
            if reason:
                reasons[(i, j)] = reasons[(j, i)] = reason
    return matrix, reasons


def pearson_matrix(data: np.ndarray) -> np.ndarray:
    """Pearson r between every two raters over the units both rated (NaN where undefined)."""
    return correlation_matrix(np.asarray(data, dtype=np.float64), "pearson")[0]


def spearman_matrix(data: np.ndarray) -> np.ndarray:
    """Spearman rho (Pearson of average ranks within the common units), NaN where undefined."""
    return correlation_matrix(np.asarray(data, dtype=np.float64), "spearman")[0]


def vs_rest_correlation(data: np.ndarray, i: int, min_overlap: int = MIN_PEARSON_ITEMS
                        ) -> tuple[float, str | None]:
    """Pearson r of rater i against the mean of the other raters' values on the same units.

    Over the units rater i rated and at least one other rater rated too; the mean is over
    whichever other raters rated the unit.
    """
    data = tame_magnitude(data)
    present = ~np.isnan(data)
    others = np.delete(np.arange(data.shape[0]), i)
    count = present[others].sum(axis=0)
    chosen = present[i] & (count > 0)
    if not chosen.any():
        return np.nan, REASON_NO_OTHERS
    total = np.where(present[others], data[others], 0.0).sum(axis=0)
    mean_rest = total[chosen] / count[chosen]
    return pearson_with_reason(data[i, chosen], mean_rest, min_overlap)


def pearson_vs_rest(data: np.ndarray) -> np.ndarray:
    """Each rater's Pearson r against the mean of the others (NaN where undefined)."""
    data = np.asarray(data, dtype=np.float64)
    return np.array([vs_rest_correlation(data, i)[0] for i in range(data.shape[0])])


def correlation_from_sums(n: int, sx: Fraction | int, sy: Fraction | int, sxx: Fraction | int,
                          syy: Fraction | int, sxy: Fraction | int) -> float | None:
    """Pearson r from exact sums; None with fewer than MIN_PEARSON_ITEMS pairs or no
    variance."""
    if n < MIN_PEARSON_ITEMS:
        return None
    var_x = n * sxx - sx * sx
    var_y = n * syy - sy * sy
    if var_x <= 0 or var_y <= 0:
        return None
    cov = n * sxy - sx * sy
    squared = (cov * cov) / (var_x * var_y)  # exact rational (or int / int), rounded once
    return math.copysign(min(1.0, math.sqrt(float(squared))), cov)
