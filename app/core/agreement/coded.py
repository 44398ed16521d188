"""Batch alpha when the values sit on a grid (step codes): one key per unit, one bincount.

Ratings on a scale are a few values, low + k * step (a Likert scale in quarter steps has 17
or 21). Each value becomes its code k + 1 (0 for a missing rating); a unit's codes over the
raters, read as digits, make one integer key, and a single np.bincount over those keys counts
the units of each pattern. All else (the coincidence matrix, its marginals, the expected
disagreement of each level) is work on the few distinct patterns and a codes x codes matrix.

The codes are checked, not assumed: equal values get equal codes by construction, and every
value must equal the one value recorded for its code, so codes and values correspond one to
one (and in the same order, the mapping being monotone). When that fails, or the key space
would be large (many raters, many codes), batch.grid_alpha returns None and the caller takes
the general path. Alpha is then the same sum as the reference's, over the same coincidences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Most grid codes taken here (a codes x codes matrix of distances is built).
MAX_CODES = 1024
#: Patterns counted by one bincount: at most this many, or four per unit when more.
_MIN_KEY_SPACE = 1 << 16
#: Columns looked at (spread over the data) to guess the step.
_SAMPLE_COLUMNS = 2048


@dataclass(frozen=True)
class Coincidences:
    """What alpha needs of grid data: coincidences between codes and what the codes mean.

    `observed[c, k]` sums, over pairable units, ordered pairs of values c, k within a unit
    divided by the unit's number of values less one; `values[c]` is the value of code c.
    `raters` counts the raters with a value and `pairable` the units with two or more.
    """

    observed: np.ndarray
    values: np.ndarray
    raters: int
    pairable: int


def _step(data: np.ndarray, low: float, high: float) -> float | None:
    """The grid step suggested by a sample of columns: the greatest common divisor of the
    distances from `low`, up to rounding (for 0.1 steps, which binary floats miss); None
    when the sample already shows more than MAX_CODES steps."""
    stride = max(1, data.shape[1] // _SAMPLE_COLUMNS)
    sample = data[:, ::stride].ravel()
    seen = np.sort(np.r_[sample[~np.isnan(sample)], high]) - low
    distances = seen[np.r_[True, seen[1:] != seen[:-1]] & (seen > 0)].tolist()
    if len(distances) >= MAX_CODES:
        return None
    tolerance = 1e-9 * (high - low)
    step = distances[0] if distances else 1.0
    for distance in distances[1:]:
        a, b = distance, step
        while b > tolerance:
            a, b = b, a % b
        step = a
        if not (high - low) / step < MAX_CODES:
            return None
    return step


def grid_digits(data: np.ndarray, low: float, high: float, keyed: bool = False
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """(raters x units codes, 0 for missing; value of each code 1..V at index 1..V), or None
    when the values are not on one grid of at most MAX_CODES steps from `low` to `high`
    or, `keyed`, when `coincidences` would refuse the codes (checked before making them)."""
    step = _step(data, low, high)
    if step is None or not (high - low) / step < MAX_CODES:
        return None
    shift = low - step  # code k + 1 for low + k * step
    size = int(np.rint((high - shift) / step)) + 1  # the same operations as for the data
    if keyed and _key_space(size, *data.shape) is None:
        return None
    q = np.subtract(data, shift)
    np.divide(q, step, out=q)
    np.rint(q, out=q)
    np.fmax(q, 0.0, out=q)  # NaN (missing) becomes 0
    digits = q.astype(np.intp)
    table = np.zeros(size)
    table[digits] = data  # the last write wins: a code with two values fails the check below
    if np.count_nonzero(table[digits] == data) != np.count_nonzero(digits):
        return None
    table[0] = 0.0
    return digits, table


def _key_space(base: int, raters: int, units: int) -> int | None:
    """base ** raters when one bincount over that many keys is cheap, else None."""
    limit = max(_MIN_KEY_SPACE, 4 * units)
    space = 1
    for _ in range(raters):
        space *= base
        if space > limit:
            return None
    return space


def coincidences(digits: np.ndarray, table: np.ndarray) -> Coincidences | None:
    """The coincidence matrix from per-pattern counts; None when the key space is too big."""
    base = table.size
    space = _key_space(base, digits.shape[0], digits.shape[1])
    if space is None:
        return None
    key = digits[0].copy()
    for row in digits[1:]:
        key *= base
        key += row
    counts = np.bincount(key, minlength=space)
    patterns = np.flatnonzero(counts)
    frequency = counts[patterns].astype(np.float64)
    shape = np.empty((digits.shape[0], patterns.size), dtype=np.intp)
    for r in range(digits.shape[0] - 1, -1, -1):
        patterns, shape[r] = np.divmod(patterns, base)
    present = shape > 0
    raters = int(present.any(axis=1).sum())
    m = present.sum(axis=0)
    keep = m >= 2
    weight = frequency / np.maximum(m - 1, 1)
    observed = np.zeros(base * base)
    for a in range(shape.shape[0]):
        for b in range(shape.shape[0]):
            both = present[a] & present[b] & keep if a != b else None
            if both is not None and both.any():
                observed += np.bincount(shape[a, both] * base + shape[b, both],
                                        weights=weight[both], minlength=base * base)
    observed = observed.reshape(base, base)[1:, 1:]
    return Coincidences(observed, table[1:], raters, int(frequency[keep].sum()))
