"""The rater model on simulated crowds with planted bias and noise, against exact oracles,
on degenerate input, and on the real four-rating data of ../shared/realdata/ustsu."""

from __future__ import annotations

import json
import warnings
from functools import cache

import numpy as np
import pytest

from simrate.core.review.rater_model import RaterModelFit, fit_rater_model

SEEDS = (0, 1, 2, 3, 4)
ITEMS, RATERS = 500, 40


@cache
def crowd(seed: int) -> dict[str, np.ndarray]:
    """500 items with truth in [0.5, 4.5] on 0-5, 40 raters (bias +-0.5 summing to 0, noise
    SD 0.3-1.2), 5 distinct raters per item; scores on the 0.25 grid, clipped to [0, 5]."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.5, 4.5, ITEMS)
    bias = rng.uniform(-0.5, 0.5, RATERS)
    bias -= bias.mean()
    noise = rng.uniform(0.3, 1.2, RATERS)
    who = np.argsort(rng.random((ITEMS, RATERS)), axis=1)[:, :5]
    raw = truth[:, None] + bias[who] + rng.normal(size=who.shape) * noise[who]
    scores = np.clip(np.rint(raw * 4) / 4, 0, 5)
    return {"truth": truth, "bias": bias, "noise": noise, "who": who, "scores": scores}


@cache
def fitted(seed: int, per_item: int = 5) -> RaterModelFit:
    """The model on the first `per_item` ratings of each item of crowd(seed)."""
    data = crowd(seed)
    who, scores = data["who"][:, :per_item], data["scores"][:, :per_item]
    items = np.repeat(np.arange(ITEMS), per_item)
    return fit_rater_model(items, who.ravel(), scores.ravel(), ITEMS, RATERS, 0.0, 5.0)


def rmse(estimate: np.ndarray, truth: np.ndarray) -> float:
    return float(np.sqrt(np.mean((estimate - truth) ** 2)))


def plain_mean_rmse(seed: int, per_item: int = 5) -> float:
    data = crowd(seed)
    return rmse(data["scores"][:, :per_item].mean(axis=1), data["truth"])


def oracle_rmse(seed: int) -> float:
    """RMSE of the best weighted mean: true biases taken off, true 1/noise^2 as weights."""
    data = crowd(seed)
    weight = 1.0 / data["noise"][data["who"]] ** 2
    free = data["scores"] - data["bias"][data["who"]]
    gold = np.clip((weight * free).sum(axis=1) / weight.sum(axis=1), 0, 5)
    return rmse(gold, data["truth"])


@pytest.mark.parametrize("seed", SEEDS)
def test_planted_bias_is_recovered_within_a_tenth(seed):
    fit = fitted(seed)
    assert fit.converged
    assert np.median(np.abs(fit.bias - crowd(seed)["bias"])) <= 0.1
    assert abs(np.sum(fit.bias)) < 1e-9  # bias relative to the average rater


def test_planted_noise_is_recovered():
    ratios = [np.median(fitted(seed).noise / crowd(seed)["noise"]) for seed in SEEDS]
    assert 0.9 <= np.mean(ratios) <= 1.1


@pytest.mark.xfail(strict=True, reason=(
    "not reached: on these 5 crowds the model is 0.815 of the plain mean's RMSE "
    "(0.78-0.86); even the weighted mean with the TRUE biases and noises is 0.786 "
    "(0.76-0.81), and a Bayes posterior mean with the true uniform prior does no better, so "
    "the goal needs an estimator within 1.6% of knowing the rater parameters (ours: 3.7%)"))
def test_gold_rmse_is_at_least_20_percent_below_the_plain_mean():
    ratio = np.mean([rmse(fitted(s).gold, crowd(s)["truth"]) / plain_mean_rmse(s)
                     for s in SEEDS])
    assert ratio <= 0.8


def test_gold_rmse_is_well_below_the_plain_mean_and_near_the_oracle():
    truth = {s: crowd(s)["truth"] for s in SEEDS}
    to_mean = np.mean([rmse(fitted(s).gold, truth[s]) / plain_mean_rmse(s) for s in SEEDS])
    to_oracle = np.mean([rmse(fitted(s).gold, truth[s]) / oracle_rmse(s) for s in SEEDS])
    assert to_mean <= 0.85
    assert to_oracle <= 1.05


def test_the_90_percent_intervals_cover_88_to_92_percent_of_the_truths():
    coverage = [np.mean((fitted(s).low <= crowd(s)["truth"]) & (crowd(s)["truth"] <= fitted(s).high))
                for s in SEEDS]
    assert 0.88 <= np.mean(coverage) <= 0.92
    three = [np.mean((fitted(s, 3).low <= crowd(s)["truth"])
                     & (crowd(s)["truth"] <= fitted(s, 3).high)) for s in SEEDS]
    assert 0.87 <= np.mean(three) <= 0.92


@pytest.mark.xfail(strict=True, reason=(
    "out of reach: the weighted mean of 3 ratings with the TRUE biases and noises is "
    "1.04x the plain mean of 5 on these crowds (1.00-1.06), and on 7 larger simulated crowds "
    "the Bayes posterior mean with the true uniform prior was 1.00-1.07x; the model is "
    "1.05-1.13x"))
def test_gold_from_3_ratings_is_as_close_as_the_plain_mean_of_5():
    ratio = np.mean([rmse(fitted(s, 3).gold, crowd(s)["truth"]) / plain_mean_rmse(s)
                     for s in SEEDS])
    assert ratio <= 1.0


def test_gold_from_3_ratings_beats_the_plain_mean_of_3():
    ratio = np.mean([rmse(fitted(s, 3).gold, crowd(s)["truth"]) / plain_mean_rmse(s, 3)
                     for s in SEEDS])
    assert ratio <= 0.9


def balanced_residuals(n_items: int, n_raters: int, seed: int) -> np.ndarray:
    """Items x raters residuals with zero row and column sums and the same squares in every
    column: e_ij = v[(i + j) mod n_raters], v summing to 0. Least squares leaves them as they
    are and gives every rater the same noise, hence equal weights."""
    v = np.random.default_rng(seed).normal(size=n_raters)
    v -= v.mean()
    return v[(np.arange(n_items)[:, None] + np.arange(n_raters)[None, :]) % n_raters]


def test_complete_design_with_equal_noise_matches_the_analytic_values():
    n_items, n_raters = 12, 4
    rng = np.random.default_rng(5)
    truth, bias = rng.uniform(1, 4, n_items), np.array([0.4, -0.1, 0.3, 0.2])
    scores = truth[:, None] + bias[None, :] + balanced_residuals(n_items, n_raters, 5)
    items, raters = np.repeat(np.arange(n_items), n_raters), np.tile(np.arange(n_raters), n_items)
    fit = fit_rater_model(items, raters, scores.ravel(), n_items, n_raters, -10.0, 10.0,
                          tol=1e-12)
    np.testing.assert_allclose(fit.bias, scores.mean(axis=0) - scores.mean(), atol=1e-9)
    np.testing.assert_allclose(fit.gold, scores.mean(axis=1), atol=1e-9)
    # every rater's df: (items - 1)(1 - 1/raters); noise^2 = its residual squares over that
    df = (n_items - 1) * (1 - 1 / n_raters)
    squares = (balanced_residuals(n_items, n_raters, 5) ** 2).sum(axis=0)
    np.testing.assert_allclose(fit.noise, np.sqrt(squares / df), rtol=1e-9)
    # se^2 = s^2 / R + R (1 / R)^2 s^2 / m with m = items (1 - 1 / R)
    m = n_items * (1 - 1 / n_raters)
    expected = fit.noise[0] * np.sqrt(1 / n_raters + 1 / (n_raters * m))
    np.testing.assert_allclose(fit.se, expected, rtol=1e-9)


def test_unbalanced_design_matches_fixed_effects_weighted_least_squares():
    """At its fixed point the model is WLS with item and rater effects and its own weights:
    solved here by lstsq on the dummy design, then centred so the biases sum to 0."""
    rng = np.random.default_rng(11)
    n_items, n_raters = 40, 6
    pairs = [(i, j) for i in range(n_items)
             for j in rng.choice(n_raters, rng.integers(2, 5), replace=False)]
    items, raters = (np.array(p) for p in zip(*pairs, strict=True))
    scores = (rng.uniform(1, 4, n_items)[items] + rng.normal(0, 0.4, n_raters)[raters]
              + rng.normal(0, 0.5, items.size))
    fit = fit_rater_model(items, raters, scores, n_items, n_raters, -10.0, 10.0, tol=1e-12,
                          max_iter=2000)
    assert fit.converged
    design = np.zeros((items.size, n_items + n_raters))
    design[np.arange(items.size), items] = 1.0
    design[np.arange(items.size), n_items + raters] = 1.0
    root = 1.0 / fit.noise[raters]
    coef = np.linalg.lstsq(design * root[:, None], scores * root, rcond=None)[0]
    shift = coef[n_items:].mean()
    np.testing.assert_allclose(fit.bias, coef[n_items:] - shift, atol=1e-8)
    np.testing.assert_allclose(fit.gold, coef[:n_items] + shift, atol=1e-8)


def quiet_fit(items, raters, scores, n_items, n_raters) -> RaterModelFit:
    """The fit with every warning made an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fit_rater_model(np.array(items, dtype=int), np.array(raters, dtype=int),
                               np.array(scores, dtype=float), n_items, n_raters, 0.0, 5.0)


def test_no_ratings_gives_nan_everywhere():
    for fit in (quiet_fit([], [], [], 3, 2), quiet_fit([0, 1], [0, 1], [np.nan] * 2, 3, 2)):
        assert np.isnan(fit.gold).all() and np.isnan(fit.low).all() and np.isnan(fit.se).all()
        assert np.isnan(fit.bias).all() and np.isnan(fit.noise).all()
        assert fit.n_ratings.tolist() == [0, 0]


def test_one_rater_gives_its_scores_and_no_noise():
    fit = quiet_fit([0, 1, 2], [0, 0, 0], [1.0, 2.5, 4.0], 4, 1)
    np.testing.assert_allclose(fit.gold[:3], [1.0, 2.5, 4.0])
    assert np.isnan(fit.gold[3]) and fit.bias.tolist() == [0.0]
    assert np.isnan(fit.noise).all() and np.isnan(fit.se).all()


def test_raters_with_one_rating_and_items_with_one_rating_stay_finite():
    items = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 4]
    raters = [0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 1]
    scores = [1.0, 1.5, 1.25, 3.0, 3.5, 3.0, 4.0, 4.5, 4.5, 2.0, 2.0]
    fit = quiet_fit(items, raters, scores, 6, 5)
    assert np.isfinite(fit.gold[:5]).all() and np.isnan(fit.gold[5])
    assert np.isfinite(fit.noise[:4]).all() and np.isfinite(fit.se[:5]).all()
    assert np.isnan(fit.bias[4]) and np.isnan(fit.noise[4]) and fit.n_ratings[4] == 0
    assert fit.gold[4] == pytest.approx(2.0 - fit.bias[1])  # one rating: x - b
    assert fit.se[3] >= fit.noise[3]
    assert ((fit.reliability[:4] >= 0) & (fit.reliability[:4] <= 1)).all()


def test_all_ratings_equal_uses_the_noise_floor():
    fit = quiet_fit([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 1, 0], [3.0] * 6, 3, 2)
    np.testing.assert_allclose(fit.gold, 3.0)
    np.testing.assert_allclose(fit.bias, 0.0, atol=1e-12)
    np.testing.assert_allclose(fit.noise, 0.05)  # 1% of the 0-5 scale, as an SD
    assert np.isfinite(fit.se).all() and (fit.low <= 3.0).all() and (fit.high >= 3.0).all()


def test_nan_scores_are_ignored():
    data = crowd(0)
    items = np.repeat(np.arange(ITEMS), 5)
    scores = data["scores"].ravel().copy()
    scores[::7] = np.nan
    keep = ~np.isnan(scores)
    with_nan = fit_rater_model(items, data["who"].ravel(), scores, ITEMS, RATERS, 0, 5)
    without = fit_rater_model(items[keep], data["who"].ravel()[keep], scores[keep], ITEMS,
                              RATERS, 0, 5)
    np.testing.assert_array_equal(with_nan.gold, without.gold)
    assert with_nan.n_ratings.sum() == keep.sum()


def test_positions_out_of_range_are_refused():
    with pytest.raises(ValueError, match="rater positions"):
        fit_rater_model(np.array([0]), np.array([3]), np.array([1.0]), 1, 2, 0, 5)


@pytest.mark.realdata
def test_model_fits_the_four_ratings_of_ustsu(realdata):
    pairs = json.loads((realdata / "ustsu" / "dev.json").read_text(encoding="utf-8"))
    scores = np.array([pair["raw_annotation"] for pair in pairs.values()], dtype=float)
    n = len(scores)
    fit = fit_rater_model(np.repeat(np.arange(n), 4), np.tile(np.arange(4), n),
                          scores.ravel(), n, 4, 0.0, 5.0)
    assert fit.converged and np.isfinite(fit.gold).all() and np.isfinite(fit.noise).all()
    assert np.corrcoef(fit.gold, scores.mean(axis=1))[0, 1] > 0.95
