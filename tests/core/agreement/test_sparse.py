"""Long-form agreement equals the dense reference: alpha (and krippendorff), Pearson, vs rest."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simrate.core.agreement.batch import alpha_with_reason
from simrate.core.agreement.correlation import correlation_matrix, vs_rest_correlation
from simrate.core.agreement.reports.long_report import _ci_data, long_agreement_report
from simrate.core.agreement.reports.report import agreement_report, ratings_matrix
from simrate.core.agreement.sparse import (
    LongRatings,
    long_alpha,
    pairwise_pearson,
    pearson_vs_rest,
    reason_few_common,
)
from simrate.core.agreement.sums import LEVELS
from tests.core.agreement.reference import same

pytestmark = pytest.mark.filterwarnings("error")


@st.composite
def reliability_data(draw) -> np.ndarray:
    """Raters x units with NaN; values on a small grid or arbitrary, sometimes constant."""
    raters = draw(st.integers(1, 7))
    units = draw(st.integers(1, 15))
    grid = draw(st.booleans())
    values = (st.integers(0, 6).map(lambda v: v * 0.5) if grid
              else st.integers(1, 10_000).map(lambda v: v / 100))
    cells = draw(st.lists(st.one_of(st.none(), values), min_size=raters * units,
                          max_size=raters * units))
    return np.array([np.nan if c is None else c for c in cells]).reshape(raters, units)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reliability_data(), st.sampled_from(LEVELS))
def test_alpha_equals_dense_reference(data, level):
    ours = long_alpha(LongRatings.from_matrix(data), level)
    dense = alpha_with_reason(data, level)
    assert same(ours[0], dense[0]) and ours[1] == dense[1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reliability_data(), st.integers(2, 6))
def test_pearson_and_vs_rest_equal_dense_reference(data, min_overlap):
    long = LongRatings.from_matrix(data)
    pairs = pairwise_pearson(long, min_overlap)
    dense, reasons = correlation_matrix(data)
    both = (~np.isnan(data)).astype(int) @ (~np.isnan(data)).astype(int).T
    for i in range(data.shape[0]):
        for j in range(data.shape[0]):
            if i != j and both[i, j] < min_overlap:
                assert np.isnan(pairs.r[i, j])
                expected = (reasons[(i, j)] if both[i, j] < 3  # 2: r would be +-1
                            else reason_few_common(min_overlap))
                assert pairs.reasons[(i, j)] == expected
            else:
                assert same(None if np.isnan(pairs.r[i, j]) else pairs.r[i, j],
                            None if np.isnan(dense[i, j]) else dense[i, j])
                assert pairs.reasons.get((i, j)) == reasons.get((i, j))
    rest, rest_reasons = pearson_vs_rest(long)
    for i in range(data.shape[0]):
        value, reason = vs_rest_correlation(data, i)
        assert same(None if np.isnan(rest[i]) else rest[i], None if reason else value)
        assert rest_reasons.get(i) == reason


def test_krippendorff_2011_all_levels():
    """The reference values of Krippendorff (2011), 4 observers x 12 units with gaps."""
    nan = np.nan
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    long = LongRatings.from_matrix(data)
    for level, expected in (("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849),
                            ("ratio", 0.797)):
        value = long_alpha(long, level)[0]
        assert round(value, 3) == expected
        assert value == pytest.approx(krippendorff.alpha(data, level_of_measurement=level))


def test_report_equals_dense_report_with_groups_and_subset():
    rng = np.random.default_rng(3)
    rows = [(f"i{u}", f"r{r}", float(rng.integers(0, 9)) / 2)
            for u in range(80) for r in range(6) if rng.random() < 0.6]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "score"])
    group_of = {f"i{u}": "ab"[u % 2] for u in range(80)}
    subset = {f"i{u}" for u in range(0, 80, 3)}
    dense = agreement_report(ratings_matrix(frame), list(LEVELS), group_of, subset, ci=True,
                             min_overlap=2)
    long = long_agreement_report(LongRatings.from_frame(frame), list(LEVELS), group_of,
                                 subset, ci=True, min_overlap=2)
    for ours, theirs in [(long, dense), *[(long.groups[g], dense.groups[g]) for g in "ab"]]:
        a, b = ours.to_json(), theirs.to_json()
        assert a.pop("min_overlap") == 2 == b.pop("min_overlap")
        a.pop("groups", None), b.pop("groups", None)
        assert a.keys() == b.keys()
        for key in ("items", "pairable_items", "annotators", "ci95"):
            assert a[key] == b[key]
        for level in LEVELS:
            assert same(a["alpha"][level], b["alpha"][level])
            assert same(a["alpha_unadjudicated"][level], b["alpha_unadjudicated"][level])
        for x in a["pearson"]:
            assert same(a["pearson_vs_rest"][x], b["pearson_vs_rest"][x])
            for y in a["pearson"]:
                assert same(a["pearson"][x][y], b["pearson"][x][y])


def test_interval_values_keep_pairable_units_only():
    data = np.array([[1, np.nan, 3, 4], [2, 5, np.nan, 4], [np.nan, np.nan, 1, 4]])
    values = _ci_data(LongRatings.from_matrix(data))
    assert values.n_raters == 3
    assert values.unit.tolist() == [0, 0, 1, 1, 2, 2, 2]  # unit 1 has one rating: left out
    assert values.value.tolist() == [1, 2, 3, 1, 4, 4, 4]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reliability_data())
def test_dense_pair_sums_equal_listed_pairs(data):
    from simrate.core.agreement.pair_sums import _dense_pair_sums, _listed_pair_sums

    long = LongRatings.from_matrix(data)
    count, units = len(long.raters), len(long.units)
    dense = _dense_pair_sums(long.unit, long.rater, long.value, units, count)
    if dense is None:  # fewer ratings than half the cells
        assert 2 * long.value.size < count * units
        return
    listed = _listed_pair_sums(long.unit, long.rater, long.value, count)
    for ours, reference in zip(dense, listed, strict=True):
        np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-9)


def test_dense_pair_sums_refuse_a_repeated_rating():
    from simrate.core.agreement.pair_sums import _dense_pair_sums

    unit, rater = np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1])
    assert _dense_pair_sums(unit, rater, np.array([1.0, 2.0, 3.0, 4.0]), 2, 2) is None


def test_pearson_of_a_pair_far_from_its_raters_means_keeps_its_digits():
    """Found by the hypothesis test above: rater 1's mean (21) is far from the units it
    shares with rater 0 (0.01, 0.02, 0), so one-pass sums lost seven digits (r came out as
    -0.999999999 instead of -1). Such pairs are worked out again, two-pass."""
    nan = np.nan
    data = np.array([[nan, 0.02, 0.01, 0.03], [83.95, 0.01, 0.02, 0.0]])
    pairs = pairwise_pearson(LongRatings.from_matrix(data), 2)
    dense, _reasons = correlation_matrix(data)
    assert pairs.r[0, 1] == pairs.r[1, 0] == dense[0, 1]
    assert abs(pairs.r[0, 1] + 1.0) < 1e-12  # one pass gave -0.999999999
    assert (0, 1) not in pairs.reasons
    flat = np.array([[nan, 0.02, 0.02, 0.02], [83.95, 0.01, 0.02, 0.0]])  # rater 0 constant
    pairs = pairwise_pearson(LongRatings.from_matrix(flat), 2)
    assert np.isnan(pairs.r[0, 1])
    assert pairs.reasons[(0, 1)] == correlation_matrix(flat)[1][(0, 1)]
