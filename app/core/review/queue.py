"""Each unit's share of a LiveAgreement's observed disagreement (`disagreement_shares`).

An order for reviewing items in scripts; the app's adjudication queue orders by spread.

A unit with values x_1..x_m adds sum over ordered pairs i != j of d(x_i, x_j) / (m - 1) to the
observed disagreement; its share is that over the total. At the interval level the sums are
exact integers; at the other levels d comes from the same distance matrix as the live alpha
(for ordinal it depends on the current value counts).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from simrate.core.agreement.sums import LEVELS, level_distances

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
