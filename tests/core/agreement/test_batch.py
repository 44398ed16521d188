"""Batch alpha: published values, agreement with the krippendorff package, undefined cases."""

from __future__ import annotations

import tracemalloc

import hypothesis.extra.numpy as hnp
import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simrate.core.agreement.batch import (
    REASON_NO_PAIRABLE,
    REASON_NO_RATINGS,
    REASON_NO_VARIANCE,
    REASON_ONE_RATER,
    alpha,
    alpha_with_reason,
    unit_disagreement,
)
from tests.core.agreement.reference import reference_alpha, same

pytestmark = pytest.mark.filterwarnings("error")  # a numpy warning fails the test

LEVELS = ("nominal", "ordinal", "interval", "ratio")
NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
# 12 units, values 1-5, missing data.
K2011_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
K2011_C_PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}

# Same paper, section A: binary data, two observers, ten units: alpha = 0.095.
K2011_A = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
# Section B: nominal data (a-e coded 1-5), two observers, twelve units: alpha = 0.692.
K2011_B = [[1, 1, 2, 2, 4, 3, 3, 3, 5, 4, 4, 1], [2, 1, 2, 2, 2, 3, 3, 3, 5, 4, 4, 4]]

# Hayes & Krippendorff (2007), Table 1: 5 observers, 40 units, ordinal 0-3; they report
# ordinal alpha = 0.7598 from their KALPHA macro.
HK2007 = np.array([
    [1, 1, 2, NAN, 2], [1, 1, 0, 1, NAN], [2, 3, 3, 3, NAN], [NAN, 0, 0, NAN, 0],
    [0, 0, 0, NAN, 0], [0, 0, 0, NAN, 0], [1, 0, 2, NAN, 1], [1, NAN, 2, 0, NAN],
    [2, 2, 2, NAN, 2], [2, 1, 1, 1, NAN], [NAN, 1, 0, 0, NAN], [0, 0, 0, 0, NAN],
    [1, 2, 2, 2, NAN], [3, 3, 2, 2, 3], [1, 1, 1, NAN, 1], [1, 1, 1, NAN, 1],
    [2, 1, 2, NAN, 2], [1, 2, 3, 3, NAN], [1, 1, 0, 1, NAN], [0, 0, 0, NAN, 0],
    [0, 0, 1, 1, NAN], [0, 0, NAN, 0, 0], [2, 3, 3, 3, NAN], [0, 0, 0, 0, NAN],
    [1, 2, NAN, 2, 2], [0, 1, 1, 1, NAN], [0, 0, 0, 1, 0], [1, 2, 1, 2, NAN],
    [1, 1, 2, 2, NAN], [1, 1, 2, NAN, 2], [1, 1, 0, NAN, 0], [2, 1, 2, 1, NAN],
    [2, 2, NAN, 2, 2], [3, 2, 2, 2, NAN], [2, 2, 2, NAN, 2], [2, 2, 3, NAN, 2],
    [2, 2, 2, NAN, 2], [2, 2, NAN, 1, 2], [2, 2, 2, 2, NAN], [1, 1, 1, NAN, 1],
]).T


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_2011_example_reproduces_published_values(level):
    assert round(alpha(K2011_C, level), 3) == K2011_C_PUBLISHED[level]


def test_krippendorff_2011_binary_and_nominal_examples():
    assert round(alpha(K2011_A, "nominal"), 3) == 0.095
    assert round(alpha(K2011_B, "nominal"), 3) == 0.692


def test_hayes_krippendorff_2007_example_ordinal():
    assert round(alpha(HK2007, "ordinal"), 4) == 0.7598


@pytest.mark.parametrize("level", LEVELS)
def test_reference_examples_match_the_krippendorff_package(level):
    for data in (K2011_C, K2011_A, K2011_B, HK2007):
        expected = krippendorff.alpha(np.array(data, float), level_of_measurement=level)
        assert alpha(data, level) == pytest.approx(expected, abs=1e-12)


VALUE_SETS = {
    "binary": [0.0, 1.0],
    "likert": [1.0, 2.0, 3.0, 4.0, 5.0],
    "quarter grid 0-5": [i * 0.25 for i in range(21)],
    "signed floats": [-3.7, -1.0, 0.0, 0.3, 2.5, 10.125, 41.9],
}


@st.composite
def reliability_data(draw, values: list[float]):
    raters = draw(st.integers(2, 6))
    units = draw(st.integers(1, 40))
    chosen = draw(st.lists(st.sampled_from(values), min_size=1, max_size=len(values),
                           unique=True))
    cells = st.one_of(st.sampled_from(chosen), st.just(NAN))
    return draw(hnp.arrays(np.float64, (raters, units), elements=cells))


@pytest.mark.parametrize("values", VALUE_SETS.values(), ids=VALUE_SETS.keys())
@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_agrees_with_krippendorff_package_on_random_data(values, level, data):
    matrix = data.draw(reliability_data(values))
    assert same(alpha(matrix, level), reference_alpha(matrix, level))


@pytest.mark.parametrize("level", LEVELS)
def test_many_raters_few_per_unit_packs_slots_and_still_agrees(level):
    rng = np.random.default_rng(5)
    data = np.full((40, 300), NAN)
    for unit in range(300):  # three of forty raters per unit
        who = rng.choice(40, size=rng.integers(1, 4), replace=False)
        data[who, unit] = rng.integers(0, 7, who.size)
    assert alpha(data, level) == pytest.approx(
        krippendorff.alpha(data, level_of_measurement=level), abs=1e-10)


def test_memory_grows_with_the_data_not_with_values_squared():
    rng = np.random.default_rng(1)
    units, values = 20_000, 201  # an N x V x V array would take 6.5 GB
    data = rng.integers(0, values, (3, units)) * 0.25
    data[rng.random(data.shape) < 0.1] = NAN
    tracemalloc.start()
    for level in LEVELS:
        alpha(data, level)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 * data.nbytes  # a few copies of the input (480 kB), whatever V is


@pytest.mark.parametrize("level", LEVELS)
def test_undefined_cases_give_none_with_a_reason(level):
    assert alpha_with_reason([[1, 2, 3, NAN]], level) == (None, REASON_ONE_RATER)
    assert alpha_with_reason([[1, NAN, 3], [NAN, 2, NAN]], level) == (None, REASON_NO_PAIRABLE)
    assert alpha_with_reason([[2, 2, 2], [2, 2, 2]], level) == (None, REASON_NO_VARIANCE)
    # a different value only in a unit with one rating does not count as variance
    assert alpha_with_reason([[2, 2, 5], [2, 2, NAN]], level) == (None, REASON_NO_VARIANCE)
    assert alpha_with_reason(np.empty((3, 0)), level) == (None, REASON_NO_RATINGS)
    assert alpha_with_reason(np.full((2, 4), NAN), level) == (None, REASON_NO_RATINGS)


def test_perfect_agreement_is_one_and_systematic_disagreement_is_negative():
    assert alpha([[1, 2, 3, 4], [1, 2, 3, 4]]) == 1.0
    assert alpha([[1, 2, 1, 2], [2, 1, 2, 1]], "nominal") < 0


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="2-D"):
        alpha([1, 2, 3])
    with pytest.raises(ValueError, match="numbers"):
        alpha([["a", "b"], ["a", "c"]])
    with pytest.raises(ValueError, match="infinite"):
        alpha([[1, np.inf], [1, 2]])
    with pytest.raises(ValueError, match="level"):
        alpha([[1, 2], [1, 2]], "cardinal")


def _ordinal_distance(counts: dict[float, int], c: float, k: float) -> float:
    """Krippendorff's ordinal metric from its definition, summing counts between c and k."""
    lo, hi = min(c, k), max(c, k)
    between = sum(n for g, n in counts.items() if lo <= g <= hi)
    return (between - (counts[lo] + counts[hi]) / 2.0) ** 2


def _brute_unit_disagreement(data: np.ndarray, level: str) -> np.ndarray:
    units = [data[~np.isnan(data[:, u]), u] for u in range(data.shape[1])]
    pairable_values = [x for vals in units if vals.size >= 2 for x in vals]
    counts = {v: pairable_values.count(v) for v in set(pairable_values)}
    distance = {
        "interval": lambda a, b: (a - b) ** 2,
        "nominal": lambda a, b: float(a != b),
        "ratio": lambda a, b: ((a - b) / (a + b)) ** 2 if a + b else 0.0,
        "ordinal": lambda a, b: _ordinal_distance(counts, a, b),
    }[level]
    per_unit = np.array([
        sum(distance(a, b) for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j)
        / (vals.size - 1) if vals.size >= 2 else 0.0 for vals in units])
    return per_unit / per_unit.sum()


@pytest.mark.parametrize("level", LEVELS)
def test_unit_disagreement_shares_match_a_brute_force_sum(level):
    data = np.array(K2011_C, float)
    shares = unit_disagreement(data, level)
    assert shares == pytest.approx(_brute_unit_disagreement(data, level), abs=1e-12)
    assert shares.sum() == pytest.approx(1.0)
    assert shares[np.isnan(data).sum(axis=0) >= 3].sum() == 0.0  # single-rating units


def test_unit_disagreement_is_zero_without_disagreement():
    assert unit_disagreement([[1, 2, 3], [1, 2, 3]]).tolist() == [0.0, 0.0, 0.0]
    assert unit_disagreement([[1, 2, 3]]).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("scale", [1e300, 1e-300])
@pytest.mark.parametrize("level", LEVELS)
def test_extreme_magnitudes_neither_overflow_nor_warn(level, scale):
    data = np.array(K2011_C, float)
    assert alpha(data * scale, level) == pytest.approx(alpha(data, level), abs=1e-9)
