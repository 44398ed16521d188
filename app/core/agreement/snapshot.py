"""The per-scope engine's input: a project's ratings read once, as a compact snapshot.

`read_snapshot` takes the project's integer columns (no item texts, no DataFrame) and
returns the items x raters array of step codes the engine updates in place, with each
item's dataset and genre and whether it is settled (flagged or adjudicated), and the same
ratings in long form, from which the engine's sums are built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from app.core.review.flags import run_spreads
from app.core.scale import threshold_codes

ALL, UNADJUDICATED = "all", "unadjudicated"
SUBSETS = (ALL, UNADJUDICATED)
GROUPINGS = ("dataset", "genre")
OVERALL = ""  # the grouping (and group) name of the whole project
MISSING = -1  # an empty cell of the codes array


@dataclass
class Snapshot:
    """Everything the engine needs, read from the project file in one go."""

    item_ids: list[str]
    group_names: dict[str, list[str]]  # grouping -> names; codes index into them
    group_codes: dict[str, np.ndarray]  # grouping -> int32 per item
    raters: list[str]  # counted (not excluded) annotators
    codes: np.ndarray  # items x raters, int16, MISSING where not rated
    unadjudicated: np.ndarray  # bool per item: neither flagged nor adjudicated
    excluded: list[str]
    n_codes: int
    low: float
    step: float

    def copy(self) -> Snapshot:
        """A copy whose arrays a worker thread may read while the engine changes its own."""
        return Snapshot(list(self.item_ids), self.group_names,
                        {k: v.copy() for k, v in self.group_codes.items()}, list(self.raters),
                        self.codes.copy(), self.unadjudicated.copy(), list(self.excluded),
                        self.n_codes, self.low, self.step)


def read_snapshot(project: Any) -> tuple[Snapshot, LongForm]:
    """The snapshot of an open Project (passed in: this module does not import it), read as
    integer columns (no item texts, no DataFrame), and its ratings in long form (what the
    engine builds its sums from)."""
    rows, aids, scores, datasets, genres = project.scope_columns()
    excluded = project.roster.left_out()  # machine raters are not in it either
    raters = [a for a in project.annotators() if a not in excluded]
    ids = project.roster.ids()
    column_of = np.full(max(ids.values(), default=0) + 1, -1, dtype=np.int64)
    for column, name in enumerate(raters):
        column_of[ids[name]] = column
    keep = column_of[aids] >= 0
    item_ids = project.item_ids()
    long = LongForm(rows[keep], column_of[aids[keep]], scores[keep].astype(np.int64))
    codes = np.full((len(item_ids), len(raters)), MISSING, dtype=np.int16)
    codes[long.rows, long.columns] = long.codes
    names, group_codes = {}, {}
    for grouping, values in (("dataset", datasets), ("genre", genres)):
        labels, uniques = pd.factorize(pd.Series(values, dtype=object).fillna(""), sort=True)
        names[grouping] = [str(u) for u in uniques]
        group_codes[grouping] = np.asarray(labels, dtype=np.int32)
    # settled = flagged or adjudicated; flagged = a spread of k codes, unless adjudicated
    scale = project.scale
    k = threshold_codes(project.threshold, scale.step)
    settled = np.zeros(len(item_ids), dtype=bool)
    starts, spread = run_spreads(long.rows, long.codes)
    settled[long.rows[starts[spread >= k]]] = True
    adjudicated = [project.position(i) for i in project.adjudications()["item_id"]]
    settled[[row for row in adjudicated if row >= 0]] = True
    snapshot = Snapshot(item_ids, names, group_codes, raters, codes, ~settled, excluded,
                        scale.n_codes, scale.low, scale.step)
    return snapshot, long


@dataclass(frozen=True)
class LongForm:
    """A snapshot's ratings, one per entry: item row (ascending), rater column, code."""

    rows: np.ndarray
    columns: np.ndarray
    codes: np.ndarray
