"""The grid-code route of batch alpha (coded.py) against the slot route and krippendorff."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simrate.core.agreement.batch import alpha_with_reason, checked_data, grid_alpha, slot_alpha
from simrate.core.agreement.coded import MAX_CODES, grid_digits
from tests.core.agreement.reference import reference_alpha, same

pytestmark = pytest.mark.filterwarnings("error")

LEVELS = ("nominal", "ordinal", "interval", "ratio")


@st.composite
def grid_data(draw) -> np.ndarray:
    """Raters x units on a grid low + k * step, NaN missing, sometimes a single value; at
    most 16 ** 4 patterns, so that one bincount counts them."""
    raters = draw(st.integers(1, 4))
    units = draw(st.integers(1, 40))
    low = draw(st.sampled_from([0.0, 1.0, -2.0, 0.1, 100.0]))
    step = draw(st.sampled_from([0.25, 0.1, 1.0, 0.5, 3.0, 0.2]))
    top = draw(st.integers(0, 14))
    codes = draw(st.lists(st.one_of(st.none(), st.integers(0, top)),
                          min_size=raters * units, max_size=raters * units))
    return np.array([np.nan if c is None else low + c * step for c in codes]
                    ).reshape(raters, units)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid_data(), st.sampled_from(LEVELS))
def test_grid_route_equals_slot_route_and_the_reference(data, level):
    checked, extremes = checked_data(data)
    if extremes is None:
        return
    fast = grid_alpha(checked, extremes, level)
    assert fast is not None  # a few raters on a grid: the grid route is taken
    slow = slot_alpha(checked, level)
    assert same(fast[0], slow[0]) and fast[1] == slow[1]
    assert same(fast[0], reference_alpha(data, level))


def test_values_off_the_grid_fall_back_and_still_agree():
    rng = np.random.default_rng(2)
    data = rng.integers(0, 2, (3, 10_000)).astype(np.float64)
    data[0, 1] = 0.5  # a column the step guess does not look at
    checked, extremes = checked_data(data)
    assert grid_digits(checked, *extremes) is None
    for level in LEVELS:
        assert alpha_with_reason(data, level)[0] == pytest.approx(
            krippendorff.alpha(data, level_of_measurement=level), abs=1e-9)


def test_too_many_codes_or_raters_take_the_slot_route():
    fine = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, MAX_CODES * 1.0 + 1]])
    assert grid_alpha(*checked_data(fine), "interval") is None
    many = np.tile(np.arange(21.0), (12, 1))  # 22 ** 12 keys: too many for one bincount
    assert grid_alpha(*checked_data(many), "interval") is None
    assert alpha_with_reason(many, "interval") == (1.0, None)


def test_scale_sized_data_agrees_with_the_reference():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 21, 5000)
    data = np.clip(base + rng.integers(-2, 3, (3, 5000)), 0, 20) * 0.25
    data[rng.random(data.shape) < 0.05] = np.nan
    for level in LEVELS:
        assert grid_alpha(*checked_data(data), level) is not None
        assert alpha_with_reason(data, level)[0] == pytest.approx(
            krippendorff.alpha(data, level_of_measurement=level), abs=1e-9)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid_data())
def test_long_report_alpha_by_grid_codes_equals_long_form_alpha(data):
    from simrate.core.agreement.reports.long_report import long_summary
    from simrate.core.agreement.sparse import LongRatings, long_alpha

    long = LongRatings.from_matrix(data)
    report = long_summary(long, LEVELS, ci=True)
    for level in LEVELS:
        value, reason = long_alpha(long, level)
        assert same(report.figures["alpha"][level], value)
        assert report.reasons.get(("alpha", level)) == reason


def test_long_report_with_a_repeated_rating_counts_both():
    from simrate.core.agreement.reports.long_report import long_summary
    from simrate.core.agreement.sparse import LongRatings, long_alpha

    long = LongRatings(np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 0, 1]),
                       np.array([1.0, 2.0, 2.0, 3.0, 4.0]), ["a", "b"], ["r", "s"])
    report = long_summary(long, LEVELS)
    for level in LEVELS:
        assert report.figures["alpha"][level] == long_alpha(long, level)[0]
