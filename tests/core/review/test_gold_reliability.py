"""Spearman-Brown reliability of the gold: hand values, simulated panels, ustsu's raters."""

from __future__ import annotations

import json
import math
from functools import cache

import numpy as np
import pytest

from simrate import alpha
from simrate.core.review.reliability import gold_reliability, raters_needed, reliability_ci

SEEDS = (0, 1, 2, 3, 4)
ITEMS, PANEL = 4000, 8


def test_hand_computed_reliabilities():
    assert gold_reliability(0.5, 1) == pytest.approx(0.5)
    assert gold_reliability(0.5, 2) == pytest.approx(2 / 3)
    assert gold_reliability(0.5, 4) == pytest.approx(0.8)
    assert gold_reliability(0.54, 5) == pytest.approx(2.7 / 3.16)  # 0.854, issue 41
    assert gold_reliability(1.0, 3) == 1.0 and gold_reliability(0.0, 7) == 0.0
    assert gold_reliability(0.4, 2.5) == pytest.approx(1.0 / 1.6)  # fractional k
    assert gold_reliability(None, 3) is None and gold_reliability(math.nan, 3) is None


def test_negative_alpha_stays_negative_and_above_minus_one():
    assert gold_reliability(-0.1, 2) == pytest.approx(-0.2 / 0.9)
    assert gold_reliability(-0.1, 11) == -1.0  # 1 + 10 * -0.1 = 0
    assert gold_reliability(-0.5, 8) == -1.0
    with pytest.raises(ValueError):
        gold_reliability(0.5, 0)


def test_raters_needed_by_hand():
    # k = target (1 - a) / (a (1 - target)), rounded up
    assert raters_needed(0.5, 0.8) == 4
    assert raters_needed(0.5, 0.9) == 9
    assert raters_needed(0.54, 0.8) == 4  # 3.41 -> 4
    assert raters_needed(0.54, 0.9) == 8  # 7.67 -> 8, as issue 41 measured
    assert raters_needed(0.2, 0.8) == 16
    assert raters_needed(0.85, 0.8) == 1 and raters_needed(1.0, 0.99) == 1
    for none in (None, math.nan, 0.0, -0.2):
        assert raters_needed(none, 0.8) is None
    assert raters_needed(0.9, 1.0) is None


def test_raters_needed_is_the_smallest_panel_reaching_the_target():
    for a in np.linspace(0.05, 0.95, 19):
        for target in (0.7, 0.8, 0.9, 0.95):
            k = raters_needed(float(a), target)
            assert k is not None and gold_reliability(float(a), k) >= target - 1e-12
            assert k == 1 or gold_reliability(float(a), k - 1) < target


def test_reliability_ci_maps_both_ends():
    assert reliability_ci((0.4, 0.6), 4) == pytest.approx((1.6 / 2.2, 2.4 / 2.8))
    assert reliability_ci(None, 4) is None
    assert reliability_ci((math.nan, 0.6), 4) is None


@cache
def panel_figures(seed: int) -> tuple[float, list[float]]:
    """Alpha of 16 ratings per item and, for k = 1..8, the correlation between the means of
    two disjoint panels of k. Each rating comes from a rater drawn for it from a pool of 60
    (bias +-0.4, noise SD 0.4-1.2); truth uniform on [0.5, 4.5]; 0.25 grid, clipped to 0-5."""
    rng = np.random.default_rng(100 + seed)
    bias, noise = rng.uniform(-0.4, 0.4, 60), rng.uniform(0.4, 1.2, 60)
    who = rng.integers(0, 60, (ITEMS, 2 * PANEL))
    raw = rng.uniform(0.5, 4.5, ITEMS)[:, None] + bias[who] + rng.normal(size=who.shape) * noise[who]
    scores = np.clip(np.rint(raw * 4) / 4, 0, 5)
    single = alpha(scores.T, "interval")
    assert single is not None
    observed = [float(np.corrcoef(scores[:, :k].mean(axis=1),
                                  scores[:, PANEL:PANEL + k].mean(axis=1))[0, 1])
                for k in range(1, PANEL + 1)]
    return single, observed


@pytest.mark.parametrize("k", range(1, PANEL + 1))
def test_spearman_brown_predicts_the_correlation_of_two_panels(k):
    predicted = np.mean([gold_reliability(panel_figures(s)[0], k) for s in SEEDS])
    observed = np.mean([panel_figures(s)[1][k - 1] for s in SEEDS])
    assert abs(predicted - observed) <= 0.01, (k, predicted, observed)


@pytest.mark.realdata
def test_spearman_brown_on_the_four_ratings_of_ustsu(realdata):
    pairs = json.loads((realdata / "ustsu" / "dev.json").read_text(encoding="utf-8"))
    scores = np.array([pair["raw_annotation"] for pair in pairs.values()], dtype=float)
    assert scores.shape == (2000, 4)
    single = alpha(scores.T, "interval")  # positions 0..3 as four raters
    predicted = gold_reliability(single, 2)
    observed = np.corrcoef(scores[:, :2].mean(axis=1), scores[:, 2:].mean(axis=1))[0, 1]
    assert predicted is not None and abs(predicted - observed) <= 0.02, (predicted, observed)
