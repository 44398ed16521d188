"""Scoring system outputs against gold the way the CLSS 2014, STS 2012 and PIT 2015 tasks did.

Pure numpy: every measure returns a `Measure`, which is either a number or `None` with the
reason it is undefined (a constant output, too few items), so nothing here divides by zero,
warns or crashes. `evaluate` combines per-dataset measures into a report per task;
app/services/imports/evaluation.py reads the files first (app/formats/readers/scores.py has the formats).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from simrate.core.agreement.correlation import MIN_PEARSON_ITEMS
from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import DEBATABLE, TRUE, DatasetInput

TASKS = ("clss", "sts", "pit")

#: Measures shown per dataset, in display order.
DATASET_MEASURES: dict[str, tuple[str, ...]] = {
    "clss": ("pearson", "spearman"),
    "sts": ("pearson", "spearman"),
    "pit": ("precision", "recall", "f1", "pearson", "max_f1", "spearman"),
}
#: Measures over all datasets of a run, in display order.
TOTAL_MEASURES: dict[str, tuple[str, ...]] = {
    "clss": ("sum_pearson",),
    "sts": ("all", "allnrm", "mean"),
    "pit": ("precision", "recall", "f1", "pearson", "max_f1"),
}
#: Display names of the measure keys.
MEASURE_LABELS: dict[str, str] = {
    "pearson": "Pearson", "spearman": "Spearman", "precision": "Precision",
    "recall": "Recall", "f1": "F1", "max_f1": "max F1",
    "max_f1_threshold": "max F1 threshold", "all": "ALL", "allnrm": "ALLnrm",
    "mean": "Mean", "sum_pearson": "Sum of Pearson",
}

# PIT labels as small integers: debatable gold items are left out of the binary measures.


@dataclass(frozen=True)
class Measure:
    """A measured value, or None with the reason it is undefined."""

    value: float | None
    reason: str | None = None

    @classmethod
    def undefined(cls, reason: str) -> Measure:
        """An undefined value with its reason."""
        return cls(None, reason)

    @property
    def defined(self) -> bool:
        """True when there is a number."""
        return self.value is not None

    def text(self, digits: int = 4) -> str:
        """`0.8123`, or `n/a (reason)` when undefined."""
        if self.value is None:
            return f"n/a ({self.reason})"
        return f"{self.value:.{digits}f}"


# ---------------------------------------------------------------- measures


def _as_pair(gold: ArrayLike, system: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    gold_arr = np.asarray(gold, dtype=np.float64)
    system_arr = np.asarray(system, dtype=np.float64)
    if gold_arr.shape != system_arr.shape or gold_arr.ndim != 1:
        raise ValueError("gold and system must be 1-d arrays of the same length")
    return gold_arr, system_arr


def _undefined_correlation(gold: np.ndarray, system: np.ndarray) -> str | None:
    """Why a correlation of these values is undefined, or None when it is defined."""
    if gold.size < MIN_PEARSON_ITEMS:  # over 2 items r is +1 or -1 whatever the scores
        return (f"{gold.size} item{'s' if gold.size != 1 else ''}: needs at least "
                f"{MIN_PEARSON_ITEMS}")
    # Constancy is tested on the raw values, not on deviations from a float mean,
    # which are not exactly zero for equal values.
    if system.max() == system.min():
        return "system scores are constant"
    if gold.max() == gold.min():
        return "gold scores are constant"
    return None


def _scaled(values: np.ndarray) -> tuple[np.ndarray, int]:
    """`values` times a power of two that brings the largest magnitude into [0.5, 1), and
    the exponent to undo it with (np.ldexp). Exact, and keeps sums of products of values
    near 1e-200 from underflowing and of values near 1e200 or 1e308 from overflowing."""
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest == 0 or not math.isfinite(largest):
        return values, 0
    exponent = math.frexp(largest)[1]
    return np.ldexp(values, -exponent), exponent


def _correlation(x: np.ndarray, y: np.ndarray) -> Measure:
    x, y = _scaled(x)[0], _scaled(y)[0]  # r does not change with the scale of either side
    x_dev = x - x.mean()
    y_dev = y - y.mean()
    with np.errstate(all="ignore"):
        denominator = math.sqrt(float(x_dev @ x_dev) * float(y_dev @ y_dev))
        if denominator == 0 or not math.isfinite(denominator):
            return Measure.undefined("no variance left after centring")
        r = float(x_dev @ y_dev) / denominator
    return Measure(min(1.0, max(-1.0, r)))


def pearson(gold: ArrayLike, system: ArrayLike) -> Measure:
    """Pearson's r between gold and system scores; undefined for fewer than 3 or constant."""
    gold_arr, system_arr = _as_pair(gold, system)
    reason = _undefined_correlation(gold_arr, system_arr)
    return Measure.undefined(reason) if reason else _correlation(gold_arr, system_arr)


def average_ranks(values: ArrayLike) -> np.ndarray:
    """1-based ranks, ties sharing the mean of the ranks they span (as Spearman needs)."""
    array = np.asarray(values, dtype=np.float64)
    order = np.argsort(array, kind="mergesort")
    ordered = array[order]
    starts_group = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(starts_group) - 1
    starts = np.flatnonzero(starts_group)
    ends = np.r_[starts[1:], array.size]
    ranks = np.empty(array.size, dtype=np.float64)
    ranks[order] = ((starts + ends + 1) / 2.0)[group]
    return ranks


def spearman(gold: ArrayLike, system: ArrayLike) -> Measure:
    """Spearman's rho: Pearson of the average ranks; undefined like Pearson."""
    gold_arr, system_arr = _as_pair(gold, system)
    reason = _undefined_correlation(gold_arr, system_arr)
    if reason:
        return Measure.undefined(reason)
    return _correlation(average_ranks(gold_arr), average_ranks(system_arr))


def least_squares_fit(gold: ArrayLike, system: ArrayLike) -> np.ndarray:
    """System scores mapped by the line b1 * x + b2 that best fits gold (least squares).

    A constant system has no slope to fit; its best fit is the gold mean.
    """
    gold_arr, system_arr = _as_pair(gold, system)
    if gold_arr.size == 0:
        return system_arr.copy()
    # Fitted in scaled units (see _scaled), and the result scaled back to gold's.
    gold_arr, gold_exponent = _scaled(gold_arr)
    system_arr = _scaled(system_arr)[0]
    if system_arr.max() == system_arr.min():
        return np.ldexp(np.full(system_arr.shape, gold_arr.mean()), gold_exponent)
    system_dev = system_arr - system_arr.mean()
    slope = float(system_dev @ (gold_arr - gold_arr.mean())) / float(system_dev @ system_dev)
    return np.ldexp(gold_arr.mean() + slope * system_dev, gold_exponent)


def binary_scores(gold_labels: ArrayLike, system_labels: ArrayLike) -> dict:
    """Precision, recall and F1 of the true label, debatable gold items left out.

    Returns {"precision", "recall", "f1": Measure, "counts": {n_binary, tp, fp, fn, tn}}.
    """
    gold_arr = np.asarray(gold_labels, dtype=np.int8)
    system_arr = np.asarray(system_labels, dtype=np.int8)
    decided = gold_arr != DEBATABLE
    gold_true = gold_arr[decided] == TRUE
    system_true = system_arr[decided] == TRUE
    tp = int(np.sum(gold_true & system_true))
    fp = int(np.sum(~gold_true & system_true))
    fn = int(np.sum(gold_true & ~system_true))
    tn = int(np.sum(~gold_true & ~system_true))
    counts = {"n_binary": int(decided.sum()), "tp": tp, "fp": fp, "fn": fn, "tn": tn}
    precision = (Measure(tp / (tp + fp)) if tp + fp
                 else Measure.undefined("the system labels no item true (debatable aside)"))
    recall = (Measure(tp / (tp + fn)) if tp + fn
              else Measure.undefined("no gold item is labelled true"))
    # 2tp / (2tp + fp + fn) equals the harmonic mean of P and R where both exist, and is
    # also defined (0) for a run that labels nothing true.
    f1 = (Measure(2 * tp / (2 * tp + fp + fn)) if tp + fp + fn
          else Measure.undefined("no item is labelled true in gold or system"))
    return {"precision": precision, "recall": recall, "f1": f1, "counts": counts}


def max_f1(gold_labels: ArrayLike, system_scores: ArrayLike) -> tuple[Measure, Measure]:
    """The best F1 over thresholds t of the degreed score (true when score >= t).

    Debatable gold items are left out. Items with equal scores fall on the same side of
    every threshold. Returns (max F1, the highest threshold reaching it).
    """
    labels = np.asarray(gold_labels, dtype=np.int8)
    scores = np.asarray(system_scores, dtype=np.float64)
    decided = labels != DEBATABLE
    gold_true = labels[decided] == TRUE
    n_true = int(gold_true.sum())
    if n_true == 0:
        reason = "no gold item is labelled true"
        return Measure.undefined(reason), Measure.undefined(reason)
    order = np.argsort(-scores[decided], kind="stable")
    ordered = scores[decided][order]
    true_so_far = np.cumsum(gold_true[order])
    # Only the last item of each run of equal scores is a reachable cut.
    last_of_tie = np.r_[ordered[1:] != ordered[:-1], True]
    tp = true_so_far[last_of_tie].astype(np.float64)
    predicted = (np.flatnonzero(last_of_tie) + 1).astype(np.float64)
    precision = tp / predicted
    recall = tp / n_true
    total = precision + recall
    f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(total), where=total > 0)
    best = int(np.argmax(f1))
    return Measure(float(f1[best])), Measure(float(ordered[last_of_tie][best]))


# ---------------------------------------------------------------- task logic


@dataclass(frozen=True)
class DatasetResult:
    """The measures of one dataset."""

    name: str
    n: int
    measures: dict[str, Measure]
    counts: dict[str, int] = field(default_factory=dict)
    gold_path: str = ""
    system_path: str = ""


@dataclass(frozen=True)
class EvaluationReport:
    """Per-dataset results and the task's totals over all datasets given."""

    task: str
    datasets: tuple[DatasetResult, ...]
    totals: dict[str, Measure]

    def to_json(self) -> dict:
        """The `evaluate --json` object: undefined values are null, their reasons beside."""
        out: dict = {"task": self.task, "datasets": {}}
        for result in self.datasets:
            entry: dict = {"n": result.n, "gold": result.gold_path, "system": result.system_path}
            entry.update(_json_measures(result.measures))
            entry.update(result.counts)
            out["datasets"][result.name] = entry
        out.update(_json_measures(self.totals))
        return out


def _json_measures(measures: dict[str, Measure]) -> dict:
    out: dict = {key: m.value for key, m in measures.items()}
    out["reasons"] = {key: m.reason for key, m in measures.items() if m.value is None}
    return out


def _combined(inputs: Sequence[DatasetInput], attribute: str) -> np.ndarray:
    return np.concatenate([getattr(one, attribute) for one in inputs])


def _correlation_dataset(one: DatasetInput) -> DatasetResult:
    measures = {"pearson": pearson(one.gold, one.system),
                "spearman": spearman(one.gold, one.system)}
    counts = {"excluded": one.excluded} if one.excluded else {}
    return DatasetResult(one.name, int(one.gold.size), measures, counts,
                         one.gold_path, one.system_path)


def _first_undefined(results: Sequence[DatasetResult], key: str) -> Measure | None:
    for result in results:
        measure = result.measures[key]
        if measure.value is None:
            return Measure.undefined(f"Pearson of {result.name} is undefined: {measure.reason}")
    return None


def _sts_totals(inputs: Sequence[DatasetInput], results: Sequence[DatasetResult]) -> dict:
    gold = _combined(inputs, "gold")
    normalised = np.concatenate([least_squares_fit(one.gold, one.system) for one in inputs])
    mean = _first_undefined(results, "pearson")
    if mean is None:
        weights = np.array([r.n for r in results], dtype=np.float64)
        values = np.array([r.measures["pearson"].value for r in results], dtype=np.float64)
        mean = Measure(float(values @ weights / weights.sum()))
    return {"all": pearson(gold, _combined(inputs, "system")),
            "allnrm": pearson(gold, normalised), "mean": mean}


def _clss_totals(results: Sequence[DatasetResult]) -> dict:
    total = _first_undefined(results, "pearson")
    if total is None:  # every value is defined (_first_undefined found none that is not)
        values = [r.measures["pearson"].value for r in results]
        total = Measure(float(sum(v for v in values if v is not None)))
    return {"sum_pearson": total}


def _pit_measures(gold: np.ndarray, system: np.ndarray, gold_labels: np.ndarray,
                  system_labels: np.ndarray) -> tuple[dict[str, Measure], dict[str, int]]:
    binary = binary_scores(gold_labels, system_labels)
    measures = {key: binary[key] for key in ("precision", "recall", "f1")}
    if gold.size and not np.any(system):
        # The PIT format's convention for a run with binary labels only: every score 0.
        no_scores = Measure.undefined("no degreed scores: every score is 0")
        measures.update(pearson=no_scores, spearman=no_scores, max_f1=no_scores,
                        max_f1_threshold=no_scores)
    else:
        best, threshold = max_f1(gold_labels, system)
        measures.update(pearson=pearson(gold, system), spearman=spearman(gold, system),
                        max_f1=best, max_f1_threshold=threshold)
    return measures, binary["counts"]


def _pit_dataset(one: DatasetInput) -> DatasetResult:
    if one.gold_labels is None or one.system_labels is None:
        raise ValueError(f"PIT dataset {one.name!r} needs gold and system labels")
    measures, counts = _pit_measures(one.gold, one.system, one.gold_labels, one.system_labels)
    if one.excluded:
        counts = {**counts, "excluded": one.excluded}
    return DatasetResult(one.name, int(one.gold.size), measures, counts,
                         one.gold_path, one.system_path)


def evaluate(task: str, inputs: Sequence[DatasetInput]) -> EvaluationReport:
    """Score aligned gold/system values per dataset and over all of them, as `task` did."""
    if task not in TASKS:
        raise SimrateError(f"unknown task {task!r}: use one of {', '.join(TASKS)}")
    if not inputs:
        raise SimrateError("nothing to evaluate: give at least one GOLD SYSTEM pair")
    first_of: dict[str, DatasetInput] = {}
    for one in inputs:
        other = first_of.setdefault(one.name, one)
        if other is not one:
            raise SimrateError(f"dataset {one.name!r} is given twice (gold {other.gold_path!r}"
                               f" and {one.gold_path!r}); each must be a different dataset")
    if task == "pit":
        results = tuple(_pit_dataset(one) for one in inputs)
        totals, _ = _pit_measures(*(_combined(inputs, a) for a in
                                    ("gold", "system", "gold_labels", "system_labels")))
        totals = {key: totals[key] for key in TOTAL_MEASURES["pit"]}
    else:
        results = tuple(_correlation_dataset(one) for one in inputs)
        totals = _sts_totals(inputs, results) if task == "sts" else _clss_totals(results)
    return EvaluationReport(task, results, totals)

