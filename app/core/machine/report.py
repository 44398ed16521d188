"""Machine raters beside the humans: Pearson, alpha with and without, the alt-test.

The humans are the annotators who count (neither machines nor excluded). For each machine
rater: its Pearson with each human over the items both rated, with the mean of the humans
on each item, interval alpha of the humans alone and with the machine added, and the
alt-test verdict (alt_test.py). The JSON is that of `simrate machine --json`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simrate.core.agreement.sparse import (
    DEFAULT_MIN_OVERLAP,
    LongRatings,
    long_alpha,
    pairwise_pearson,
    pearson_vs_rest,
)
from simrate.core.machine.alt_test import DEFAULT_EPSILON, alt_test
from simrate.core.project import Project

#: Fewest shared items for a machine-human Pearson (the one floor, DEFAULT_MIN_OVERLAP).
MIN_OVERLAP = DEFAULT_MIN_OVERLAP


def _number(value: float | None) -> float | None:
    return None if value is None or value != value else float(value)


def machine_entry(long: LongRatings, humans: list[int], machine: int,
                  epsilon: float) -> dict:
    """The report of one machine rater (indices into long.raters)."""
    names = long.raters
    with_machine = np.zeros(len(names), dtype=bool)
    with_machine[humans + [machine]] = True
    only_humans = with_machine.copy()
    only_humans[machine] = False
    scope = long.select_raters(with_machine)
    pairs = pairwise_pearson(scope, MIN_OVERLAP)
    rest = pearson_vs_rest(scope, only_humans, MIN_OVERLAP)[0]
    frame = pd.DataFrame({"human": np.asarray(names, dtype=object)[long.rater],
                          "item": np.asarray(long.units, dtype=object)[long.unit],
                          "score": long.value})
    is_human = only_humans[long.rater]
    mine = long.rater == machine
    verdict = alt_test(frame[is_human],
                       pd.Series(long.value[mine], index=frame["item"][mine].to_numpy()),
                       epsilon)
    return {
        "pearson": {names[h]: _number(pairs.r[machine, h]) for h in humans},
        "pearson_vs_humans": _number(rest[machine]),
        "alpha_without": long_alpha(long.select_raters(only_humans), "interval")[0],
        "alpha_with": long_alpha(scope, "interval")[0],
        "alt_test": verdict.to_json(),
    }


def machine_report(project: Project, epsilon: float = DEFAULT_EPSILON) -> dict:
    """{"machines": {name: entry}} for every machine rater of the project."""
    machines = project.roster.machines()
    if not machines:
        return {"machines": {}}
    ratings = project.ratings()
    ratings = ratings[ratings["score"].notna() & ~ratings["skipped"].astype(bool)]
    names = project.annotators()
    long = LongRatings.from_frame(ratings, units=project.item_ids(), raters=names)
    left_out = set(project.excluded_annotators()) | set(machines)
    humans = [i for i, name in enumerate(names) if name not in left_out]
    return {"machines": {name: machine_entry(long, humans, names.index(name), epsilon)
                         for name in machines}}


def machine_counts(project: Project) -> dict[str, tuple[int, int]]:
    """{machine: (its scores, those on items a counted human scored too)}, the Ratings and
    Shared columns of the dashboard's rater table for machine raters."""
    machines = project.roster.machines()
    if not machines:
        return {}
    ratings = project.ratings()
    scored = ratings[ratings["score"].notna()]
    human = ~scored["annotator"].isin(project.roster.left_out())
    human_items = set(scored.loc[human, "item_id"])
    counts = {}
    for name in machines:
        items = scored.loc[scored["annotator"] == name, "item_id"]
        counts[name] = (len(items), int(items.isin(human_items).sum()))
    return counts
