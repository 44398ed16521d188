"""Gold scores: the adjudicated score where there is one, else the mean of the ratings
(or, when asked, their median or a rater model's estimate: app/core/review/crowd_gold.py).

Pure and vectorised: frames in, one frame out, no per-item Python loop, so 200,000 items
take well under a second. Conventions:
- `sd` is the population standard deviation (ddof=0: the root mean squared distance of the
  item's ratings from their mean, as STS and USTS publish it); with no rating it is NaN (an
  empty cell in files, null in JSON), with one rating 0.
- `source` is `adjudicated`, `mean` (two or more ratings), `single` (exactly one rating),
  or `median` / `model` under those methods; an item with neither ratings nor an
  adjudication has no gold (NaN) and an empty source.
- `flagged` follows the project's flag rule (app/core/base/flagrule.py).
- Ratings of excluded annotators do not count anywhere: not in n_ratings, the statistics,
  the flag or the `rating:<annotator>` columns.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from simrate.core.base.errors import RuleError
from simrate.core.base.flagrule import FlagRule
from simrate.core.base.frames import RATING_PREFIX, annotator_columns
from simrate.core.base.scale import Scale, threshold_codes
from simrate.core.review.crowd_gold import METHODS, crowd_columns, fit_matrix, flag_mask

SOURCES = ("adjudicated", "mean", "single", "median", "model")


def rating_column(annotator: str) -> str:
    """The name of an annotator's column in the gold table: `rating:<annotator>`."""
    return f"{RATING_PREFIX}{annotator}"


def counted_annotators(ratings: pd.DataFrame, excluded: Iterable[str] = (),
                       annotators: Sequence[str] | None = None) -> list[str]:
    """Annotators whose ratings count, in the given order, then any others in rating order."""
    excluded = set(excluded)
    order = list(annotators or [])
    seen = set(order)
    order += [a for a in pd.unique(ratings["annotator"]) if a not in seen]
    return [a for a in order if a not in excluded]


def rating_matrix(item_ids: Sequence[str], ratings: pd.DataFrame,
                  annotators: Sequence[str]) -> np.ndarray:
    """Items x annotators array of scores (NaN where missing), rows in `item_ids` order.

    Ratings are placed by item id, or by their `row` column (position in `item_ids`)
    when there is one.
    """
    matrix = np.full((len(item_ids), len(annotators)), np.nan)
    rated = ratings[ratings["score"].notna()]
    if "row" in rated.columns:  # positions given (Project.gold_inputs): no string lookup
        rows = rated["row"].to_numpy(dtype=np.int64)
    else:
        rows = pd.Index(item_ids).get_indexer(pd.Index(rated["item_id"]))
    cols = pd.Index(annotators).get_indexer(pd.Index(rated["annotator"]))
    keep = (rows >= 0) & (cols >= 0)
    matrix[rows[keep], cols[keep]] = rated["score"].to_numpy(dtype="float64")[keep]
    return matrix


def _row_statistics(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """n, mean, population sd (ddof=0), min and max of each row, ignoring NaN."""
    present = ~np.isnan(matrix)
    n = present.sum(axis=1)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows give NaN, as wanted
        total = np.where(present, matrix, 0.0).sum(axis=1)
        mean = np.where(n > 0, total / n, np.nan)
        squares = np.where(present, (matrix - mean[:, None]) ** 2, 0.0).sum(axis=1)
        sd = np.where(n > 0, np.sqrt(squares / np.maximum(n, 1)), np.nan)
        low = np.nanmin(matrix, axis=1) if matrix.shape[1] else np.full(len(n), np.nan)
        high = np.nanmax(matrix, axis=1) if matrix.shape[1] else np.full(len(n), np.nan)
    return {"n": n, "mean": mean, "sd": sd, "min": low, "max": high}


def _adjudicated_scores(item_ids: Sequence[str],
                        adjudications: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(score or NaN, note or "") per item from the adjudications frame."""
    scores = np.full(len(item_ids), np.nan)
    notes = np.full(len(item_ids), "", dtype=object)
    if len(adjudications):
        rows = pd.Index(item_ids).get_indexer(pd.Index(adjudications["item_id"]))
        keep = rows >= 0
        scores[rows[keep]] = adjudications["score"].to_numpy(dtype="float64")[keep]
        notes[rows[keep]] = adjudications["note"].fillna("").to_numpy(dtype=object)[keep]
    return scores, notes


def spread_reached(n: np.ndarray, low: np.ndarray, high: np.ndarray, scale: Scale,
                   threshold: float) -> np.ndarray:
    """Per item: two or more counted ratings whose spread (max - min) reaches the threshold,
    the flag rule before adjudication (a gold table's n_ratings, min and max)."""
    n, low, high = (np.asarray(a) for a in (n, low, high))
    with np.errstate(invalid="ignore"):
        spread_codes = np.rint((high.astype("float64") - low) / scale.step)
    return (n >= 2) & (spread_codes >= threshold_codes(threshold, scale.step))


def compute_gold(items: pd.DataFrame, ratings: pd.DataFrame, adjudications: pd.DataFrame,
                 scale: Scale, threshold: float | FlagRule = 1.0, excluded: Iterable[str] = (),
                 annotators: Sequence[str] | None = None, method: str = "mean",
                 crowd: bool | None = None) -> pd.DataFrame:
    """The gold table: GOLD_COLUMNS, the crowd columns when asked, then one
    `rating:<annotator>` column per counted annotator.

    `items` needs item_id, dataset, genre, left, right (rows in project order);
    `ratings` item_id, annotator, score (NaN for skipped); `adjudications` item_id, score,
    note. `threshold` is the flag rule (a number: the range rule at that many points). An
    item is flagged when its counted ratings meet the rule and it is not adjudicated.
    `method` (mean, median, model) makes the gold of items without a verdict; `crowd`
    adds median, the model's gold_low/gold_high and the count of ratings on each grid value
    (None: when the method is not the mean, or the rule looks at uncertainty for any item).
    """
    if method not in METHODS:
        raise ValueError(f"no gold method {method!r}: use {', '.join(METHODS)}")
    rule = threshold if isinstance(threshold, FlagRule) else FlagRule("range", threshold)
    item_ids = items["item_id"].tolist()
    names = counted_annotators(ratings, excluded, annotators)
    matrix = rating_matrix(item_ids, ratings, names)
    stats = _row_statistics(matrix)
    verdicts, note = _adjudicated_scores(item_ids, adjudications)
    if crowd is None:
        crowd = method != "mean" or bool(np.any(stats["n"] > rule.in_codes(scale.step).range_up_to))
    extra = crowd_columns(matrix, scale, method, verdicts) if crowd or method != "mean" else {}
    columns = _gold_columns(items, stats, verdicts, note, method, extra)
    columns["flagged"] = flag_mask(rule, matrix, scale) & ~columns["adjudicated"]
    if crowd:
        columns.update({k: v for k, v in extra.items() if k not in METHODS or k == "median"})
    for index, name in enumerate(names):
        columns[rating_column(name)] = matrix[:, index]
    gold = pd.DataFrame(columns)
    gold.attrs.update(flag_rule=rule, method=method)
    return gold


def rule_met(gold: pd.DataFrame, scale: Scale, rule: FlagRule) -> np.ndarray:
    """Per row: do the item's counted ratings (its `rating:<name>` columns) meet the flag
    rule, adjudicated or not? (The dataset folder's `flagged`.)"""
    columns = annotator_columns(gold)
    matrix = gold[columns].to_numpy(dtype="float64") if columns else \
        np.empty((len(gold), 0))
    return flag_mask(rule, matrix, scale)


def _gold_columns(items: pd.DataFrame, stats: dict[str, np.ndarray], verdicts: np.ndarray,
                  note: np.ndarray, method: str, extra: dict[str, np.ndarray]) -> dict:
    """GOLD_COLUMNS (flagged left to the caller): a verdict wins, else the method's value."""
    adjudicated, n = ~np.isnan(verdicts), stats["n"]
    estimate = stats["mean"] if method == "mean" else extra[method]
    labels = ["adjudicated", "mean", "single"] if method == "mean" else \
        ["adjudicated", method, method]
    return {
        "item_id": items["item_id"].tolist(),
        "dataset": items["dataset"].fillna("").to_numpy(dtype=object),
        "genre": items["genre"].fillna("").to_numpy(dtype=object),
        "left": items["left"].to_numpy(dtype=object),
        "right": items["right"].to_numpy(dtype=object),
        "gold": np.where(adjudicated, verdicts, estimate),
        "source": np.select([adjudicated, n >= 2, n == 1], labels, "").astype(object),
        "n_ratings": n.astype("int64"),
        "mean": stats["mean"], "sd": stats["sd"], "min": stats["min"], "max": stats["max"],
        "flagged": np.zeros(len(n), dtype=bool), "adjudicated": adjudicated, "note": note,
    }


def rater_estimates(items: pd.DataFrame, ratings: pd.DataFrame, scale: Scale,
                    excluded: Iterable[str] = (),
                    annotators: Sequence[str] | None = None) -> dict[str, dict]:
    """The rater model's figures for each counted annotator (app/core/review/rater_model.py):
    {name: {bias, noise, reliability, n}}; excluded people and machine raters are left out,
    and a figure the data cannot give is None."""
    names = counted_annotators(ratings, excluded, annotators)
    matrix = rating_matrix(items["item_id"].tolist(), ratings, names)
    fit = fit_matrix(matrix, scale)

    def number(value: float) -> float | None:
        return None if value != value else float(value)

    return {name: {"bias": number(fit.bias[j]), "noise": number(fit.noise[j]),
                   "reliability": number(fit.reliability[j]), "n": int(fit.n_ratings[j])}
            for j, name in enumerate(names)}


def flagged_list(gold: pd.DataFrame) -> pd.DataFrame:
    """Flagged rows as item_id, spread, ratings ({annotator: score}): largest spread first."""
    flagged = gold[gold["flagged"].to_numpy(dtype=bool)]
    # to 9 decimals: the difference of two grid floats (4.8 - 3.6) is the decimal 1.2
    spread = np.round((flagged["max"] - flagged["min"]).to_numpy(), 9)
    order = np.lexsort((np.arange(len(flagged)), -spread))  # ties keep project order
    flagged = flagged.iloc[order]
    columns = annotator_columns(gold)
    names = [c[len(RATING_PREFIX):] for c in columns]
    values = flagged[columns].to_numpy() if columns else np.empty((len(flagged), 0))
    ratings = [{name: float(v) for name, v in zip(names, row, strict=True) if v == v} for row in values]
    return pd.DataFrame({"item_id": flagged["item_id"].tolist(), "spread": spread[order],
                         "ratings": ratings}, columns=["item_id", "spread", "ratings"])


def blocking_flags(gold: pd.DataFrame, rule: FlagRule | None = None,
                   step: float = 1.0) -> np.ndarray:
    """The flagged items that stop an export: those flagged by the range rule (experts'
    disagreements wait for a verdict). Items flagged because their crowd gold is uncertain
    are exported with their flag as a column."""
    rule = rule if rule is not None else gold.attrs.get("flag_rule")
    flagged = gold["flagged"].to_numpy(dtype=bool)
    if rule is None:
        return flagged
    up_to = rule.in_codes(step).range_up_to
    return flagged & (gold["n_ratings"].to_numpy() <= up_to)


def unresolved_counts(gold: pd.DataFrame, rule: FlagRule | None = None) -> dict[str, int]:
    """What stops an export: items flagged by the range rule, and items with no gold (no
    ratings, no verdict); items flagged as uncertain never stop one."""
    blocking = blocking_flags(gold, rule)
    return {"flagged": int(blocking.sum()), "unrated": int(gold["gold"].isna().sum())}


def second_look_items(ratings: pd.DataFrame, adjudications: pd.DataFrame, scale: Scale,
                      threshold: float = 1.0, excluded: Iterable[str] = ()) -> list[str]:
    """Adjudicated items with a counted rating, saved after the verdict, that differs from it
    by the threshold or more (FlagIndex.second_look, computed from the tables)."""
    if not len(adjudications) or not len(ratings):
        return []
    counted = ratings[ratings["score"].notna() & ~ratings["annotator"].isin(set(excluded))]
    verdicts = adjudications[["item_id", "score", "at"]].rename(
        columns={"score": "verdict", "at": "verdict_at"})
    late = counted.merge(verdicts, on="item_id")
    late = late[late["updated_at"] > late["verdict_at"]]
    distance = np.rint((late["score"] - late["verdict"]).abs().to_numpy() / scale.step)
    chosen = late["item_id"][distance >= threshold_codes(threshold, scale.step)]
    return list(dict.fromkeys(chosen.tolist()))


def check_resolved(gold: pd.DataFrame, where: str | Path | None = None,
                   rule: FlagRule | None = None) -> dict[str, int]:
    """Counts of flagged and unrated items; RuleError (exit 3) naming them if there are any
    (items flagged as uncertain crowd gold do not stop an export: `blocking_flags`)."""
    counts = unresolved_counts(gold, rule)
    problems = []
    if counts["flagged"]:
        problems.append(f"{counts['flagged']} flagged item{'s' * (counts['flagged'] != 1)} "
                        "not adjudicated")
    if counts["unrated"]:
        problems.append(f"{counts['unrated']} item{'s' * (counts['unrated'] != 1)} "
                        "with no rating")
    if problems:
        raise RuleError(f"export refused: {' and '.join(problems)} "
                        f"(of {len(gold)}); adjudicate or rate them, or give "
                        "--allow-unresolved", where)
    return counts
