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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.agreement.batch import (
    LEVELS,
    Pairable,
    _nominal_distance,
    _ratio_distance,
    as_reliability_data,
    disagreement_parts,
    pairable,
    undefined_reason,
    unique_ints,
)
from app.core.agreement.coded import grid_digits
from app.core.agreement.correlation import value_range

CI_METHODS = ("units", "hayes")
#: Patterns are counted by one bincount when their keys number at most this (or 4 per unit).
_COUNTED_KEYS = 1 << 16
DEFAULT_CI_METHOD = "units"
_BATCH_CELLS = 1 << 21  # replicates x columns per batch, to bound memory
RATIO_VALUE_LIMIT = 4096


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


def _canonical_codes(part: Pairable) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct pairable values, sorted; S x U indices into them, -1 where missing, each
    column sorted: a multiset's canonical form)."""
    found = _grid_indices(part.slots)
    if found is None:
        domain = np.unique(part.values)
        codes = np.full(part.slots.shape, -1, dtype=np.int64)
        present = ~np.isnan(part.slots)
        codes[present] = np.searchsorted(domain, part.slots[present])
    else:
        domain, codes = found
    return domain, _sorted_columns(codes)


def _grid_indices(slots: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """_canonical_codes' values and (unsorted) indices from grid codes (coded.py), without
    a search among the sorted values; None when the values are not on a grid."""
    extremes = value_range(slots)
    found = None if extremes is None else grid_digits(slots, *extremes)
    if found is None:
        return None
    digits, table = found
    used = np.bincount(digits.ravel(), minlength=table.size) > 0
    used[0] = False  # code 0: missing, index -1
    return table[used], (np.cumsum(used) - 1)[digits]


def _sorted_columns(codes: np.ndarray) -> np.ndarray:
    """np.sort(codes, axis=0); for a few rows by compare-and-swap of whole rows (faster)."""
    if codes.shape[0] > 4:
        return np.sort(codes, axis=0)
    rows = list(codes)
    for end in range(len(rows) - 1, 0, -1):
        for j in range(end):
            rows[j], rows[j + 1] = np.minimum(rows[j], rows[j + 1]), np.maximum(rows[j],
                                                                               rows[j + 1])
    return np.stack(rows) if rows else codes


def _unique_columns(codes: np.ndarray, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct patterns as S x P columns, in key order; pattern of each column; units per
    pattern)."""
    s, units = codes.shape
    if s * np.log2(v + 1) < 62:
        key = np.zeros(units, dtype=np.int64)
        for row in codes:
            key = key * (v + 1) + (row + 1)
        if _few_keys((v + 1) ** s, units):
            return _counted_columns(key, s, v)
        _, first, inverse, counts = unique_ints(key)
        return codes[:, first], inverse, counts
    _, first, inverse, counts = np.unique(codes.T, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    return codes[:, first], inverse.ravel(), counts


def _few_keys(space: int, units: int) -> bool:
    """Whether `space` possible keys are few enough for one bincount over them."""
    return space <= max(_COUNTED_KEYS, 4 * units)


def _counted_columns(key: np.ndarray, s: int, v: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_unique_columns by one bincount over the keys, the patterns read back from them."""
    counts = np.bincount(key, minlength=(v + 1) ** s)
    keys = np.flatnonzero(counts)
    inverse = (np.cumsum(counts > 0) - 1)[key]
    shape = np.empty((s, keys.size), dtype=np.int64)
    for r in range(s - 1, -1, -1):
        keys, digit = np.divmod(keys, v + 1)
        shape[r] = digit - 1
    return shape, inverse, counts[counts > 0]


def patterns_of(part: Pairable) -> Patterns:
    """Reduce pairable units to their patterns (at least one unit must be pairable)."""
    domain, codes = _canonical_codes(part)
    v = domain.size
    shape, unit_pattern, frequency = _unique_columns(codes, v)  # shape: S x P
    present = shape >= 0
    m = present.sum(axis=0).astype(np.float64)
    p_idx = np.broadcast_to(np.arange(shape.shape[1]), shape.shape)
    keys, _, _, value_count = unique_ints(p_idx[present] * v + shape[present])
    pair_keys, pair_w = _pattern_pairs(shape, present, m, v)
    return Patterns(domain, unit_pattern, frequency.astype(np.float64), m, keys // v, keys % v,
                    value_count.astype(np.float64), pair_keys // (v * v), (pair_keys // v) % v,
                    pair_keys % v, pair_w, part.n_raters)


def _pattern_pairs(shape: np.ndarray, present: np.ndarray, m: np.ndarray,
                   v: int) -> tuple[np.ndarray, np.ndarray]:
    """Coincidence entries per pattern: keys p*V*V + c*V + k, weights (ordered pairs)/(m-1)."""
    keys, weights = [], []
    pattern = np.arange(shape.shape[1])
    for a in range(shape.shape[0]):
        for b in range(shape.shape[0]):
            both = present[a] & present[b] if a != b else np.zeros_like(present[a])
            keys.append(pattern[both] * v * v + shape[a, both] * v + shape[b, both])
            weights.append(1.0 / (m[both] - 1.0))
    all_keys, _, inverse, _ = unique_ints(np.concatenate(keys))
    return all_keys, np.bincount(inverse, weights=np.concatenate(weights))


def _distances(level: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Fixed distances between values (not ordinal, whose distances depend on the counts)."""
    if level == "interval":
        return (a - b) ** 2
    if level == "nominal":
        return _nominal_distance(a, b)
    return _ratio_distance(a, b)


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
    order = np.argsort(pat.value_v, kind="stable")
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
    table = _ratio_distance(domain[:, None], domain[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((counts @ table) * counts).sum(axis=1) / (n - 1.0)


def _unit_weights(pat: Patterns, rng: np.random.Generator, size: int) -> np.ndarray:
    """Pattern counts of `size` replicates, each drawing all pairable units with replacement."""
    units = pat.unit_pattern.size
    if _multinomial(pat):
        return rng.multinomial(units, pat.frequency / units, size=size).astype(np.float64)
    draws = rng.integers(0, units, size=(size, units))
    return np.stack([np.bincount(pat.unit_pattern[row], minlength=pat.m.size)
                     for row in draws]).astype(np.float64)


def unit_bootstrap(part: Pairable, level: str, replicates: int, seed: int) -> np.ndarray:
    """Alphas of `replicates` unit-level resamples (NaN for a replicate without variation)."""
    return unit_bootstraps(part, [level], replicates, seed)[level]


def _batch_size(pat: Patterns) -> int:
    """Replicates per batch: arrays of replicates x patterns (or pattern pairs) and, when
    units are drawn one by one, replicates x units stay within _BATCH_CELLS (pattern counts
    drawn at once come out the same however the replicates are batched)."""
    widest = max(pat.m.size, pat.pair_p.size)
    if not _multinomial(pat):
        widest = max(widest, pat.unit_pattern.size)
    return max(1, _BATCH_CELLS // widest)


def _multinomial(pat: Patterns) -> bool:
    """Whether replicates draw pattern counts at once (many units per pattern)."""
    return pat.m.size * 4 <= pat.unit_pattern.size


def unit_bootstraps(part: Pairable, levels: Sequence[str], replicates: int, seed: int
                    ) -> dict[str, np.ndarray]:
    """unit_bootstrap for several levels from one set of draws (what each would draw alone)."""
    pat = patterns_of(part)
    rng = np.random.default_rng(seed)
    batch = _batch_size(pat)
    out: dict[str, list[np.ndarray]] = {level: [] for level in levels}
    for start in range(0, replicates, batch):
        weights = _unit_weights(pat, rng, min(batch, replicates - start))
        for level in levels:
            out[level].append(alphas_from_weights(pat, weights, level))
    return {level: np.concatenate(alphas) for level, alphas in out.items()}


@dataclass(frozen=True)
class HayesPlan:
    """What the Hayes & Krippendorff bootstrap draws from: coincidence cells c <= k."""

    cell_c: np.ndarray
    cell_k: np.ndarray
    probability: np.ndarray  # o_cc / n on the diagonal, 2 o_ck / n off it
    distance: np.ndarray  # the level's distance of each cell, from the original data
    draws: int  # M = min(25 q, (raters - 1) n / 2)
    expected: float  # expected disagreement per pairable value, held fixed


def hayes_plan(part: Pairable, level: str) -> HayesPlan:
    """The cells, probabilities, distances and number of draws of the H&K procedure."""
    pat = patterns_of(part)
    v = pat.domain.size
    cell = pat.pair_c * v + pat.pair_k
    o = np.bincount(cell, weights=pat.pair_w * pat.frequency[pat.pair_p], minlength=v * v)
    o = o.reshape(v, v)
    n = o.sum()
    c, k = np.triu_indices(v)
    mass = np.where(c == k, o[c, k], 2.0 * o[c, k]) / n
    keep = mass > 0
    c, k, mass = c[keep], k[keep], mass[keep]
    draws = int(max(1, min(25 * np.count_nonzero(o), (part.n_raters - 1) * n / 2.0)))
    return HayesPlan(c, k, mass / mass.sum(), _cell_distances(level, pat.domain, o.sum(axis=0),
                                                               c, k),
                     draws, disagreement_parts(part, level)[1] / n)


def hayes_bootstrap(part: Pairable, level: str, replicates: int, seed: int) -> np.ndarray:
    """Alphas of `replicates` Hayes & Krippendorff (2007) resamples of coincidence pairs."""
    plan = hayes_plan(part, level)
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


def alpha_ci(reliability_data: object, level: str = "interval", method: str = DEFAULT_CI_METHOD,
             replicates: int = 1000, seed: int = 0,
             confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval for alpha; None when alpha (or every replicate) is undefined."""
    answer = alpha_cis(reliability_data, [level], method, replicates, seed, confidence)[level]
    if isinstance(answer, ValueError):
        raise answer
    return answer


def alpha_cis(reliability_data: object, levels: Sequence[str], method: str = DEFAULT_CI_METHOD,
              replicates: int = 1000, seed: int = 0, confidence: float = 0.95
              ) -> dict[str, tuple[float, float] | None | ValueError]:
    """alpha_ci of each level, the data read once (and for "units" the draws made once, the
    same for every level as alpha_ci makes them). A level alpha_ci would refuse with a
    ValueError for this data (ratio over too many values) maps to that error."""
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if method not in CI_METHODS:
        raise ValueError(f"method must be one of {', '.join(CI_METHODS)}, not {method!r}")
    part = pairable(as_reliability_data(reliability_data))
    if undefined_reason(part) is not None:
        return dict.fromkeys(levels)
    out: dict[str, tuple[float, float] | None | ValueError] = {}
    if "ratio" in levels and np.unique(part.values).size > RATIO_VALUE_LIMIT:
        out["ratio"] = ValueError(f"a ratio-level interval needs at most {RATIO_VALUE_LIMIT} "
                                  "distinct values (its expected disagreement is a values x "
                                  "values sum)")
    usable = [level for level in levels if level not in out]
    if method == "hayes":
        draws = {level: hayes_bootstrap(part, level, replicates, seed) for level in usable}
    else:
        draws = unit_bootstraps(part, usable, replicates, seed) if usable else {}
    for level, alphas in draws.items():
        out[level] = _percentile_interval(alphas, confidence)
    return {level: out[level] for level in levels}


def _percentile_interval(alphas: np.ndarray, confidence: float) -> tuple[float, float] | None:
    alphas = alphas[~np.isnan(alphas)]
    if alphas.size == 0:
        return None
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(alphas, [tail, 1.0 - tail])
    return float(low), float(high)
