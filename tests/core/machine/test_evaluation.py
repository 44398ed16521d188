"""Measures and task logic of app/core/machine/evaluation.py, against hand-computed values and scipy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import DEBATABLE, FALSE, TRUE, DatasetInput
from simrate.core.machine.evaluation import (
    Measure,
    average_ranks,
    binary_scores,
    evaluate,
    least_squares_fit,
    max_f1,
    pearson,
    spearman,
)


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    """A numpy RuntimeWarning (division by zero, invalid value) fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def data(name, gold, system, gold_labels=None, system_labels=None):
    arrays = [np.asarray(v, dtype=np.float64) for v in (gold, system)]
    labels = [None if v is None else np.asarray(v, dtype=np.int8)
              for v in (gold_labels, system_labels)]
    return DatasetInput(name, *arrays, *labels)


# ---------------------------------------------------------------- correlations


def test_pearson_hand_computed():
    # deviations (-1, 0, 1) and (-1, 1, 0): sum of products 1, sums of squares 2 and 2
    assert pearson([1, 2, 3], [1, 3, 2]).value == pytest.approx(0.5)
    assert pearson([1, 2, 3], [30, 20, 10]).value == pytest.approx(-1.0)


def test_pearson_and_spearman_agree_with_scipy_on_random_data():
    rng = np.random.default_rng(7)
    for _ in range(20):
        gold = rng.integers(0, 21, size=60) * 0.25  # a 0-5 grid: many ties
        system = gold + rng.normal(0, 1.5, size=60)
        system[:10] = np.round(system[:10])  # ties in the system too
        assert pearson(gold, system).value == pytest.approx(stats.pearsonr(gold, system)[0],
                                                            abs=1e-12)
        assert spearman(gold, system).value == pytest.approx(
            stats.spearmanr(gold, system)[0], abs=1e-12)


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]
    assert average_ranks([3, 3, 3]).tolist() == [2.0, 2.0, 2.0]


def test_spearman_hand_computed_with_ties():
    # ranks gold (1, 2.5, 2.5, 4) vs system (1, 3, 2, 4): deviations (-1.5, 0, 0, 1.5)
    # and (-1.5, 0.5, -0.5, 1.5): products 4.5, squares 4.5 and 5 -> 4.5 / sqrt(22.5)
    value = spearman([1, 2, 2, 3], [1, 3, 2, 4]).value
    assert value == pytest.approx(4.5 / np.sqrt(22.5))


@pytest.mark.parametrize("measure", [pearson, spearman])
def test_constant_system_is_undefined_with_a_reason(measure):
    result = measure([1.0, 2.0, 3.0], [0.1, 0.1, 0.1])  # 0.1 has no exact float mean
    assert result.value is None and result.reason == "system scores are constant"
    assert result.text() == "n/a (system scores are constant)"


def test_constant_gold_and_too_few_items_are_undefined():
    assert pearson([2, 2, 2], [1, 2, 3]).reason == "gold scores are constant"
    assert pearson([1], [1]).value is None and "needs at least 3" in pearson([1], [1]).reason
    assert pearson([], []).value is None


def test_measure_text():
    assert Measure(0.123456).text() == "0.1235"
    assert Measure.undefined("why").text() == "n/a (why)"


# ---------------------------------------------------------------- STS 2012


def test_least_squares_fit_maps_a_linear_system_onto_gold():
    assert least_squares_fit([1, 2, 3], [10, 20, 30]) == pytest.approx([1, 2, 3])
    # same answer as numpy's polynomial fit of degree 1
    rng = np.random.default_rng(1)
    gold, system = rng.uniform(0, 5, 40), rng.uniform(-3, 9, 40)
    slope, intercept = np.polyfit(system, gold, 1)
    assert least_squares_fit(gold, system) == pytest.approx(slope * system + intercept)


def test_least_squares_fit_of_a_constant_system_is_the_gold_mean():
    assert least_squares_fit([1, 2, 6], [4, 4, 4]).tolist() == [3.0, 3.0, 3.0]


def test_sts_totals_hand_computed():
    # A: r = 1 over 3 pairs.  B: gold (1,2,3,4) vs (1,3,2,4): r = 4 / 5 = 0.8 over 4 pairs.
    report = evaluate("sts", [data("A", [0, 1, 2], [0, 1, 2]),
                              data("B", [1, 2, 3, 4], [1, 3, 2, 4])])
    by_name = {r.name: r for r in report.datasets}
    assert by_name["A"].measures["pearson"].value == pytest.approx(1.0)
    assert by_name["B"].measures["pearson"].value == pytest.approx(0.8)
    assert report.totals["mean"].value == pytest.approx((3 * 1.0 + 4 * 0.8) / 7)
    gold = [0, 1, 2, 1, 2, 3, 4]
    assert report.totals["all"].value == pytest.approx(
        stats.pearsonr(gold, [0, 1, 2, 1, 3, 2, 4])[0])
    # B fitted: slope 0.8, gold mean 2.5, system mean 2.5 -> 2.5 + 0.8 * (x - 2.5)
    fitted_b = [2.5 + 0.8 * (x - 2.5) for x in (1, 3, 2, 4)]
    assert report.totals["allnrm"].value == pytest.approx(
        stats.pearsonr(gold, [0, 1, 2, *fitted_b])[0])


def test_allnrm_undoes_opposite_scales_of_datasets():
    # Each dataset alone is perfect (r = 1 and r = -1 after a flip), concatenated they
    # cancel (ALL = 0); after the least-squares fit both lie on the gold line (ALLnrm = 1).
    report = evaluate("sts", [data("up", [0, 1, 2], [0, 1, 2]),
                              data("down", [3, 4, 5], [2, 1, 0])])
    assert report.totals["all"].value == pytest.approx(0.0, abs=1e-12)
    assert report.totals["allnrm"].value == pytest.approx(1.0)
    assert report.totals["mean"].value == pytest.approx(0.0, abs=1e-12)


def test_sts_constant_dataset_gives_null_mean_but_all_and_allnrm_still_defined():
    report = evaluate("sts", [data("A", [0, 1, 2], [0, 1, 2]),
                              data("B", [1, 2, 3, 4], [2, 2, 2, 2])])
    b = report.datasets[1].measures["pearson"]
    assert b.value is None and b.reason == "system scores are constant"
    assert report.totals["mean"].value is None
    assert "Pearson of B is undefined" in report.totals["mean"].reason
    assert report.totals["all"].defined and report.totals["allnrm"].defined
    out = report.to_json()
    assert out["datasets"]["B"]["pearson"] is None
    assert out["datasets"]["B"]["reasons"]["pearson"] == "system scores are constant"
    assert out["mean"] is None and "mean" in out["reasons"]


# ---------------------------------------------------------------- CLSS 2014


def test_clss_sum_of_pearson_hand_computed():
    report = evaluate("clss", [data("paragraph2sentence", [0, 1, 2], [0, 1, 2]),
                               data("sentence2phrase", [1, 2, 3, 4], [1, 3, 2, 4])])
    assert report.totals["sum_pearson"].value == pytest.approx(1.8)
    assert set(report.to_json()) == {"task", "datasets", "sum_pearson", "reasons"}
    assert set(report.to_json()["datasets"]["sentence2phrase"]) >= {"n", "pearson", "spearman"}


def test_dataset_given_twice_is_refused():
    with pytest.raises(SimrateError, match="given twice"):
        evaluate("clss", [data("x", [0, 1], [0, 1]), data("x", [0, 1], [1, 0])])


def test_unknown_task_and_no_input_are_refused():
    with pytest.raises(SimrateError):
        evaluate("msr", [data("x", [0, 1], [0, 1])])
    with pytest.raises(SimrateError):
        evaluate("sts", [])


# ---------------------------------------------------------------- PIT 2015

T, F, D = TRUE, FALSE, DEBATABLE


def test_binary_scores_leave_debatable_gold_out():
    result = binary_scores([T, T, F, F, D, D], [T, F, T, F, T, T])
    assert result["counts"] == {"n_binary": 4, "tp": 1, "fp": 1, "fn": 1, "tn": 1}
    assert result["precision"].value == 0.5 and result["recall"].value == 0.5
    assert result["f1"].value == 0.5


def test_binary_scores_hand_computed_unequal():
    # tp 2, fp 1, fn 2 -> P 2/3, R 1/2, F1 = 2 * (1/3) / (7/6) = 4/7
    result = binary_scores([T, T, T, T, F, F], [T, T, F, F, T, F])
    assert result["precision"].value == pytest.approx(2 / 3)
    assert result["recall"].value == pytest.approx(0.5)
    assert result["f1"].value == pytest.approx(4 / 7)


def test_binary_scores_undefined_precision_and_zero_f1():
    never_true = binary_scores([T, F], [F, F])
    assert never_true["precision"].value is None and never_true["recall"].value == 0
    assert never_true["f1"].value == 0.0  # 2tp / (2tp + fp + fn) = 0 / 1
    all_wrong = binary_scores([T, F], [F, T])
    assert all_wrong["precision"].value == 0 and all_wrong["f1"].value == 0.0
    no_gold_true = binary_scores([F, F, D], [T, F, T])
    assert no_gold_true["recall"].value is None and no_gold_true["f1"].value == 0.0
    nothing_true = binary_scores([F, D], [F, T])
    assert nothing_true["f1"].value is None and "gold or system" in nothing_true["f1"].reason


def test_max_f1_hand_computed():
    # cuts: >=0.9 P1 R.5 F.667; >=0.8 P.5 R.5; >=0.7 P.667 R1 F.8; >=0.1 P.5 R1 F.667
    best, threshold = max_f1([T, F, T, F, D], [0.9, 0.8, 0.7, 0.1, 0.95])
    assert best.value == pytest.approx(0.8)
    assert threshold.value == 0.7


def test_max_f1_keeps_tied_scores_together():
    # One true and one false item share a score: no threshold separates them, so the
    # only cut gives P 0.5, R 1 (an item-by-item sweep would report F1 = 1).
    best, threshold = max_f1([T, F], [0.5, 0.5])
    assert best.value == pytest.approx(2 / 3) and threshold.value == 0.5


def test_max_f1_matches_brute_force_over_every_threshold():
    rng = np.random.default_rng(3)
    for _ in range(30):
        labels = rng.choice([T, F, D], size=40)
        labels[0] = T
        scores = np.round(rng.uniform(0, 1, size=40), 1)  # coarse: many ties
        best_brute = 0.0
        for t in np.unique(scores):
            predicted = scores >= t
            decided = labels != D
            tp = np.sum(predicted & (labels == T))
            fp = np.sum(predicted & (labels == F))
            fn = np.sum(~predicted & (labels == T) & decided)
            if tp:
                p, r = tp / (tp + fp), tp / (tp + fn)
                best_brute = max(best_brute, 2 * p * r / (p + r))
        assert max_f1(labels, scores)[0].value == pytest.approx(best_brute)


def test_pit_evaluation_pearson_over_all_items_binary_without_debatable():
    gold_scores = [0.8, 0.2, 0.6, 1.0, 0.0]
    gold_labels = [T, F, D, T, F]
    system_scores = [0.7, 0.4, 0.9, 0.6, 0.1]
    system_labels = [T, F, T, T, F]
    report = evaluate("pit", [data("test", gold_scores, system_scores, gold_labels,
                                   system_labels)])
    result = report.datasets[0]
    assert result.n == 5 and result.counts["n_binary"] == 4
    assert result.measures["precision"].value == 1.0
    assert result.measures["recall"].value == 1.0
    assert result.measures["pearson"].value == pytest.approx(
        stats.pearsonr(gold_scores, system_scores)[0])
    assert result.measures["max_f1"].value == 1.0  # cut at 0.6 keeps 0.7, 0.6 (and debatable)
    out = report.to_json()
    assert {"precision", "recall", "f1", "pearson", "max_f1"} <= set(out)
    assert out["f1"] == 1.0 and out["datasets"]["test"]["n"] == 5


def test_pit_binary_only_run_has_no_degreed_measures():
    report = evaluate("pit", [data("test", [0.8, 0.2, 0.4], [0, 0, 0], [T, F, F], [T, F, T])])
    measures = report.datasets[0].measures
    assert measures["f1"].value == pytest.approx(2 / 3)
    assert measures["pearson"].value is None and measures["max_f1"].value is None
    assert "every score is 0" in measures["max_f1"].reason


def test_pit_totals_pool_the_datasets():
    a = data("a", [0.8, 0.2], [0.9, 0.1], [T, F], [T, F])
    b = data("b", [1.0, 0.0, 0.6], [0.2, 0.3, 0.5], [T, F, D], [F, T, T])
    report = evaluate("pit", [a, b])
    # pooled: tp 1, fp 1, fn 1 -> P = R = F1 = 0.5
    assert report.totals["precision"].value == 0.5 and report.totals["f1"].value == 0.5
    assert report.totals["pearson"].value == pytest.approx(
        stats.pearsonr([0.8, 0.2, 1.0, 0.0, 0.6], [0.9, 0.1, 0.2, 0.3, 0.5])[0])
