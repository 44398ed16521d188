"""Rater quality control: check items of known score and the per-annotator report.

STS 2012 mixed items whose score the organizers knew into every batch and dropped raters
whose Pearson correlation with those known scores fell below 0.5; `annotator_report` gives
that figure (and the mean absolute error) for every annotator, next to their volume, spread,
agreement with the others and speed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from simrate.core.agreement.correlation import MIN_PEARSON_ITEMS
from simrate.core.agreement.sparse import (
    DEFAULT_MIN_OVERLAP,
    LongRatings,
    grouped_extremes,
    pearson_vs_rest,
)
from simrate.core.base.errors import SimrateError
from simrate.core.data.changelog import log_change
from simrate.core.project import Project
from simrate.core.team.teamdb import ensure_team_tables, has_table

#: Check-item Pearson below which STS 2012 dropped a rater.
DEFAULT_CHECK_THRESHOLD = 0.5

#: Columns of the report, in this order (the JSON keys of `simrate annotators --json`).
REPORT_COLUMNS = (
    "annotator", "rated", "skipped", "mean", "sd", "pearson_vs_rest", "check_pearson",
    "check_mae", "excluded", "seconds_per_item", "checks", "flagged", "flag_reason", "machine",
    "bias", "reliability", "pearson_vs_rest_reason",
)


# ----------------------------------------------------------------- check items
def check_scores(project: Project) -> dict[str, float]:
    """Known scores of the check items: {item_id: score}, in project order."""
    if not has_table(project, "check_items"):
        return {}
    rows = project.team_tables.read("SELECT i.id, c.score FROM check_items c "
                        "JOIN items i ON i.ord = c.item_ord ORDER BY c.item_ord")
    return {item_id: float(score) for item_id, score in rows}


def set_checks(project: Project, scores: Mapping[str, float | None], by: str = "") -> int:
    """Make items checks with these known scores (None unmarks); one logged transaction.

    A known score must lie within the scale but need not be on its grid: reference scores
    such as STS gold (4.4 on a 0.25 grid) are kept exactly. Returns the number of changes.
    """
    scale = project.scale
    for item_id, score in scores.items():
        project.item_ord(item_id)  # SimrateError for an unknown item
        if score is not None and not (scale.low - 1e-9 <= float(score) <= scale.high + 1e-9
                                      and math.isfinite(float(score))):
            raise SimrateError(f"known score {score} of item {item_id!r} is outside scale "
                               f"{scale.describe()}", project.path)
    current = check_scores(project)
    changed = {i: s for i, s in scores.items()
               if (None if s is None else float(s)) != current.get(i)}
    if not changed:
        return 0
    now = time.time()
    with project.team_tables.transaction() as conn:
        ensure_team_tables(conn)
        for item_id, score in changed.items():
            ord_ = project.item_ord(item_id)
            if score is None:
                conn.execute("DELETE FROM check_items WHERE item_ord = ?", (ord_,))
            else:
                conn.execute("INSERT OR REPLACE INTO check_items VALUES (?, ?, ?, ?)",
                             (ord_, float(score), by, now))
            log_change(conn, "check", who=by, item_id=item_id, old=current.get(item_id),
                       new=None if score is None else float(score))
    return len(changed)


def mark_checks_from_reference(project: Project, item_ids: Sequence[str] | None = None,
                               dataset: str | None = None, by: str = "",
                               sample: int | None = None, seed: int = 0) -> int:
    """Make items checks with their imported reference scores; returns the number marked.

    Named items must have a reference score. Without names, every item of `dataset` (or of
    the project) that has one is marked, or with `sample` that many of them drawn at random
    (`seed`: the same draw again), in the project's order.
    """
    items = project.items().set_index("item_id")
    if item_ids is not None:
        missing = [i for i in item_ids if i not in items.index]
        if missing:
            raise SimrateError(f"no item with id {missing[0]!r} in this project", project.path)
        chosen = items.loc[list(item_ids)]
        lacking = chosen.index[chosen["reference"].isna()].tolist()
        if lacking:
            raise SimrateError(f"item {lacking[0]!r} has no reference score "
                               f"({len(lacking)} such items)", project.path)
    else:
        chosen = items if dataset is None else items[items["dataset"] == dataset]
        chosen = chosen[chosen["reference"].notna()]
    if chosen.empty:
        raise SimrateError("no items with reference scores to mark as checks", project.path)
    if sample is not None and sample < len(chosen):
        drawn = np.random.default_rng(seed).choice(len(chosen), size=sample, replace=False)
        chosen = chosen.iloc[np.sort(drawn)]
    scores = {str(i): float(s) for i, s in chosen["reference"].items()}
    set_checks(project, scores, by=by)
    return len(scores)


# ----------------------------------------------------------------- the annotator report
def _number(value: float | None) -> float | None:
    """A float for JSON: NaN becomes None."""
    return None if value is None or not math.isfinite(value) else float(value)


def _check_table(long: LongRatings, known: np.ndarray) -> dict[str, np.ndarray]:
    """Per rater: checks rated, Pearson with the known scores, mean absolute error, and
    whether they gave one score to check items whose known scores differ (vectorised)."""
    count = len(long.raters)
    truth = known[long.unit]
    on_check = ~np.isnan(truth)
    rater, x, k = long.rater[on_check], long.value[on_check], truth[on_check]
    n = np.bincount(rater, minlength=count).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.bincount(rater, x, count) / n
        mean_k = np.bincount(rater, k, count) / n
        dx, dk = x - mean_x[rater], k - mean_k[rater]
        sxx, skk = np.bincount(rater, dx * dx, count), np.bincount(rater, dk * dk, count)
        r = np.clip(np.bincount(rater, dx * dk, count) / np.sqrt(sxx * skk), -1.0, 1.0)
        mae = np.bincount(rater, np.abs(x - k), count) / n
    x_low, x_high = grouped_extremes(rater, x, count)
    k_low, k_high = grouped_extremes(rater, k, count)
    flat_x, flat_k = ~(x_low < x_high), ~(k_low < k_high)
    r[(n < MIN_PEARSON_ITEMS) | flat_x | flat_k] = np.nan  # over 2 checks r is always +-1
    return {"checks": n.astype(np.int64), "check_pearson": r, "check_mae": mae,
            "constant": (n > 1) & flat_x & ~flat_k}


def _rater_figures(long: LongRatings, counted: np.ndarray,
                   min_overlap: int = DEFAULT_MIN_OVERLAP) -> dict[str, np.ndarray]:
    """Per rater: scores given, their mean and sample sd, Pearson with the counted rest."""
    count = len(long.raters)
    n = np.bincount(long.rater, minlength=count).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(long.rater, long.value, count) / n
        deviation = long.value - mean[long.rater]
        sd = np.sqrt(np.bincount(long.rater, deviation * deviation, count) / (n - 1))
    rest, reasons = pearson_vs_rest(long, counted, min_overlap)
    why = np.array([reasons.get(i) for i in range(count)], dtype=object)
    return {"rated": n.astype(np.int64), "mean": mean, "sd": np.where(n > 1, sd, np.nan),
            "pearson_vs_rest": rest, "pearson_vs_rest_reason": why}


def _flag_reason(figures: dict, threshold: float, max_mae: float | None) -> str | None:
    """Why a rater looks careless on the check items, or None."""
    r, mae = figures["check_pearson"], figures["check_mae"]
    if r is not None and r < threshold:
        return f"check Pearson {r:.2f} below {threshold:g}"
    if figures["constant"]:
        # Pearson is undefined here, yet one score for every check is the plainest sign
        return "the same score on every check item"
    if max_mae is not None and mae is not None and mae > max_mae:
        return f"check MAE {mae:.2f} above {max_mae:g}"
    return None


def annotator_report(project: Project, threshold: float = DEFAULT_CHECK_THRESHOLD,
                     max_mae: float | None = None,
                     min_overlap: int = DEFAULT_MIN_OVERLAP) -> list[dict]:
    """One dict per annotator (join order) with the keys of REPORT_COLUMNS.

    rated/skipped count this annotator's ratings; mean and sd (sample) are over their scores;
    pearson_vs_rest correlates them with the mean of the other annotators who are not
    excluded (None under `min_overlap` shared items, with pearson_vs_rest_reason saying
    why, in the words of `agreement`); check_pearson and check_mae compare them with the known scores of check items;
    seconds_per_item is the median time recorded per rated item (the median, because an
    item left open over a break would swamp a mean); checks counts the check items rated.
    `flagged` is true, with `flag_reason` saying why, when check_pearson is below
    `threshold`, when the rater gave one score to check items of differing known scores, or
    when check_mae is above `max_mae` (if given). bias and reliability are the rater model's
    (Project.rater_model: relative to the average rater; None for excluded people and
    machine raters, who never count in it). Undefined figures are None.
    """
    ratings = project.ratings()
    names = project.annotators()
    excluded = set(project.excluded_annotators())
    # the rest a rater is compared with: people who count (never a machine rater)
    machines = set(project.roster.machines())
    left_out = excluded | machines
    skipped = ratings["skipped"].to_numpy(bool)
    rated = ~skipped & ratings["score"].notna().to_numpy()
    long = LongRatings.from_frame(ratings[rated], raters=names)
    checks = check_scores(project)
    known = pd.Series(checks, dtype=np.float64).reindex(long.units).to_numpy(np.float64)
    counted = np.array([name not in left_out for name in names], dtype=bool)
    figures = {**_rater_figures(long, counted, min_overlap), **_check_table(long, known)}
    rater = pd.Index(names).get_indexer(pd.Index(ratings["annotator"]))
    skips = np.bincount(rater[skipped], minlength=len(names))
    seconds = _median_seconds(ratings["seconds"].to_numpy(np.float64), rater, rated, len(names))
    model = project.rater_model()
    return [{**_report_row(name, {key: figures[key][row] for key in figures}, int(skips[row]),
                           seconds[row], name in excluded, name in machines, threshold,
                           max_mae),
             "bias": model.get(name, {}).get("bias"),
             "reliability": model.get(name, {}).get("reliability")}
            for row, name in enumerate(names)]


def _report_row(name: str, entry: dict, skips: int, seconds: float, excluded: bool,
                machine: bool, threshold: float, max_mae: float | None) -> dict:
    """One annotator's row of the report (see annotator_report)."""
    reason = _flag_reason({"check_pearson": _number(entry["check_pearson"]),
                           "check_mae": _number(entry["check_mae"]),
                           "constant": bool(entry["constant"])}, threshold, max_mae)
    return {
        "annotator": name, "rated": int(entry["rated"]), "skipped": skips,
        "mean": _number(entry["mean"]), "sd": _number(entry["sd"]),
        "pearson_vs_rest": _number(entry["pearson_vs_rest"]),
        "check_pearson": _number(entry["check_pearson"]),
        "check_mae": _number(entry["check_mae"]) if entry["checks"] else None,
        "excluded": excluded, "seconds_per_item": _number(seconds),
        "checks": int(entry["checks"]), "flagged": reason is not None,
        "flag_reason": reason, "machine": machine,
        "pearson_vs_rest_reason": entry["pearson_vs_rest_reason"],
    }


def _median_seconds(seconds: np.ndarray, rater: np.ndarray, rated: np.ndarray,
                    count: int) -> np.ndarray:
    """Median recorded seconds per rated item of each rater (NaN without any)."""
    timed = rated & ~np.isnan(seconds)
    frame = pd.DataFrame({"rater": rater[timed], "seconds": seconds[timed]})
    medians = frame.groupby("rater")["seconds"].median()
    out = np.full(count, np.nan)
    out[medians.index.to_numpy()] = medians.to_numpy()
    return out


def annotator_frame(project: Project, threshold: float = DEFAULT_CHECK_THRESHOLD,
                    max_mae: float | None = None) -> pd.DataFrame:
    """The annotator report as a DataFrame with REPORT_COLUMNS (for XLSX and the GUI)."""
    rows = annotator_report(project, threshold, max_mae)
    return pd.DataFrame(rows, columns=list(REPORT_COLUMNS))
