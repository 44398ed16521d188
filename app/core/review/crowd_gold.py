"""Gold for crowds: the flag rule over an items x raters matrix, and the columns a crowd
export carries beside the mean (median, the rater model's gold and 90% interval, the count
of ratings on each grid value).

All of it is vectorised over the matrix the gold table is built from (app/core/review/gold.py),
whose columns are the counted raters only: excluded people and machine raters never reach
it, so they never weigh on the model either.
"""

from __future__ import annotations

import warnings

import numpy as np

from simrate.core.base.flagrule import FlagRule
from simrate.core.base.frames import COUNT_PREFIX
from simrate.core.base.scale import Scale, fmt
from simrate.core.review.rater_model import RaterModelFit, fit_rater_model

#: How the gold of an item without a verdict is made.
METHODS = ("mean", "median", "model")


def matrix_codes(matrix: np.ndarray, scale: Scale) -> np.ndarray:
    """The step codes of an items x raters score matrix (-1 where there is no rating)."""
    with np.errstate(invalid="ignore"):
        codes = np.rint((matrix - scale.low) / scale.step)
    return np.where(np.isnan(matrix), -1, codes).astype(np.int64)


def flag_mask(rule: FlagRule, matrix: np.ndarray, scale: Scale) -> np.ndarray:
    """Per item (row): do its counted ratings meet the flag rule? (Adjudication aside.)"""
    codes = matrix_codes(matrix, scale)
    present = codes >= 0
    n = present.sum(axis=1)
    if not matrix.shape[1]:
        return np.zeros(len(matrix), dtype=bool)
    high = np.where(present, codes, -1).max(axis=1)
    low = np.where(present, codes, np.iinfo(np.int64).max).min(axis=1)
    spread = np.where(n > 0, high - low, 0)
    kept = np.where(present, codes, 0)
    return rule.in_codes(scale.step).mask(n, spread, kept.sum(axis=1), (kept * kept).sum(axis=1))


def row_medians(matrix: np.ndarray) -> np.ndarray:
    """The median of each row's ratings (the mean of the middle two for an even count)."""
    if not matrix.shape[1]:
        return np.full(len(matrix), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rows with no rating give NaN
        return np.nanmedian(matrix, axis=1)


def grid_counts(matrix: np.ndarray, scale: Scale) -> dict[str, np.ndarray]:
    """{`count:<value>`: how many of each item's ratings are on that grid value}."""
    codes = matrix_codes(matrix, scale)
    rows, columns = np.nonzero(codes >= 0)
    table = np.zeros((len(matrix), scale.n_codes), dtype=np.int64)
    np.add.at(table, (rows, codes[rows, columns]), 1)
    return {f"{COUNT_PREFIX}{fmt(scale.grid_value(code))}": table[:, code]
            for code in range(scale.n_codes)}


def fit_matrix(matrix: np.ndarray, scale: Scale) -> RaterModelFit:
    """The rater model (app/core/review/rater_model.py) fitted to every rating in the matrix:
    items are its rows, raters its columns."""
    rows, columns = np.nonzero(~np.isnan(matrix))
    return fit_rater_model(rows, columns, matrix[rows, columns], matrix.shape[0],
                           matrix.shape[1], scale.low, scale.high)


def crowd_columns(matrix: np.ndarray, scale: Scale, method: str,
                  verdicts: np.ndarray) -> dict[str, np.ndarray]:
    """median, and (for the model) model, gold_low and gold_high, then the grid counts.

    A verdict always wins: an adjudicated item's interval is its verdict on both ends."""
    columns: dict[str, np.ndarray] = {"median": row_medians(matrix)}
    if method == "model":
        fit = fit_matrix(matrix, scale)
        decided = ~np.isnan(verdicts)
        columns["model"] = fit.gold
        columns["gold_low"] = np.where(decided, verdicts, fit.low)
        columns["gold_high"] = np.where(decided, verdicts, fit.high)
    columns.update(grid_counts(matrix, scale))
    return columns
