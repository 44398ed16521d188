"""The `agreement` report computed from long-form ratings (sparse.py), for any number of raters.

Same figures and reasons as report.summarize on a dense matrix, plus `min_overlap`: the
fewest shared items for which a pairwise Pearson is given. Bootstrap intervals run on the
values of the pairable units in long form (alpha does not depend on who gave a value), so
they equal the dense report's at any size and never build a raters x units matrix. Alpha
itself takes batch alpha's grid route when the ratings fit a small dense matrix.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence

import numpy as np

from simrate.core.agreement.batch import LEVELS, checked_data, grid_table, table_alpha
from simrate.core.agreement.intervals import DEFAULT_CI_METHOD, Tick, UnitValues
from simrate.core.agreement.reports.report import Report, interval_block, reliability_block
from simrate.core.agreement.sparse import (
    DEFAULT_MIN_OVERLAP,
    LongRatings,
    long_alpha,
    pairable_ratings,
    pairwise_pearson,
    pearson_vs_rest,
)
from simrate.core.base.errors import SimrateError


def _alpha_block(long: LongRatings, levels: Sequence[str], key: str, report: Report,
                 dense: np.ndarray | None = None) -> None:
    """report.figures[key]: alpha per level. `dense`, the same ratings as raters x units (or
    None), lets ratings on a grid take batch alpha's grid route; the figures are the same."""
    table = None
    if dense is not None:
        checked, extremes = checked_data(dense)
        table = None if extremes is None else grid_table(checked, extremes)
    block = {}
    for level in levels:
        value, reason = table_alpha(table, level) if table else long_alpha(long, level)
        block[level] = value
        if reason:
            report.reasons[(key, level)] = reason
    report.figures[key] = block


#: Bootstrap replicates behind each 95% interval (--ci).
CI_REPLICATES = 1000
#: Up to this many raters x units cells, alpha uses the dense matrix's grid route.
_DENSE_CELLS = 5_000_000


def _ci_data(long: LongRatings) -> UnitValues:
    """The pairable values the bootstrap resamples, unit by unit in label order (the columns
    of the dense report's matrix), with the raters who gave any value."""
    keep, unit, _ = pairable_ratings(long.unit, len(long.units))
    return UnitValues(unit, long.value[keep], int(long.active_raters().size))


def dense_matrix(long: LongRatings) -> np.ndarray | None:
    """The ratings as a raters x units array (NaN missing); None when over _DENSE_CELLS."""
    if len(long.raters) * len(long.units) > _DENSE_CELLS:
        return None
    data = np.full((len(long.raters), len(long.units)), np.nan)
    data[long.rater, long.unit] = long.value
    return data


def _holds_every_rating(dense: np.ndarray | None, long: LongRatings) -> bool:
    """Whether `dense` has a cell for each rating (not so when a rater rates a unit twice:
    the long form counts both)."""
    return dense is not None and np.count_nonzero(dense == dense) == long.value.size


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _pearson_blocks(long: LongRatings, active: np.ndarray, min_overlap: int,
                    report: Report) -> None:
    pairs = pairwise_pearson(long, min_overlap)
    rest, rest_reasons = pearson_vs_rest(long, min_overlap=min_overlap)
    names = [long.raters[i] for i in active]
    table = pairs.r[np.ix_(active, active)].tolist()
    report.figures["pearson"] = {
        a: {b: (None if r != r else r) for b, r in zip(names, row, strict=True)}
        for a, row in zip(names, table, strict=True)}
    report.figures["pearson_vs_rest"] = {long.raters[i]: _number(rest[i]) for i in active}
    for (i, j), reason in pairs.reasons.items():
        report.reasons[("pearson", long.raters[i], long.raters[j])] = reason
    for i, reason in rest_reasons.items():
        report.reasons[("pearson_vs_rest", long.raters[i])] = reason
    report.figures["min_overlap"] = min_overlap


def long_summary(long: LongRatings, levels: Sequence[str] = ("interval",),
                 subset: np.ndarray | None = None, ci: bool = False,
                 ci_method: str = DEFAULT_CI_METHOD, seed: int = 0,
                 min_overlap: int = DEFAULT_MIN_OVERLAP, tick: Tick | None = None) -> Report:
    """The figures of one scope (every unit of `long`); `subset` is a per-unit mask;
    `tick(n)` counts the bootstrap replicates drawn (CI_REPLICATES a level)."""
    for level in levels:
        if level not in LEVELS:
            raise SimrateError(f"unknown level {level!r} (use {', '.join(LEVELS)})")
    active = long.active_raters()
    report = Report({
        "items": len(long.units),
        "pairable_items": int((long.unit_counts() >= 2).sum()),
        "annotators": [long.raters[i] for i in active],
    })
    cells = len(long.raters) * len(long.units)
    dense = dense_matrix(long) if 2 * long.value.size >= cells else None
    grid = dense if _holds_every_rating(dense, long) else None
    _alpha_block(long, levels, "alpha", report, grid)
    if subset is not None:
        _alpha_block(long.select_units(subset), levels, "alpha_unadjudicated", report,
                     None if grid is None else grid[:, subset])
    if ci:
        interval_block(_ci_data(long), levels, ci_method, seed, CI_REPLICATES, report, tick)
    _reliability_block(long, report)
    _pearson_blocks(long, active, min_overlap, report)
    return report


def _reliability_block(long: LongRatings, report: Report) -> None:
    """gold_reliability and raters_needed, as report.reliability_block gives them."""
    alpha = report.figures["alpha"]["interval"] if "interval" in report.figures["alpha"] \
        else long_alpha(long, "interval")[0]
    reliability_block(report, alpha, long.unit_counts())


def _scope(long: LongRatings, members: np.ndarray) -> LongRatings:
    """The ratings of the units `members` (indices), renumbered, labels kept in order."""
    position = np.full(len(long.units), -1, dtype=np.int64)
    position[members] = np.arange(members.size)
    keep = position[long.unit] >= 0
    return LongRatings(position[long.unit[keep]], long.rater[keep], long.value[keep],
                       [long.units[i] for i in members], long.raters)


def _unit_mask(long: LongRatings, subset: Collection[Hashable] | np.ndarray) -> np.ndarray:
    """Per unit of `long`: whether it is in `subset` (labels, or already a mask)."""
    if isinstance(subset, np.ndarray) and subset.dtype == bool:
        if subset.shape != (len(long.units),):
            raise ValueError("a subset mask needs one entry per unit")
        return subset
    chosen = set(subset)
    return np.fromiter((u in chosen for u in long.units), bool, len(long.units))


def long_agreement_report(long: LongRatings, levels: Sequence[str] = ("interval",),
                          group_of: Mapping[str, str] | None = None,
                          subset: Collection[Hashable] | np.ndarray | None = None,
                          ci: bool = False, ci_method: str = DEFAULT_CI_METHOD, seed: int = 0,
                          min_overlap: int = DEFAULT_MIN_OVERLAP,
                          tick: Tick | None = None) -> Report:
    """`long_summary` over all units and, with `group_of` ({unit: group}), over each group.
    `subset`: unit labels, or a boolean mask over long.units; `tick` as long_summary's."""
    mask = None if subset is None else _unit_mask(long, subset)
    report = long_summary(long, levels, mask, ci, ci_method, seed, min_overlap, tick)
    if group_of is None:
        return report
    groups = np.array([group_of.get(u, "") for u in long.units], dtype=object)
    for name in sorted(set(groups.tolist())):
        members = np.flatnonzero(groups == name)
        scope = _scope(long, members)
        inner = None if mask is None else mask[members]
        report.groups[name] = long_summary(scope, levels, inner, ci, ci_method, seed,
                                           min_overlap, tick)
    return report
