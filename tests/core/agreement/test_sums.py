"""Alpha from sufficient statistics, checked against the krippendorff package."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from simrate.core.agreement.sums import interval_alpha, level_distances, matrix_alpha

# Two raters, three units: (0, 1), (2, 2), (1, 3).
DATA = np.array([[0.0, 2.0, 1.0], [1.0, 2.0, 3.0]])


def test_interval_alpha_from_hand_made_sums():
    values = DATA.T.ravel()
    n, s1, s2 = len(values), int(values.sum()), int((values ** 2).sum())
    spread = {2: sum(2 * int((u ** 2).sum()) - int(u.sum()) ** 2 for u in DATA.T)}
    expected = krippendorff.alpha(reliability_data=DATA, level_of_measurement="interval")
    assert interval_alpha(n, s1, s2, spread) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", ["interval", "nominal", "ordinal", "ratio"])
def test_matrix_alpha_from_hand_made_coincidences(level):
    values = np.array([0.0, 1.0, 2.0, 3.0])
    observed = np.zeros((4, 4))
    for a, b in DATA.T.astype(int):  # each unit of two gives the ordered pairs (a, b), (b, a)
        observed[a, b] += 1
        observed[b, a] += 1
    counts = observed.sum(axis=1)
    expected = krippendorff.alpha(reliability_data=DATA, level_of_measurement=level)
    assert matrix_alpha(level, observed, counts, values) == pytest.approx(expected, abs=1e-12)


def test_undefined_cases_and_unknown_levels():
    assert interval_alpha(4, 8, 16, {2: 0}) is None  # every value 2: no variance
    assert matrix_alpha("nominal", np.zeros((1, 1)), np.array([4]), np.array([2.0])) is None
    with pytest.raises(ValueError):
        level_distances("cardinal", np.ones(2), np.arange(2.0))


def test_interval_distances_are_squared_differences():
    values = np.array([0.0, 1.0, 3.0])
    assert np.array_equal(level_distances("interval", np.ones(3), values),
                          (values[:, None] - values[None, :]) ** 2)
