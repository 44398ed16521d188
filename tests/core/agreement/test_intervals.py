"""Bootstrap intervals: unit resampling recomputes alpha exactly; Hayes & Krippendorff's rules."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from simrate.core.agreement.batch import alpha, pairable, unique_ints
from simrate.core.agreement.intervals import (
    alpha_ci,
    alphas_from_weights,
    hayes_bootstrap,
    hayes_plan,
    patterns_of,
    unit_values,
)
from tests.core.agreement.test_batch import HK2007, K2011_C

pytestmark = pytest.mark.filterwarnings("error")

LEVELS = ("interval", "ordinal", "nominal", "ratio")


def _simulated(units: int, seed: int, raters: int = 3, noise: int = 2) -> np.ndarray:
    """Quarter-point ratings on 0-5 around a true score, 10% missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 21, units)
    data = np.clip(truth + rng.integers(-noise, noise + 1, (raters, units)), 0, 20) * 0.25
    data[rng.random(data.shape) < 0.1] = np.nan
    return data


@pytest.mark.parametrize("level", LEVELS)
def test_unit_replicate_is_alpha_of_the_resampled_items(level):
    data = _simulated(150, seed=2)
    part = pairable(data)
    patterns = patterns_of(part)
    rng = np.random.default_rng(0)
    for _ in range(5):
        drawn = rng.integers(0, part.units.size, part.units.size)
        weights = np.bincount(patterns.unit_pattern[drawn], minlength=patterns.m.size)
        ours = alphas_from_weights(patterns, weights[None, :].astype(float), level)[0]
        resampled = data[:, part.units[drawn]]
        assert ours == pytest.approx(
            krippendorff.alpha(resampled, level_of_measurement=level), abs=1e-10)


def dense_patterns(part) -> tuple:
    """Patterns as they were built before the long form: every unit's slots as a sorted column
    of codes (-1 first for a missing value), one key per column, pairs slot by slot."""
    domain = np.unique(part.values)
    v = domain.size
    codes = np.full(part.slots.shape, -1, dtype=np.int64)
    present = ~np.isnan(part.slots)
    codes[present] = np.searchsorted(domain, part.slots[present])
    codes = np.sort(codes, axis=0)
    _, first, unit_pattern, frequency = np.unique(codes.T, axis=0, return_index=True,
                                                  return_inverse=True, return_counts=True)
    shape = codes[:, first]
    here = shape >= 0
    m = here.sum(axis=0).astype(np.float64)
    keys, weights = [], []
    for a in range(shape.shape[0]):
        for b in range(shape.shape[0]):
            both = here[a] & here[b] & (a != b)
            keys.append(np.flatnonzero(both) * v * v + shape[a, both] * v + shape[b, both])
            weights.append(1.0 / (m[both] - 1.0))
    pair_keys, _, inverse, _ = unique_ints(np.concatenate(keys))
    pair_w = np.bincount(inverse, weights=np.concatenate(weights))
    return (domain, unit_pattern.ravel(), frequency, m, pair_keys // (v * v),
            (pair_keys // v) % v, pair_keys % v, pair_w)


@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize("raters", [3, 12, 60])
def test_long_form_patterns_equal_the_dense_construction(raters, continuous):
    rng = np.random.default_rng(raters)
    data = rng.integers(0, 21, (raters, 500)) * 0.25
    if continuous:
        data = np.round(rng.normal(size=(raters, 500)), 2)
    data[rng.random(data.shape) < 1 - min(1.0, 6 / raters) * 0.8] = np.nan
    part = pairable(data)
    ours = patterns_of(unit_values(part))
    fields = (ours.domain, ours.unit_pattern, ours.frequency, ours.m, ours.pair_p, ours.pair_c,
              ours.pair_k, ours.pair_w)
    for mine, reference in zip(fields, dense_patterns(part), strict=True):
        assert np.array_equal(mine, reference)  # same order, same floats


@pytest.mark.parametrize("method", ["units", "hayes"])
def test_intervals_are_seeded_and_deterministic(method):
    data = _simulated(400, seed=3)
    first = alpha_ci(data, "interval", method, replicates=300, seed=7)
    assert first == alpha_ci(data, "interval", method, replicates=300, seed=7)
    assert first != alpha_ci(data, "interval", method, replicates=300, seed=8)


@pytest.mark.parametrize("method", ["units", "hayes"])
@pytest.mark.parametrize("level", LEVELS)
def test_interval_brackets_alpha(method, level):
    data = _simulated(2000, seed=4)
    low, high = alpha_ci(data, level, method, replicates=400, seed=1)
    assert low < alpha(data, level) < high
    assert high - low < 0.2


def test_unit_interval_narrows_with_more_items():
    small = alpha_ci(_simulated(200, seed=5), replicates=400)
    large = alpha_ci(_simulated(5000, seed=5), replicates=400)
    assert (large[1] - large[0]) < (small[1] - small[0]) / 3


def test_unit_bootstrap_covers_the_population_alpha_most_of_the_time():
    # alpha of a very large sample stands in for the population value
    population = alpha(_simulated(200_000, seed=99, noise=3))
    covered = 0
    for seed in range(40):
        low, high = alpha_ci(_simulated(300, seed=seed, noise=3), replicates=300, seed=seed)
        covered += low <= population <= high
    assert covered >= 33  # nominal 95%: 38 of 40 expected


def test_hayes_number_of_draws_follows_kalpha():
    data = np.array(K2011_C, float)
    part = pairable(data)
    n = part.m.sum()  # pairable values
    assert n == 40
    plan = hayes_plan(part, "nominal")
    nonzero_cells = 2 * np.count_nonzero(plan.cell_c != plan.cell_k) + np.count_nonzero(
        plan.cell_c == plan.cell_k)
    assert plan.draws == min(25 * nonzero_cells, (4 - 1) * 40 / 2) == 60
    assert plan.probability.sum() == pytest.approx(1.0)
    # observed disagreement per pair, averaged over the cells, gives back alpha
    observed = plan.probability @ plan.distance
    assert 1 - observed / plan.expected == pytest.approx(alpha(data, "nominal"), abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_hayes_replicates_centre_on_alpha(level):
    part = pairable(HK2007)
    replicates = hayes_bootstrap(part, level, 20_000, seed=0)
    assert replicates.mean() == pytest.approx(alpha(HK2007, level), abs=0.01)


def test_hayes_counts_a_sample_without_variation_as_zero():
    # 2 raters: three units agree on 1, one unit disagrees. n = 8, M = min(25 q, n / 2) = 4
    # draws, each off the diagonal with probability 2/8; De per value = 2 / 8, so a replicate
    # with k disagreeing pairs has alpha 1 - k, except k = 0 (no variation), counted as 0.
    data = np.array([[1, 1, 1, 2], [1, 1, 1, 1]], float)
    plan = hayes_plan(pairable(data), "interval")
    assert plan.draws == 4 and plan.expected == pytest.approx(0.25)
    replicates = hayes_bootstrap(pairable(data), "interval", 20_000, seed=0)
    assert (replicates == 1.0).sum() == 0
    assert (replicates == 0.0).mean() == pytest.approx(0.75 ** 4 + 4 * 0.25 * 0.75 ** 3,
                                                       abs=0.02)
    assert (replicates == -1.0).mean() == pytest.approx(6 * 0.25 ** 2 * 0.75 ** 2, abs=0.02)


def test_undefined_data_has_no_interval():
    assert alpha_ci([[1, 2, 3]]) is None
    assert alpha_ci([[2, 2], [2, 2]], method="hayes") is None
    with pytest.raises(ValueError):
        alpha_ci([[1, 2], [1, 3]], method="jackknife")
    with pytest.raises(ValueError):
        alpha_ci([[1, 2], [1, 3]], level="cardinal")


def test_many_distinct_values_use_the_unit_draw_path():
    rng = np.random.default_rng(6)
    truth = rng.normal(size=300)
    data = truth + rng.normal(scale=0.3, size=(3, 300))  # every unit its own pattern
    low, high = alpha_ci(data, "interval", replicates=200)
    assert low < alpha(data) < high


@pytest.mark.parametrize("method", ["units", "hayes"])
def test_long_form_input_gives_the_dense_interval(method):
    data = _simulated(300, seed=12, raters=5)
    values = unit_values(pairable(data))
    assert alpha_ci(values, "ordinal", method, replicates=300, seed=2) == alpha_ci(
        data, "ordinal", method, replicates=300, seed=2)
    low, high = alpha_ci(values, "interval", method, replicates=300, seed=2)
    assert (low, high) == alpha_ci(values, "interval", method, replicates=300, seed=2)
    assert low < alpha(data) < high
