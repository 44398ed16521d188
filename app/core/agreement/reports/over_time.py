"""Agreement over time: alpha (with its interval) and each rater's Pearson r against the
rest, as they stood after every N ratings, in the order the ratings were given.

An organizer watches this during a study: a rater whose correlation with the others falls
is seen while there is still time to talk to them. Each point counts every rating given up
to then (a changed rating counts once, at its latest value and time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP
from simrate.core.agreement.intervals import alpha_ci
from simrate.core.agreement.live import LiveAgreement

#: At most this many points; N is chosen to keep to it.
MAX_POINTS = 40
#: Bootstrap resamples per point (a point's interval, not the headline's 1,000).
REPLICATES = 200
#: Points whose data would exceed this many raters x units cells get no interval.
INTERVAL_CELLS = 2_000_000
#: Alpha and its interval are given once this many items have two ratings or more (over
#: fewer, they swing from one rating to the next and say nothing).
MIN_UNITS = 5


@dataclass(frozen=True)
class TimePoint:
    """Agreement after the first `ratings` ratings (the last given at `at`)."""

    ratings: int
    at: float
    alpha: float | None
    low: float | None
    high: float | None
    vs_rest: dict[str, float | None] = field(default_factory=dict)


def step_for(n_ratings: int, max_points: int = MAX_POINTS) -> int:
    """The N of "every N ratings": a round number giving at most `max_points` points."""
    if n_ratings <= 0:
        return 1
    raw = max(1, math.ceil(n_ratings / max_points))
    for round_number in (1, 2, 5, 10, 20, 25, 50):
        scale = 10 ** max(0, int(math.log10(raw)) - 1)
        if round_number * scale >= raw:
            return round_number * scale
    return raw


def agreement_over_time(ratings: pd.DataFrame, every: int | None = None,
                        level: str = "interval", excluded: tuple[str, ...] = (),
                        replicates: int = REPLICATES, seed: int = 0,
                        check=None) -> tuple[int, list[TimePoint]]:
    """(N, points): alpha, its 95% interval and each rater's r against the rest after every
    N scored ratings (and after the last), from a ratings frame with item_id, annotator,
    score and updated_at. Skipped ratings and `excluded` raters do not count. `check()` is
    called between points (a background job's cancel check)."""
    scored = ratings[ratings["score"].notna() & ~ratings["annotator"].isin(list(excluded))]
    if "skipped" in scored.columns:
        scored = scored[~scored["skipped"].astype(bool)]
    scored = scored.sort_values("updated_at", kind="stable")
    n = len(scored)
    step = every or step_for(n)
    live = LiveAgreement()
    units = scored["item_id"].to_numpy(dtype=object)
    raters = scored["annotator"].to_numpy(dtype=object)
    scores = scored["score"].to_numpy(dtype=np.float64)
    times = scored["updated_at"].to_numpy(dtype=np.float64)
    stops = list(range(step, n, step)) + ([n] if n else [])
    points, done = [], 0
    for stop in stops:
        if check is not None:
            check()
        for k in range(done, stop):
            live.set_rating(units[k], raters[k], float(scores[k]))
        done = stop
        alpha = live.alpha(level) if live.n_pairable_units >= MIN_UNITS else None
        low = high = None
        if alpha is not None and live.n_units * len(live.raters()) <= INTERVAL_CELLS:
            data, _, _ = live.to_matrix()
            interval = alpha_ci(data, level, replicates=replicates, seed=seed)
            if interval is not None:
                low, high = interval
        shared = {r: both for r, (_n, both) in live.rater_counts().items()}
        vs_rest = {str(r): (None if v is None or not math.isfinite(v)  # the one floor
                            or shared.get(r, 0) < DEFAULT_MIN_OVERLAP else float(v))
                   for r, v in live.pearson_vs_rest().items()}
        points.append(TimePoint(stop, float(times[stop - 1]), alpha, low, high, vs_rest))
    return step, points


def over_time_frame(points: list[TimePoint]) -> pd.DataFrame:
    """One row per point: ratings, at, alpha, low, high, then r vs rest per rater."""
    raters = sorted({r for p in points for r in p.vs_rest})
    rows = [{"ratings": p.ratings, "at": p.at, "alpha": p.alpha, "low": p.low,
             "high": p.high, **{f"r:{r}": p.vs_rest.get(r) for r in raters}}
            for p in points]
    return pd.DataFrame(rows, columns=["ratings", "at", "alpha", "low", "high",
                                       *[f"r:{r}" for r in raters]])


#: A rater whose r against the rest has fallen this much below their best is drifting.
DRIFT = 0.1


def drifting(points: list[TimePoint], fall: float = DRIFT) -> dict[str, tuple[float, float]]:
    """{rater: (best r, latest r)} for raters whose r against the rest has fallen from its
    best (counted once five items had two ratings) `fall` or more beyond the typical fall.

    When one rater drifts, the others' r falls a little too (that rater is part of their
    rest): the typical (median) fall is taken off, so only the one who moved is named;
    with two raters nobody is (one cannot tell which of the two moved).
    """
    counted = [p for p in points if p.alpha is not None]
    falls = {}
    for rater in sorted({r for p in counted for r in p.vs_rest}):
        values = [v for v in (p.vs_rest.get(rater) for p in counted) if v is not None]
        if len(values) >= 2:
            falls[rater] = (max(values), values[-1])
    if len(falls) < 3:
        return {}
    typical = float(np.median([best - latest for best, latest in falls.values()]))
    return {rater: (best, latest) for rater, (best, latest) in falls.items()
            if best - latest - typical >= fall}
