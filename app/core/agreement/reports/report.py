"""Agreement reports from a long ratings frame: alpha, correlations, intervals, per group.

The frame has one row per rating: item_id, annotator and a value column (`score`). These
functions give the figures of `simrate agreement --json` (with the reason for every undefined
one, for the human-readable output), the CLSS paper's Table 4 (alpha over all items and over
the unadjudicated ones, per comparison type) for any project, and each item's share of the
observed disagreement (an order for reviewing items; the app's queue orders by spread).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from simrate.core.agreement.batch import LEVELS, alpha_with_reason, unit_disagreement
from simrate.core.agreement.correlation import (
    DEFAULT_MIN_OVERLAP,
    correlation_matrix,
    vs_rest_correlation,
)
from simrate.core.agreement.intervals import DEFAULT_CI_METHOD, Tick, alpha_ci
from simrate.core.base.errors import SimrateError
from simrate.core.review.reliability import gold_reliability, raters_needed, reliability_ci

if TYPE_CHECKING:  # pandas takes over half a second to import; few paths here need it
    import pandas as pd

REASON_NO_REPLICATES = "every bootstrap replicate is undefined"
#: The reliabilities `raters_needed` reports the panel size for.
RELIABILITY_TARGETS = (0.8, 0.9)


@dataclass(frozen=True)
class RatingsMatrix:
    """Ratings as a raters x items array (NaN missing) with the rater and item labels."""

    values: np.ndarray
    raters: list[str]
    items: list[str]

    def subset(self, items: Collection[Hashable]) -> RatingsMatrix:
        """The same raters over the chosen items (in this matrix's order)."""
        chosen = set(items)
        columns = [i for i, item in enumerate(self.items) if item in chosen]
        return RatingsMatrix(self.values[:, columns], self.raters, [self.items[i] for i in columns])

    def active(self) -> RatingsMatrix:
        """Only the raters with at least one rating here."""
        rows = np.flatnonzero((~np.isnan(self.values)).any(axis=1))
        return RatingsMatrix(self.values[rows], [self.raters[i] for i in rows], self.items)


def ratings_matrix(frame: pd.DataFrame, value_column: str = "score",
                   items: Sequence[str] | None = None,
                   raters: Sequence[str] | None = None) -> RatingsMatrix:
    """Pivot a long ratings frame; `items`/`raters` fix columns/rows (default: frame order)."""
    import pandas as pd

    rated = frame.loc[frame[value_column].notna(), ["item_id", "annotator", value_column]]
    repeated = rated.duplicated(["item_id", "annotator"])
    if repeated.any():
        first = rated[repeated].iloc[0]
        raise SimrateError(f"{first['annotator']!r} rates item {first['item_id']!r} twice")
    item_list = list(pd.unique(rated["item_id"])) if items is None else list(items)
    rater_list = list(pd.unique(rated["annotator"])) if raters is None else list(raters)
    column = pd.Index(item_list).get_indexer(pd.Index(rated["item_id"]))
    row = pd.Index(rater_list).get_indexer(pd.Index(rated["annotator"]))
    if (column < 0).any() or (row < 0).any():
        raise SimrateError("a rating names an item or annotator that is not listed")
    values = np.full((len(rater_list), len(item_list)), np.nan)
    values[row, column] = rated[value_column].to_numpy(dtype=np.float64)
    return RatingsMatrix(values, [str(r) for r in rater_list], [str(i) for i in item_list])


@dataclass
class Report:
    """Figures keyed as in `agreement --json`, and why each undefined (None) figure is so."""

    figures: dict
    reasons: dict[tuple, str] = field(default_factory=dict)
    groups: dict[str, Report] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The JSON object of `simrate agreement --json` (None for undefined values)."""
        out = dict(self.figures)
        if self.groups:
            out["groups"] = {name: group.to_json() for name, group in self.groups.items()}
        return out


def _alpha_block(matrix: RatingsMatrix, levels: Sequence[str], key: str,
                 report: Report) -> None:
    block = {}
    for level in levels:
        value, reason = alpha_with_reason(matrix.values, level)
        block[level] = value
        if reason:
            report.reasons[(key, level)] = reason
    report.figures[key] = block


def interval_block(data: object, levels: Sequence[str], method: str, seed: int,
                   replicates: int, report: Report, tick: Tick | None = None) -> None:
    """report.figures["ci95"]: each level's 95% interval of alpha over `data` (what
    alpha_ci takes), None with the reason where it is undefined."""
    block: dict[str, list[float] | None] = {}
    for level in levels:
        block[level] = None
        if report.figures["alpha"][level] is None:
            report.reasons[("ci95", level)] = report.reasons[("alpha", level)]
            if tick is not None:
                tick(replicates)  # none drawn, but counted as done
            continue
        try:
            interval = alpha_ci(data, level, method, replicates, seed, tick=tick)
        except ValueError as exc:
            report.reasons[("ci95", level)] = str(exc)
            continue
        if interval is None:
            report.reasons[("ci95", level)] = REASON_NO_REPLICATES
        else:
            block[level] = [interval[0], interval[1]]
    report.figures["ci95"] = block


def _correlation_blocks(matrix: RatingsMatrix, report: Report,
                        min_overlap: int = DEFAULT_MIN_OVERLAP) -> None:
    """Pearson per pair and each rater's r vs rest, undefined under `min_overlap` items (the
    one floor of every correlation shown), with the reasons."""
    r, reasons = correlation_matrix(matrix.values, "pearson", min_overlap)
    names = matrix.raters
    pearson: dict[str, dict[str, float | None]] = {}
    for i, a in enumerate(names):
        pearson[a] = {}
        for j, b in enumerate(names):
            pearson[a][b] = None if np.isnan(r[i, j]) else float(r[i, j])
            if (i, j) in reasons:
                report.reasons[("pearson", a, b)] = reasons[(i, j)]
    vs_rest: dict[str, float | None] = {}
    for i, a in enumerate(names):
        value, reason = vs_rest_correlation(matrix.values, i, min_overlap)
        vs_rest[a] = None if reason else value
        if reason:
            report.reasons[("pearson_vs_rest", a)] = reason
    report.figures["pearson"] = pearson
    report.figures["pearson_vs_rest"] = vs_rest
    report.figures["min_overlap"] = min_overlap


def summarize(matrix: RatingsMatrix, levels: Sequence[str] = ("interval",),
              subset: Collection[Hashable] | None = None, ci: bool = False,
              ci_method: str = DEFAULT_CI_METHOD, seed: int = 0,
              replicates: int = 1000, min_overlap: int = DEFAULT_MIN_OVERLAP) -> Report:
    """The figures of one scope: counts, alpha (and over `subset`), ci95, Pearson (none for
    a pair under `min_overlap` shared items)."""
    for level in levels:
        if level not in LEVELS:
            raise SimrateError(f"unknown level {level!r} (use {', '.join(LEVELS)})")
    matrix = matrix.active()
    present = ~np.isnan(matrix.values)
    report = Report({
        "items": len(matrix.items),
        "pairable_items": int((present.sum(axis=0) >= 2).sum()),
        "annotators": list(matrix.raters),
    })
    _alpha_block(matrix, levels, "alpha", report)
    if subset is not None:
        _alpha_block(matrix.subset(subset), levels, "alpha_unadjudicated", report)
    if ci:
        interval_block(matrix.values, levels, ci_method, seed, replicates, report)
    alpha = report.figures["alpha"]["interval"] if "interval" in levels else \
        alpha_with_reason(matrix.values, "interval")[0]
    reliability_block(report, alpha, present.sum(axis=0))
    _correlation_blocks(matrix, report, min_overlap)
    return report


def reliability_block(report: Report, alpha: float | None, counts: np.ndarray) -> None:
    """gold_reliability and raters_needed (app/core/review/reliability.py): Spearman-Brown
    from interval alpha at the mean number of ratings of the rated items (`counts`: ratings
    per item); its interval is alpha's 95% interval mapped through the same formula (with
    --ci, else null)."""
    rated = counts[counts > 0]
    k = float(rated.mean()) if rated.size else None
    interval = report.figures.get("ci95", {}).get("interval")
    ci = reliability_ci(tuple(interval), k) if interval and k else None
    report.figures["gold_reliability"] = {
        "value": gold_reliability(alpha, k) if k else None,
        "ci": None if ci is None else [ci[0], ci[1]],
        "raters_per_item": None if k is None else round(k, 4)}
    report.figures["raters_needed"] = {str(t): raters_needed(alpha, t)
                                       for t in RELIABILITY_TARGETS}


def group_members(matrix: RatingsMatrix, group_of: Mapping[str, str]) -> dict[str, list[str]]:
    """{group: its items in matrix order}, groups sorted; an item without a group is in ''."""
    members: dict[str, list[str]] = {}
    for item in matrix.items:
        members.setdefault(group_of.get(item, ""), []).append(item)
    return {name: members[name] for name in sorted(members)}


def agreement_report(matrix: RatingsMatrix, levels: Sequence[str] = ("interval",),
                     group_of: Mapping[str, str] | None = None,
                     subset: Collection[Hashable] | None = None, ci: bool = False,
                     ci_method: str = DEFAULT_CI_METHOD, seed: int = 0,
                     min_overlap: int = DEFAULT_MIN_OVERLAP) -> Report:
    """`summarize` over all items and, with `group_of` ({item: group}), over each group."""
    report = summarize(matrix, levels, subset, ci, ci_method, seed, min_overlap=min_overlap)
    if group_of is not None:
        for name, members in group_members(matrix, group_of).items():
            report.groups[name] = summarize(matrix.subset(members), levels, subset, ci,
                                            ci_method, seed, min_overlap=min_overlap)
    return report


def alpha_table(frame: pd.DataFrame, group_of: Mapping[str, str],
                subset: Collection[Hashable], level: str = "interval",
                value_column: str = "score") -> pd.DataFrame:
    """Table 4 of the CLSS paper: per group, alpha over all items and over `subset` items.

    Columns: group, items, alpha, subset_items, alpha_subset; a last row `(all)` covers
    every item. Undefined alphas are missing values.
    """
    import pandas as pd

    matrix = ratings_matrix(frame, value_column)
    chosen = set(subset)
    scopes = [(name, matrix.subset(members))
              for name, members in group_members(matrix, group_of).items()]
    rows = []
    for name, scope in [*scopes, ("(all)", matrix)]:
        inner = scope.subset(chosen)
        rows.append({
            "group": name,
            "items": len(scope.items),
            "alpha": alpha_with_reason(scope.values, level)[0],
            "subset_items": len(inner.items),
            "alpha_subset": alpha_with_reason(inner.values, level)[0],
        })
    return pd.DataFrame(rows, columns=["group", "items", "alpha", "subset_items", "alpha_subset"])


def item_disagreement(frame: pd.DataFrame, level: str = "interval",
                      value_column: str = "score") -> pd.DataFrame:
    """Per item: share of the observed disagreement, ratings, spread; largest share first."""
    import pandas as pd

    matrix = ratings_matrix(frame, value_column)
    values = matrix.values
    present = ~np.isnan(values)
    counts = present.sum(axis=0)
    high = np.where(present, values, -np.inf).max(axis=0)
    low = np.where(present, values, np.inf).min(axis=0)
    result = pd.DataFrame({
        "item_id": matrix.items,
        "share": unit_disagreement(values, level),
        "n_ratings": counts,
        "spread": np.where(counts > 0, high - low, 0.0),
    })
    return result.sort_values(["share", "spread"], ascending=False, kind="stable",
                              ignore_index=True)
