"""The alt-test: t-test and Benjamini-Yekutieli against scipy and by hand; verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simrate.core.machine.alt_test import alt_test, benjamini_yekutieli, one_sided_p


def test_one_sided_p_matches_scipy():
    rng = np.random.default_rng(0)
    d = rng.integers(-1, 2, 50).astype(float)
    expected = stats.ttest_1samp(d, 0.2, alternative="less").pvalue
    assert one_sided_p(d, 0.2) == pytest.approx(expected)
    assert one_sided_p(np.zeros(40), 0.1) == 0.0 and one_sided_p(np.ones(40), 0.1) == 1.0


def test_benjamini_yekutieli_by_hand():
    # m = 4, H = 25/12; thresholds k/4 * 0.05 / H = 0.006, 0.012, 0.018, 0.024
    p = np.array([0.02, 0.001, 0.3, 0.011])
    assert benjamini_yekutieli(p).tolist() == [False, True, False, True]
    assert benjamini_yekutieli(np.array([0.01, 0.0239, 0.017, 0.0235])).all()  # step-up
    assert not benjamini_yekutieli(np.array([np.nan, 0.5])).any()


def humans_and_truth(items=80, people=4, noise=0.7, seed=1):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 5, items)
    rows = [(f"h{j}", f"i{i}", float(np.clip(np.round((truth[i] + rng.normal(0, noise)) * 4)
                                             / 4, 0, 5)))
            for i in range(items) for j in range(people)]
    return pd.DataFrame(rows, columns=["human", "item", "score"]), truth


def test_a_machine_close_to_the_truth_passes_and_noise_fails():
    humans, truth = humans_and_truth()
    good = {f"i{i}": float(t) for i, t in enumerate(truth)}
    result = alt_test(humans, good, epsilon=0.2)
    assert result.passed and result.winning_rate == 1.0 and result.advantage_probability > 0.6
    rng = np.random.default_rng(2)
    noise = {f"i{i}": float(rng.uniform(0, 5)) for i in range(len(truth))}
    bad = alt_test(humans, noise, epsilon=0.2)
    assert not bad.passed and bad.winning_rate == 0.0
    assert set(bad.humans) == {"h0", "h1", "h2", "h3"}
    assert all(h.instances == 80 for h in bad.humans.values())


def test_humans_with_too_few_items_are_not_tested():
    humans, truth = humans_and_truth(items=20)
    result = alt_test(humans, {f"i{i}": float(t) for i, t in enumerate(truth)})
    assert result.winning_rate is None and not result.passed
    assert result.humans["h0"].p_value is None and result.humans["h0"].instances == 20
