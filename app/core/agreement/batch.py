"""Krippendorff's alpha on plain arrays, without the N x V x V arrays of the reference library.

Input convention as `krippendorff.alpha`: a raters x units array, NaN for a missing rating.
The observed disagreement is summed unit by unit (over pairs of slots holding a value), the
expected disagreement from the value totals, so memory grows with the data, never with
units x values x values. Ordinal alpha is interval alpha on mid-ranks: with n_g pairable values
of each value g, the ordinal distance of c <= k, (n_c/2 + sum_{c<g<k} n_g + n_k/2)^2, is the
squared difference of the mid-ranks P(c-1) + n_c/2 and P(k-1) + n_k/2 (P = cumulative counts).

Values on a grid of a few steps (ratings on a scale) take a faster route with the same sums:
coded.py counts the units of each pattern of step codes and works on the coincidence matrix.

Undefined results (no unit with two ratings, every paired value the same) are None, never NaN.
`LiveAgreement` (incremental, for the app) lives in live.py; the package re-exports both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simrate.core.agreement.coded import Coincidences, coincidences, grid_digits
from simrate.core.agreement.correlation import tame_magnitude, value_range
from simrate.core.agreement.sums import LEVELS, matrix_alpha, nominal_distance, ratio_distance

__all__ = ["LEVELS", "alpha", "alpha_with_reason", "unit_disagreement"]

#: Reasons reported (by the command line) when a figure is undefined.
REASON_NO_RATINGS = "no ratings"
REASON_ONE_RATER = "one rater only"
REASON_NO_PAIRABLE = "no pairable units (no item has two or more ratings)"
REASON_NO_VARIANCE = "no variance (every paired rating is the same)"
REASON_NO_EXPECTED = "no expected disagreement at the ratio level"

#: Rows of a block when summing value x value distances, to bound memory (about 32 MB).
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Pairable:
    """The pairable part of reliability data: units with two or more values.

    `slots` is S x U (S = most values in a unit), NaN where a unit has fewer values; `m` holds
    each unit's number of values and `units` their column in the original data.
    """

    slots: np.ndarray
    m: np.ndarray
    units: np.ndarray
    n_raters: int

    @property
    def values(self) -> np.ndarray:
        """All pairable values, flattened."""
        return self.slots[~np.isnan(self.slots)]


def as_reliability_data(reliability_data: object) -> np.ndarray:
    """A float raters x units array (scaled by a power of two if extreme); ValueError for
    text, infinities or a wrong shape."""
    return checked_data(reliability_data)[0]


def checked_data(reliability_data: object) -> tuple[np.ndarray, tuple[float, float] | None]:
    """as_reliability_data, with the smallest and largest value (None when none)."""
    try:
        data = np.asarray(reliability_data, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("reliability data must be numbers (NaN for a missing rating)") from None
    if data.ndim != 2:
        raise ValueError(f"reliability data must be raters x units (2-D), not {data.ndim}-D")
    extremes = value_range(data)
    if extremes is not None and np.isinf(extremes).any():
        raise ValueError("reliability data contains an infinite value")
    tamed = tame_magnitude(data, extremes)
    return tamed, (extremes if tamed is data else value_range(tamed))


def pairable(data: np.ndarray) -> Pairable:
    """Keep the units with two or more values; pack sparse data into value slots."""
    present = ~np.isnan(data)
    m_all = present.sum(axis=0)
    keep = np.flatnonzero(m_all >= 2)
    slots = data[:, keep]
    most = int(m_all[keep].max()) if keep.size else 0
    raters = int(present.any(axis=1).sum())
    if slots.shape[0] > most + 2:
        # Many raters, few per unit: sorting moves NaN last, so the first `most` rows hold all.
        slots = np.sort(slots, axis=0)[:most]
    return Pairable(slots, m_all[keep].astype(np.float64), keep, raters)


def unique_ints(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(distinct keys sorted, first position of each, inverse, counts) by one stable sort.

    np.unique is avoided for integer keys: numpy 2's hash-based path takes about a second on
    a million mostly distinct integers, a sort takes milliseconds.
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if keys.size else \
        np.zeros(0, dtype=np.int64)
    counts = np.diff(np.r_[starts, keys.size])
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.repeat(np.arange(starts.size), counts)
    return ordered[starts], order[starts], inverse, counts


def midranks(values: np.ndarray, pairable_values: np.ndarray) -> np.ndarray:
    """Map each value to its mid-rank among the pairable values (NaN stays NaN)."""
    domain, counts = np.unique(pairable_values, return_counts=True)
    mid = np.cumsum(counts) - counts / 2.0
    out = np.full(values.shape, np.nan)
    present = ~np.isnan(values)
    out[present] = mid[np.searchsorted(domain, values[present])]
    return out


def _interval_parts(slots: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, float]:
    """Per-unit observed disagreement and the total expected one, squared differences."""
    present = ~np.isnan(slots)
    filled = np.where(present, slots, 0.0)
    unit_mean = filled.sum(axis=0) / m
    deviation = np.where(present, filled - unit_mean, 0.0)
    # sum over ordered pairs i != j of (x_i - x_j)^2 = 2 m * sum (x_i - mean)^2
    unit_do = 2.0 * m * (deviation * deviation).sum(axis=0) / (m - 1.0)
    values = slots[present]
    n = values.size
    centred = values - values.mean()
    # elementwise, not `@`: BLAS threads cost milliseconds on a busy machine for one dot product
    expected = 2.0 * n * float((centred * centred).sum()) / (n - 1.0)
    return unit_do, expected


def _pair_parts(slots: np.ndarray, m: np.ndarray,
                distance: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Per-unit observed disagreement summed over every pair of slots that both hold a value."""
    present = ~np.isnan(slots)
    filled = np.where(present, slots, 0.0)
    total = np.zeros(slots.shape[1])
    for a in range(slots.shape[0]):
        for b in range(a + 1, slots.shape[0]):
            both = present[a] & present[b]
            total += np.where(both, distance(filled[a], filled[b]), 0.0)
    return 2.0 * total / (m - 1.0)


def expected_nominal(values: np.ndarray) -> float:
    _, counts = np.unique(values, return_counts=True)
    n = float(values.size)
    counts = counts.astype(np.float64)
    return (n * n - float((counts * counts).sum())) / (n - 1.0)


def expected_ratio(values: np.ndarray) -> float:
    """sum over value pairs n_c n_k d(c, k) / (n - 1), in row blocks to bound memory."""
    domain, counts = np.unique(values, return_counts=True)
    counts = counts.astype(np.float64)
    rows = max(1, _BLOCK_CELLS // domain.size)
    total = 0.0
    for start in range(0, domain.size, rows):
        block = ratio_distance(domain[start:start + rows, None], domain[None, :])
        total += float((counts[start:start + rows, None] * block * counts[None, :]).sum())
    return total / (values.size - 1.0)


def disagreement_parts(part: Pairable, level: str) -> tuple[np.ndarray, float]:
    """Per-unit observed disagreement (summed over ordered pairs / (m-1)) and total expected."""
    if level == "interval":
        return _interval_parts(part.slots, part.m)
    if level == "ordinal":
        return _interval_parts(midranks(part.slots, part.values), part.m)
    if level == "nominal":
        return _pair_parts(part.slots, part.m, nominal_distance), expected_nominal(part.values)
    if level == "ratio":
        return _pair_parts(part.slots, part.m, ratio_distance), expected_ratio(part.values)
    raise ValueError(f"level_of_measurement must be one of {', '.join(LEVELS)}, not {level!r}")


def undefined_reason(part: Pairable) -> str | None:
    """Why alpha cannot be computed on this data, or None when it can."""
    if part.n_raters < 2:
        return REASON_ONE_RATER if part.n_raters else REASON_NO_RATINGS
    if part.units.size == 0:
        return REASON_NO_PAIRABLE
    values = part.values
    if values.min() == values.max():
        return REASON_NO_VARIANCE
    return None


def alpha_with_reason(reliability_data: object,
                      level_of_measurement: str = "interval") -> tuple[float | None, str | None]:
    """Return (alpha, None), or (None, reason) when alpha is undefined for this data."""
    if level_of_measurement not in LEVELS:
        raise ValueError(f"level_of_measurement must be one of {', '.join(LEVELS)}, "
                         f"not {level_of_measurement!r}")
    data, extremes = checked_data(reliability_data)
    on_grid = None if extremes is None else grid_alpha(data, extremes, level_of_measurement)
    return on_grid if on_grid is not None else slot_alpha(data, level_of_measurement)


def slot_alpha(data: np.ndarray, level: str) -> tuple[float | None, str | None]:
    """alpha_with_reason for any values (the data checked by as_reliability_data): sums over
    the pairable units' value slots."""
    part = pairable(data)
    reason = undefined_reason(part)
    if reason is not None:
        return None, reason
    unit_do, expected = disagreement_parts(part, level)
    if not expected > 0.0:
        return None, REASON_NO_EXPECTED
    return 1.0 - float(unit_do.sum()) / expected, None


def grid_alpha(data: np.ndarray, extremes: tuple[float, float],
               level: str) -> tuple[float | None, str | None] | None:
    """alpha_with_reason's answer by grid codes (coded.py), or None when the data does not
    suit them (values off a grid, too many codes or raters). `extremes`: value_range(data)."""
    table = grid_table(data, extremes)
    return None if table is None else table_alpha(table, level)


def grid_table(data: np.ndarray, extremes: tuple[float, float]) -> Coincidences | None:
    """The coincidences of grid data (one table serves every level), or None (see grid_alpha)."""
    digits = grid_digits(data, *extremes, keyed=True)
    return None if digits is None else coincidences(*digits)


def table_alpha(table: Coincidences, level: str) -> tuple[float | None, str | None]:
    """(alpha, None), or (None, reason) when undefined, from grid_table's coincidences."""
    if table.raters < 2:
        return None, REASON_ONE_RATER if table.raters else REASON_NO_RATINGS
    if not table.pairable:
        return None, REASON_NO_PAIRABLE
    if np.count_nonzero(table.observed.sum(axis=1)) < 2:
        return None, REASON_NO_VARIANCE
    value = matrix_alpha(level, table.observed, table.observed.sum(axis=1), table.values)
    return (None, REASON_NO_EXPECTED) if value is None else (value, None)


def alpha(reliability_data: object, level_of_measurement: str = "interval") -> float | None:
    """Krippendorff's alpha of raters x units data (NaN missing); None when undefined."""
    return alpha_with_reason(reliability_data, level_of_measurement)[0]


def unit_disagreement(reliability_data: object, level_of_measurement: str = "interval"
                      ) -> np.ndarray:
    """Each unit's share of the observed disagreement (sums to 1; zeros when there is none)."""
    data = as_reliability_data(reliability_data)
    share = np.zeros(data.shape[1])
    part = pairable(data)
    if undefined_reason(part) in (REASON_NO_RATINGS, REASON_ONE_RATER, REASON_NO_PAIRABLE):
        return share
    unit_do, _ = disagreement_parts(part, level_of_measurement)
    total = float(unit_do.sum())
    if total > 0.0:
        share[part.units] = unit_do / total
    return share
