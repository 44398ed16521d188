"""Krippendorff's alpha from sufficient statistics instead of the ratings themselves.

Over the pairable values (units with two or more), alpha needs: their number n, the sums
S1 = sum x and S2 = sum x^2, per unit size m the spread T_m = sum over units of
(m S2_u - S1_u^2), and for the levels other than interval the coincidences: per value pair,
ordered pairs of values within a unit, each divided by m - 1. A store that keeps these sums
current (the per-scope AlphaSums, and in the same way LiveAgreement) turns them into alpha here,
as does batch alpha's grid route (coded.py) with the coincidences it counts. The distances of
every level are defined here once.

Each unit's share of a LiveAgreement's observed disagreement (`disagreement_shares`, at the end):
an order for reviewing items in scripts; the app's adjudication queue orders by spread. A unit
with values x_1..x_m adds sum over ordered pairs i != j of d(x_i, x_j) / (m - 1) to the observed
disagreement; its share is that over the total. At the interval level the sums are exact
integers; at the other levels d comes from the same distance matrix as the live alpha (for
ordinal it depends on the current value counts).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from math import gcd
from typing import Any

import numpy as np

LEVELS = ("interval", "ordinal", "nominal", "ratio")


def interval_alpha(n: int, s1: int, s2: int, spread: Mapping[int, int]) -> float | None:
    """Interval alpha from integer sums, exact until the final division; None without variance."""
    variance = n * s2 - s1 * s1  # n^2 times the variance of the values
    if n < 2 or variance == 0:
        return None
    common = 1  # the least common multiple of the (m - 1), so that one division remains
    for m, t in spread.items():
        if t:
            common = common * (m - 1) // gcd(common, m - 1)
    observed = sum(t * (common // (m - 1)) for m, t in spread.items() if t)
    denominator = common * variance
    # int / int is correctly rounded in Python: the one rounding of the whole computation
    return (denominator - (n - 1) * observed) / denominator


def add_unit_pairs(matrix: np.ndarray, counts: Mapping[int, int], sign: int) -> None:
    """Add (sign 1) or remove (-1) one unit's ordered pairs of values to integer coincidence
    counts: with n_c values c in the unit, n_c n_k pairs (c, k) and n_c (n_c - 1) pairs (c, c)."""
    for c, nc in counts.items():
        for k, nk in counts.items():
            if c != k:
                matrix[c, k] += sign * nc * nk
            elif nc > 1:  # a value alone in its unit pairs with no copy of itself
                matrix[c, c] += sign * nc * (nc - 1)


def nominal_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Nominal distance, elementwise: 0 for equal values, 1 otherwise."""
    return (a != b).astype(np.float64)


def ratio_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Ratio distance, elementwise: ((a - b) / (a + b))^2, 0 where a + b is 0."""
    total = a + b
    ratio = np.divide(a - b, total, out=np.zeros(np.broadcast(a, b).shape), where=total != 0)
    return ratio * ratio


def level_distances(level: str, counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The level's squared distances between values (sorted ascending); `counts`, the
    pairable values at each, give the ordinal level its mid-ranks."""
    a, b = values[:, None], values[None, :]
    if level == "interval":
        return (a - b) ** 2
    if level == "nominal":
        return 1.0 - np.eye(values.size)
    if level == "ordinal":
        mid = np.cumsum(counts) - counts / 2.0
        return (mid[:, None] - mid[None, :]) ** 2
    if level == "ratio":
        return ratio_distance(a, b)
    raise ValueError(f"no distance matrix for level {level!r}")


def matrix_alpha(level: str, observed: np.ndarray, counts: np.ndarray,
                 values: np.ndarray) -> float | None:
    """Alpha at any level from the coincidences over a set of values.

    `values` are those values sorted ascending, `counts` the pairable values at each (zero
    allowed) and `observed` their coincidence matrix (pairs within units, divided by m - 1).
    None when undefined (fewer than two values, no expected disagreement).
    """
    if values.size < 2:
        return None
    counts = np.asarray(counts, dtype=np.float64)
    distances = level_distances(level, counts, values)
    # elementwise, not `@`: BLAS threads cost milliseconds on a busy machine for one product
    expected = float((counts[:, None] * distances * counts[None, :]).sum()
                     / (counts.sum() - 1.0))
    if not expected > 0.0:
        return None
    return 1.0 - float((observed * distances).sum()) / expected


# ----------------------------------------------------------------------------- shares
UnitFunction = Callable[[dict[Hashable, int]], float]


def _interval(live: Any) -> tuple[float, UnitFunction]:
    x = live._x
    total = sum(Fraction(2 * t, m - 1) for m, t in live._t.items())

    def interval_do(ratings: dict[Hashable, int]) -> float:
        """2 (m S2 - S1^2) / (m - 1) of one unit's integer values."""
        m = len(ratings)
        s1 = sum(x[i] for i in ratings.values())
        s2 = sum(x[i] * x[i] for i in ratings.values())
        return 2 * (m * s2 - s1 * s1) / (m - 1) if m > 1 else 0.0
    return float(total), interval_do


def unit_disagreement_function(live: Any, level: str) -> tuple[float, UnitFunction]:
    """(total observed disagreement, function of a unit's {rater: value index} -> its part)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if level == "interval":
        return _interval(live)
    order, observed, counts, values = live._matrix_state()
    if order.size < 2:
        return 0.0, lambda ratings: 0.0
    distances = level_distances(level, counts, values)
    where = {int(idx): pos for pos, idx in enumerate(order)}

    def matrix_do(ratings: dict[Hashable, int]) -> float:
        """Sum of the unit's pairwise distances over m - 1."""
        idx = [where[i] for i in ratings.values()]
        m = len(idx)
        return float(distances[np.ix_(idx, idx)].sum()) / (m - 1) if m > 1 else 0.0
    return float((observed * distances).sum()), matrix_do


def disagreement_shares(live, level: str = "interval",
                        units: Iterable[Hashable] | None = None) -> dict[Hashable, float]:
    """{unit: share of a LiveAgreement's observed disagreement} for the given (default: all)
    units, to order an adjudication queue."""
    chosen = live._units if units is None else units
    total, unit_do = unit_disagreement_function(live, level)
    if not total:
        return {u: 0.0 for u in chosen if u in live._units}
    return {u: unit_do(live._units[u]) / total for u in chosen if u in live._units}


def unit_share(live, unit: Hashable, level: str = "interval") -> float:
    """One unit's share of the observed disagreement at `level` (0 when there is none)."""
    return disagreement_shares(live, level, [unit]).get(unit, 0.0)
