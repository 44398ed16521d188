"""Correlations between raters: over common items only, against scipy, undefined without noise."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simrate.core.agreement.correlation import (
    REASON_NO_COMMON,
    REASON_NO_OTHERS,
    REASON_NO_VARIANCE,
    REASON_ONE_COMMON,
    average_ranks,
    correlation_matrix,
    pearson_matrix,
    pearson_vs_rest,
    spearman_matrix,
    vs_rest_correlation,
)

pytestmark = pytest.mark.filterwarnings("error")


def _random(raters: int = 4, units: int = 60, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 5, units)
    data = (truth + rng.integers(-1, 2, (raters, units))).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    return data


@pytest.mark.parametrize("method,reference", [("pearson", stats.pearsonr),
                                              ("spearman", stats.spearmanr)])
def test_pairwise_over_items_both_rated_matches_scipy(method, reference):
    data = _random()
    matrix = pearson_matrix(data) if method == "pearson" else spearman_matrix(data)
    for i in range(4):
        for j in range(4):
            if i == j:
                assert matrix[i, j] == 1.0
                continue
            both = ~np.isnan(data[i]) & ~np.isnan(data[j])
            expected = reference(data[i, both], data[j, both])[0]
            assert matrix[i, j] == pytest.approx(expected, abs=1e-12)


def test_vs_rest_is_against_the_mean_of_whoever_else_rated_the_item():
    data = _random(seed=1)
    for i, r in enumerate(pearson_vs_rest(data)):
        x, rest = [], []
        for u in range(data.shape[1]):
            others = [data[j, u] for j in range(4) if j != i and not np.isnan(data[j, u])]
            if not np.isnan(data[i, u]) and others:
                x.append(data[i, u])
                rest.append(sum(others) / len(others))
        assert r == pytest.approx(stats.pearsonr(x, rest)[0], abs=1e-12)


def test_never_aligned_by_position():
    # b rated items 3-5 only; a's ratings of items 0-2 must not pair with them
    data = np.array([[1, 2, 3, 1, 2, 3], [np.nan, np.nan, np.nan, 3, 2, 1]])
    assert pearson_matrix(data)[0, 1] == pytest.approx(-1.0)


def test_undefined_pairs_come_with_reasons():
    data = np.array([
        [1, 2, 3, np.nan, np.nan],  # a
        [np.nan, np.nan, np.nan, 4, 5],  # b: nothing in common with a
        [2, 2, 2, 2, np.nan],  # c: constant
        [np.nan, np.nan, 1, 3, np.nan],  # d: one item in common with a
    ])
    matrix, reasons = correlation_matrix(data)
    assert np.isnan(matrix[0, 1]) and reasons[(0, 1)] == REASON_NO_COMMON
    assert np.isnan(matrix[0, 2]) and reasons[(0, 2)] == REASON_NO_VARIANCE
    assert np.isnan(matrix[0, 3]) and reasons[(0, 3)] == REASON_ONE_COMMON
    assert np.isnan(matrix[2, 2]) and reasons[(2, 2)] == REASON_NO_VARIANCE
    assert vs_rest_correlation(np.array([[1.0, 2.0]]), 0) == (pytest.approx(np.nan,
                                                              nan_ok=True), REASON_NO_OTHERS)


def test_average_ranks_share_ties():
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [3.5, 1.0, 3.5, 2.0]
    assert average_ranks(np.array([1.0, 1.0, 1.0])).tolist() == [2.0, 2.0, 2.0]


def test_perfect_correlation_despite_disagreement_on_every_item():
    data = np.array([[0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]])
    assert pearson_matrix(data)[0, 1] == pytest.approx(1.0)


def test_extreme_magnitudes_neither_overflow_nor_warn():
    data = _random(seed=3)
    for scale in (1e300, 1e-300):
        np.testing.assert_allclose(pearson_matrix(data * scale), pearson_matrix(data),
                                   atol=1e-12)
        np.testing.assert_allclose(pearson_vs_rest(data * scale), pearson_vs_rest(data),
                                   atol=1e-12)


def test_two_common_items_give_no_r_anywhere():
    """Two points always lie on a line: r over two shared items would be +1 or -1 whatever
    the scores. Every route (dense, vs rest, sparse, live sums, checks) leaves it undefined."""
    from simrate.core.agreement.correlation import REASON_TWO_COMMON
    from simrate.core.agreement.live import LiveAgreement
    from simrate.core.agreement.sparse import LongRatings, pairwise_pearson
    from simrate.core.agreement.sparse import pearson_vs_rest as long_vs_rest

    data = np.array([[1.0, 2.0, np.nan], [3.0, 1.0, 2.0]])
    matrix, reasons = correlation_matrix(data)
    assert np.isnan(matrix[0, 1]) and reasons[(0, 1)] == REASON_TWO_COMMON
    assert vs_rest_correlation(data, 0) == (pytest.approx(np.nan, nan_ok=True),
                                            REASON_TWO_COMMON)
    long = LongRatings.from_matrix(data)
    assert np.isnan(pairwise_pearson(long, 1).r[0, 1])
    rest, rest_reasons = long_vs_rest(long, min_overlap=1)
    assert np.isnan(rest[0]) and rest_reasons[0] == REASON_TWO_COMMON
    live = LiveAgreement()
    for rater, row in enumerate(data):
        for unit, value in enumerate(row):
            if not np.isnan(value):
                live.set_rating(unit, rater, float(value))
    assert live.pearson_vs_rest()[0] is None
    assert np.isnan(live.pearson_among([0, 1])[0, 1])
    assert live.pearson_among([0, 1])[0, 0] == 1.0  # a rater's own values still vary
    live.set_rating(2, 0, 3.0)  # the third shared item: now r is a figure
    assert live.pearson_vs_rest()[0] == pytest.approx(-0.5)
