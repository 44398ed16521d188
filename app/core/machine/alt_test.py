"""The Alternative Annotator Test (Calderon, Reichart and Dror, ACL 2025; arXiv 2501.10970).

Can a machine rater replace a human one? Each human is left out in turn. On every item that
human rated, the machine and the left-out human are each scored by how well they represent
the remaining humans: the negative root mean squared difference from their scores (graded
scales). The machine "wins" the item when its score is at least the human's, the human when
theirs is at least the machine's (a tie counts for both). With d = human wins - machine wins
per item, a one-sided one-sample t-test asks whether the mean of d is below the cost-benefit
margin epsilon (the machine is cheaper, so the human must beat it by more than epsilon). The
p-values of all humans are corrected by Benjamini-Yekutieli at q; the winning rate is the
share of humans whose null hypothesis is rejected, and the machine passes at 0.5 or more.
The average advantage probability rho is the mean over humans of the machine's win rate.

Only items rated by at least `min_humans` humans (and by the machine) count, and only humans
with at least `min_instances` such items are tested.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

DEFAULT_EPSILON = 0.2
DEFAULT_Q = 0.05
MIN_HUMANS_PER_ITEM = 2
MIN_ITEMS_PER_HUMAN = 30


@dataclass(frozen=True)
class HumanResult:
    """One left-out human: items compared, the machine's win rate, p-value, rejection."""

    instances: int
    advantage: float | None
    p_value: float | None
    rejected: bool


@dataclass(frozen=True)
class AltTestResult:
    """The verdict: winning rate (None when no human could be tested), rho, pass or fail."""

    epsilon: float
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool
    humans: dict[str, HumanResult] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The `alt_test` object of `simrate machine --json`."""
        return {"epsilon": self.epsilon, "winning_rate": self.winning_rate,
                "advantage_probability": self.advantage_probability, "passed": self.passed,
                "humans": {name: {"p_value": h.p_value, "rejected": h.rejected,
                                  "instances": h.instances} for name, h in self.humans.items()}}


def benjamini_yekutieli(p_values: np.ndarray, q: float = DEFAULT_Q) -> np.ndarray:
    """Which hypotheses the Benjamini-Yekutieli step-up procedure rejects (NaN never is)."""
    p = np.where(np.isnan(p_values), np.inf, p_values)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")
    harmonic = float((1.0 / np.arange(1, m + 1)).sum())
    below = p[order] <= np.arange(1, m + 1) / m * q / harmonic
    rejected = np.zeros(m, dtype=bool)
    if below.any():
        rejected[order[:np.flatnonzero(below).max() + 1]] = True
    return rejected


def one_sided_p(differences: np.ndarray, epsilon: float) -> float:
    """p-value of H0: mean >= epsilon against H1: mean < epsilon (one-sample t-test)."""
    n = differences.size
    if n < 2:
        return float("nan")
    mean = float(differences.mean())
    sd = float(differences.std(ddof=1))
    if sd == 0.0:
        # all items alike: the t statistic is infinite (or undefined at mean == epsilon)
        return 0.0 if mean < epsilon else 1.0
    t = (mean - epsilon) / (sd / np.sqrt(n))
    from scipy import stats  # a second to import: only when a machine rater is tested

    return float(stats.t.cdf(t, n - 1))


def _indicators(frame: pd.DataFrame, machine: pd.Series, min_humans: int) -> pd.DataFrame:
    """Per (human, item) kept: did the machine win, did the human win (neg-RMSE alignment)."""
    frame = frame[frame["item"].isin(machine.index)]
    m = frame.groupby("item")["score"].transform("size").to_numpy(np.float64)
    keep = m >= min_humans
    frame, m = frame[keep], m[keep]
    h = frame["score"].to_numpy(np.float64)
    s1 = frame.groupby("item")["score"].transform("sum").to_numpy(np.float64)
    s2 = (frame.assign(sq=h * h).groupby("item")["sq"].transform("sum").to_numpy(np.float64))
    f = machine.reindex(frame["item"]).to_numpy(np.float64)
    # squared differences from the remaining humans: all humans' minus the left-out one's
    machine_sq = m * f * f - 2.0 * f * s1 + s2 - (f - h) ** 2
    human_sq = (m * h * h - 2.0 * h * s1 + s2)  # includes (h - h)^2 = 0
    return pd.DataFrame({"human": frame["human"].to_numpy(),
                         "machine_wins": (machine_sq <= human_sq).astype(np.float64),
                         "human_wins": (human_sq <= machine_sq).astype(np.float64)})


def alt_test(humans: pd.DataFrame, machine: Mapping[str, float] | pd.Series,
             epsilon: float = DEFAULT_EPSILON, q: float = DEFAULT_Q,
             min_humans: int = MIN_HUMANS_PER_ITEM,
             min_instances: int = MIN_ITEMS_PER_HUMAN) -> AltTestResult:
    """Run the alt-test; `humans` has columns human, item, score (one row per rating)."""
    machine = pd.Series(machine, dtype=np.float64).dropna()
    wins = _indicators(humans[["human", "item", "score"]], machine, min_humans)
    names = list(dict.fromkeys(humans["human"]))
    results: dict[str, HumanResult] = {}
    tested: list[str] = []
    p_values: list[float] = []
    advantages: list[float] = []
    for key, group in wins.groupby("human", sort=False):
        name, n = str(key), len(group)
        if n < min_instances:
            continue
        difference = group["human_wins"].to_numpy() - group["machine_wins"].to_numpy()
        tested.append(name)
        p_values.append(one_sided_p(difference, epsilon))
        advantages.append(float(group["machine_wins"].mean()))
        results[name] = HumanResult(n, advantages[-1], p_values[-1], False)
    rejected = benjamini_yekutieli(np.array(p_values, dtype=np.float64), q)
    for name, flag in zip(tested, rejected.tolist(), strict=True):
        results[name] = HumanResult(results[name].instances, results[name].advantage,
                                    results[name].p_value, bool(flag))
    counts = wins.groupby("human").size()
    for name in names:  # humans not tested: too few items
        results.setdefault(name, HumanResult(int(counts.get(name, 0)), None, None, False))
    if not tested:
        return AltTestResult(epsilon, None, None, False, results)
    rate = float(rejected.mean())
    rho = float(np.mean(advantages))
    return AltTestResult(epsilon, rate, rho, rate >= 0.5, results)
