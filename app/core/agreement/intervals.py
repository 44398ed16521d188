"""95% bootstrap intervals for Krippendorff's alpha: resampling units, or Hayes & Krippendorff.

Both work from per-pattern sufficient statistics: units with the same multiset of values (a
"pattern") contribute identically to alpha, so a replicate is a vector of pattern weights and
alpha follows from a few matrix products. On a 21-point scale with 3 raters there are at most a
few thousand patterns however many units there are.

- "units": units (items) are drawn with replacement, raters fixed, and alpha is recomputed
  in full (observed and expected disagreement, ordinal ranks) for each replicate. Drawing U units
  uniformly gives pattern counts that are multinomial with the patterns' frequencies.
- "hayes": the procedure of Hayes & Krippendorff (2007, the KALPHA macro): draw M pairs of values
  from the observed coincidences (M = min(25 q, (raters - 1) n / 2), q the non-empty cells,
  n the pairable values), keep the expected disagreement fixed, and give a replicate whose pairs
  all fall in one diagonal cell (no variation) alpha 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simrate.core.agreement.batch import (
    LEVELS,
    Pairable,
    as_reliability_data,
    pairable,
    undefined_reason,
    unique_ints,
)
from simrate.core.agreement.correlation import tame_magnitude
from simrate.core.agreement.sums import nominal_distance, ratio_distance

#: Told how many more bootstrap replicates were drawn (a command's progress line).
Tick = Callable[[int], None]
CI_METHODS = ("units", "hayes")
DEFAULT_CI_METHOD = "units"
_BATCH_CELLS = 1 << 21  # replicates x columns per batch, to bound memory
RATIO_VALUE_LIMIT = 4096
_EXACT_TALLY = 1 << 22  # pairs per coincidence entry summed one by one


@dataclass(frozen=True)
class UnitValues:
    """Pairable values in long form: one entry per value, never a raters x units matrix.

    `unit` numbers the units 0..U-1 (in the order a raters x units matrix would hold them) and
    every unit holds two or more values; `n_raters` counts the raters who gave any value.
    """

    unit: np.ndarray
    value: np.ndarray
    n_raters: int


def unit_values(part: Pairable) -> UnitValues:
    """The values of packed reliability data, unit by unit."""
    present = ~np.isnan(part.slots.T)  # units x slots
    return UnitValues(np.nonzero(present)[0], part.slots.T[present], part.n_raters)


@dataclass(frozen=True)
class Patterns:
    """Distinct value multisets of the pairable units, with their coincidence entries."""

    domain: np.ndarray  # V distinct pairable values, sorted
    unit_pattern: np.ndarray  # U: pattern of each pairable unit
    frequency: np.ndarray  # P: units per pattern
    m: np.ndarray  # P: values per pattern
    value_p: np.ndarray  # sparse value counts: pattern, value index, count
    value_v: np.ndarray
    value_count: np.ndarray
    pair_p: np.ndarray  # coincidences: pattern, value c, value k, count / (m - 1)
    pair_c: np.ndarray
    pair_k: np.ndarray
    pair_w: np.ndarray
    n_raters: int
    value_order: np.ndarray  # the value entries sorted by value (stable), for the totals


def _unique_columns(codes: np.ndarray, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first column of each distinct column, distinct column of each, columns per distinct
    one), distinct columns in lexicographic order."""
    s = codes.shape[0]
    if s * np.log2(v + 1) < 62:
        key = np.zeros(codes.shape[1], dtype=np.int64)
        for row in codes:
            key = key * (v + 1) + (row + 1)
        _, first, inverse, counts = unique_ints(key)
        return first, inverse, counts
    _, first, inverse, counts = np.unique(codes.T, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    return first, inverse.ravel(), counts


def _group_units(unit: np.ndarray, code: np.ndarray, v: int) -> tuple[np.ndarray, ...]:
    """(pattern of each unit, units and values per pattern, and the pattern and code of each
    value of one unit per pattern). Patterns are ordered by size, then by sorted codes.

    Units of one size are laid out as a size x units block of their own codes (each column
    sorted), so the work follows the values, however many raters there are."""
    order = np.argsort(unit * v + code, kind="stable")
    unit, code = unit[order], code[order]
    m = np.bincount(unit)
    unit_pattern = np.empty(m.size, dtype=np.int64)
    frequency: list[np.ndarray] = []
    sizes: list[np.ndarray] = []
    shape_p: list[np.ndarray] = []
    shape_c: list[np.ndarray] = []
    for size in np.unique(m).tolist():
        members = m == size
        block = code[members[unit]].reshape(-1, size).T
        first, inverse, counts = _unique_columns(block, v)
        offset = sum(f.size for f in frequency)
        unit_pattern[members] = inverse + offset
        frequency.append(counts)
        sizes.append(np.full(first.size, float(size)))
        shape_p.append(np.repeat(np.arange(offset, offset + first.size), size))
        shape_c.append(block[:, first].T.ravel())
    return (unit_pattern, np.concatenate(frequency).astype(np.float64), np.concatenate(sizes),
            np.concatenate(shape_p), np.concatenate(shape_c))


def patterns_of(source: Pairable | UnitValues) -> Patterns:
    """Reduce pairable units to their patterns (at least one unit must be pairable)."""
    values = unit_values(source) if isinstance(source, Pairable) else source
    domain, code = np.unique(values.value, return_inverse=True)
    v = domain.size
    unit_pattern, frequency, m, shape_p, shape_c = _group_units(
        np.asarray(values.unit, dtype=np.int64), code.ravel().astype(np.int64), v)
    keys, _, _, value_count = unique_ints(shape_p * v + shape_c)
    value_p, value_v, value_count = keys // v, keys % v, value_count.astype(np.float64)
    pair_p, pair_c, pair_k, pair_w = _pattern_pairs(value_p, value_v, value_count, m)
    return Patterns(domain, unit_pattern, frequency, m, value_p, value_v, value_count,
                    pair_p, pair_c, pair_k, pair_w, values.n_raters,
                    np.argsort(value_v, kind="stable"))


def _pattern_pairs(value_p: np.ndarray, value_v: np.ndarray, value_count: np.ndarray,
                   m: np.ndarray) -> tuple[np.ndarray, ...]:
    """Coincidence entries (pattern, c, k, weight) ordered by pattern, c, k: a pattern with
    n_c values c holds n_c n_k ordered pairs (c, k), n_c (n_c - 1) of (c, c)."""
    per_pattern = np.bincount(value_p, minlength=m.size)
    start = np.cumsum(per_pattern) - per_pattern
    partners = per_pattern[value_p]
    left = np.repeat(np.arange(value_p.size), partners)
    offset = np.arange(left.size) - np.repeat(np.cumsum(partners) - partners, partners)
    right = start[value_p[left]] + offset
    count = value_count[left] * value_count[right] - np.where(left == right,
                                                              value_count[left], 0.0)
    keep = count > 0
    left, right, count = left[keep], right[keep], count[keep].astype(np.int64)
    pattern = value_p[left]
    return pattern, value_v[left], value_v[right], _tally(count, m[pattern])


def _tally(count: np.ndarray, m: np.ndarray) -> np.ndarray:
    """count x 1/(m - 1), summed one pair at a time as a pair-by-pair tally would (the same
    float as before patterns were built from long-form values), or multiplied when huge."""
    out = np.empty(count.size)
    for size in np.unique(m).tolist():
        chosen = m == size
        most = int(count[chosen].max())
        share = 1.0 / (size - 1.0)
        if most <= _EXACT_TALLY:
            out[chosen] = np.cumsum(np.full(most, share))[count[chosen] - 1]
        else:
            out[chosen] = count[chosen] * share
    return out


def _distances(level: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Fixed distances between values (not ordinal, whose distances depend on the counts)."""
    if level == "interval":
        return (a - b) ** 2
    if level == "nominal":
        return nominal_distance(a, b)
    return ratio_distance(a, b)


def alphas_from_weights(pat: Patterns, weights: np.ndarray, level: str) -> np.ndarray:
    """Alpha for each row of pattern weights (replicates x patterns); NaN where undefined."""
    counts = _value_totals(pat, weights)
    n = counts.sum(axis=1)
    if level == "ordinal":
        mid = np.cumsum(counts, axis=1) - counts / 2.0
        gap = mid[:, pat.pair_c] - mid[:, pat.pair_k]
        observed = (weights[:, pat.pair_p] * pat.pair_w * gap * gap).sum(axis=1)
        expected = _spread(counts, mid, n)
    else:
        gaps = _distances(level, pat.domain[pat.pair_c], pat.domain[pat.pair_k])
        per_pattern = np.bincount(pat.pair_p, weights=pat.pair_w * gaps,
                                  minlength=pat.m.size)
        observed = (weights * per_pattern).sum(axis=1)
        expected = _expected(level, counts, n, pat.domain)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = 1.0 - observed / expected
    return np.where(expected > 0.0, result, np.nan)


def _value_totals(pat: Patterns, weights: np.ndarray) -> np.ndarray:
    """Replicates x values: how many pairable values of each value each replicate holds."""
    order = pat.value_order
    values = pat.value_v[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    contributions = weights[:, pat.value_p[order]] * pat.value_count[order]
    counts = np.zeros((weights.shape[0], pat.domain.size))
    counts[:, values[starts]] = np.add.reduceat(contributions, starts, axis=1)
    return counts


def _spread(counts: np.ndarray, values: np.ndarray, n: np.ndarray) -> np.ndarray:
    """sum_ck n_c n_k (v_c - v_k)^2 / (n - 1) per row, from centred values (no cancellation)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (counts * values).sum(axis=1) / n
        centred = values - mean[:, None]
        return 2.0 * n * (counts * centred * centred).sum(axis=1) / (n - 1.0)


def _expected(level: str, counts: np.ndarray, n: np.ndarray, domain: np.ndarray) -> np.ndarray:
    if level == "interval":
        return _spread(counts, np.broadcast_to(domain, counts.shape), n)
    if level == "nominal":
        with np.errstate(divide="ignore", invalid="ignore"):
            return (n * n - (counts * counts).sum(axis=1)) / (n - 1.0)
    table = ratio_distance(domain[:, None], domain[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((counts @ table) * counts).sum(axis=1) / (n - 1.0)


def _unit_weights(pat: Patterns, rng: np.random.Generator, size: int) -> np.ndarray:
    """Pattern counts of `size` replicates, each drawing all pairable units with replacement."""
    units = pat.unit_pattern.size
    if pat.m.size * 4 <= units:
        return rng.multinomial(units, pat.frequency / units, size=size).astype(np.float64)
    draws = rng.integers(0, units, size=(size, units))
    return np.stack([np.bincount(pat.unit_pattern[row], minlength=pat.m.size)
                     for row in draws]).astype(np.float64)


def _patterns(source: Pairable | UnitValues | Patterns) -> Patterns:
    return source if isinstance(source, Patterns) else patterns_of(source)


def unit_bootstrap(source: Pairable | UnitValues | Patterns, level: str, replicates: int,
                   seed: int, tick: Tick | None = None) -> np.ndarray:
    """Alphas of `replicates` unit-level resamples (NaN for a replicate without variation);
    `tick(n)` after each batch of n replicates (a progress line)."""
    pat = _patterns(source)
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_CELLS // max(pat.m.size, pat.pair_p.size, pat.unit_pattern.size))
    out = []
    for start in range(0, replicates, batch):
        weights = _unit_weights(pat, rng, min(batch, replicates - start))
        out.append(alphas_from_weights(pat, weights, level))
        if tick is not None:
            tick(min(batch, replicates - start))
    return np.concatenate(out)


@dataclass(frozen=True)
class HayesPlan:
    """What the Hayes & Krippendorff bootstrap draws from: coincidence cells c <= k."""

    cell_c: np.ndarray
    cell_k: np.ndarray
    probability: np.ndarray  # o_cc / n on the diagonal, 2 o_ck / n off it
    distance: np.ndarray  # the level's distance of each cell, from the original data
    draws: int  # M = min(25 q, (raters - 1) n / 2)
    expected: float  # expected disagreement per pairable value, held fixed


def _expected_total(pat: Patterns, level: str) -> float:
    """The expected disagreement of the data itself (every pattern at its frequency)."""
    counts = _value_totals(pat, pat.frequency[None, :])
    n = counts.sum(axis=1)
    if level == "ordinal":
        return float(_spread(counts, np.cumsum(counts, axis=1) - counts / 2.0, n)[0])
    return float(_expected(level, counts, n, pat.domain)[0])


def hayes_plan(source: Pairable | UnitValues | Patterns, level: str) -> HayesPlan:
    """The cells, probabilities, distances and number of draws of the H&K procedure."""
    pat = _patterns(source)
    v = pat.domain.size
    cell = pat.pair_c * v + pat.pair_k
    o = np.bincount(cell, weights=pat.pair_w * pat.frequency[pat.pair_p], minlength=v * v)
    o = o.reshape(v, v)
    n = o.sum()
    c, k = np.triu_indices(v)
    mass = np.where(c == k, o[c, k], 2.0 * o[c, k]) / n
    keep = mass > 0
    c, k, mass = c[keep], k[keep], mass[keep]
    draws = int(max(1, min(25 * np.count_nonzero(o), (pat.n_raters - 1) * n / 2.0)))
    return HayesPlan(c, k, mass / mass.sum(), _cell_distances(level, pat.domain, o.sum(axis=0),
                                                               c, k),
                     draws, _expected_total(pat, level) / n)


def hayes_bootstrap(source: Pairable | UnitValues | Patterns, level: str, replicates: int,
                    seed: int) -> np.ndarray:
    """Alphas of `replicates` Hayes & Krippendorff (2007) resamples of coincidence pairs."""
    plan = hayes_plan(source, level)
    if not plan.expected > 0.0:
        return np.full(replicates, np.nan)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(plan.draws, plan.probability, size=replicates)
    alphas = 1.0 - (counts @ plan.distance) / (plan.draws * plan.expected)
    # all pairs in one diagonal cell: no variation, alpha indeterminate; KALPHA counts it as 0
    single = (counts.max(axis=1) == plan.draws) & (plan.cell_c == plan.cell_k)[
        counts.argmax(axis=1)]
    return np.where(single, 0.0, alphas)


def _cell_distances(level: str, domain: np.ndarray, totals: np.ndarray, c: np.ndarray,
                    k: np.ndarray) -> np.ndarray:
    if level == "ordinal":
        mid = np.cumsum(totals) - totals / 2.0
        return (mid[c] - mid[k]) ** 2
    return _distances(level, domain[c], domain[k])


def _defined_values(data: object) -> UnitValues | None:
    """The pairable values of raters x units data or of UnitValues; None when alpha is
    undefined (fewer than two raters, no pairable unit, no variation)."""
    if isinstance(data, UnitValues):
        values = UnitValues(data.unit, tame_magnitude(np.asarray(data.value, np.float64)),
                            data.n_raters)
        flat = values.value.size == 0 or values.value.min() == values.value.max()
        return None if values.n_raters < 2 or flat else values
    part = pairable(as_reliability_data(data))
    return None if undefined_reason(part) is not None else unit_values(part)


def alpha_ci(reliability_data: object, level: str = "interval", method: str = DEFAULT_CI_METHOD,
             replicates: int = 1000, seed: int = 0,
             confidence: float = 0.95, tick: Tick | None = None) -> tuple[float, float] | None:
    """Percentile bootstrap interval for alpha over raters x units data (NaN missing) or
    UnitValues; None when alpha (or every replicate) is undefined. `tick(n)` counts the
    replicates drawn, `replicates` in all whatever the outcome."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if method not in CI_METHODS:
        raise ValueError(f"method must be one of {', '.join(CI_METHODS)}, not {method!r}")
    values = _defined_values(reliability_data)
    tick = tick or (lambda n: None)
    if values is None:
        tick(replicates)
        return None
    if level == "ratio" and np.unique(values.value).size > RATIO_VALUE_LIMIT:
        raise ValueError(f"a ratio-level interval needs at most {RATIO_VALUE_LIMIT} distinct "
                         "values (its expected disagreement is a values x values sum)")
    pat = patterns_of(values)
    if method == "hayes":
        alphas = hayes_bootstrap(pat, level, replicates, seed)
        tick(replicates)
    else:
        alphas = unit_bootstrap(pat, level, replicates, seed, tick)
    alphas = alphas[~np.isnan(alphas)]
    if alphas.size == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(alphas, [tail, 1.0 - tail])
    return float(low), float(high)
