"""The flag rule: which items an organizer is asked to adjudicate, written once.

Three rules, stored in the project (meta keys `flag_rule`, `threshold`, `uncertain_threshold`):

- `range`: two or more counted ratings whose largest and smallest differ by at least the
  range threshold (1.0 scale point by default). The rule of the seed papers, made for two or
  three experts; with k raters per item the range grows with k, so a crowd of five flags most
  items.
- `uncertain`: the item's ratings have a standard deviation (ddof=1, the spread of a rater
  around the item's mean) of at least the uncertain threshold (0.8 point by default). The
  SD estimates the same quantity whatever the number of raters, so the share of flagged
  items stays put as a crowd grows, and the items it picks are the disputed ones.
- `auto` (the default): `range` for items with at most 3 counted ratings, `uncertain` for
  items with 4 or more.

Every place that decides a flag (the live flag index, the gold table, `simrate info`'s SQL,
the agreement's "unadjudicated" subset) works from one `CodeRule`: the rule in integer step
codes, with a vectorised test, a test for one item, and the same test rendered as SQL.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.scale import threshold_codes

if TYPE_CHECKING:  # `simrate info` counts flags in SQL and loads no numpy
    import numpy as np

RULES = ("auto", "range", "uncertain")
DEFAULT_RULE = "auto"
DEFAULT_RANGE_THRESHOLD = 1.0
DEFAULT_UNCERTAIN_THRESHOLD = 0.8
#: Under `auto`, items with at most this many counted ratings follow the range rule.
AUTO_RANGE_RATERS = 3
#: Slack for thresholds typed as decimals (0.3 / 0.1 is 2.9999999999999996).
_EPSILON = 1e-9
#: "No limit" on the number of raters for the range part (fits SQLite and numpy integers).
_ALL = 2 ** 62


@dataclass(frozen=True)
class CodeRule:
    """A flag rule in step codes: the range part applies to items with 2..`range_up_to`
    ratings and needs a spread of `range_codes`; the uncertain part applies to items with more
    ratings (at least 2) and needs a sample variance of `variance_codes` squared codes."""

    range_codes: int
    range_up_to: int = _ALL
    variance_codes: float = math.inf

    def mask(self, n: np.ndarray, spread: np.ndarray, total: np.ndarray,
             squares: np.ndarray) -> np.ndarray:
        """Per item, from its count, spread, sum and sum of squares of codes: flagged?"""
        import numpy as np

        n = np.asarray(n, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            # n * (n - 1) * sample variance = n * sum(c^2) - (sum c)^2, exact in integers
            scaled = n * np.asarray(squares, np.float64) - np.asarray(total, np.float64) ** 2
            uncertain = scaled >= self.variance_codes * n * (n - 1) * (1 - _EPSILON)
        by_range = (n <= self.range_up_to) & (np.asarray(spread) >= self.range_codes)
        return (n >= 2) & np.where(n <= self.range_up_to, by_range, uncertain)

    def one(self, codes: Collection[int]) -> bool:
        """Whether one item with these codes is flagged."""
        n = len(codes)
        if n < 2:
            return False
        if n <= self.range_up_to:
            return max(codes) - min(codes) >= self.range_codes
        total = sum(codes)
        squares = sum(c * c for c in codes)
        return n * squares - total * total >= self.variance_codes * n * (n - 1) * (1 - _EPSILON)

    def sql_having(self, code: str = "code") -> str:
        """The same test as an SQL condition over one item's group of rows (NULL codes,
        skips, are not counted by COUNT, MAX, MIN or SUM)."""
        n = f"COUNT({code})"
        by_range = f"MAX({code}) - MIN({code}) >= {int(self.range_codes)}"
        if self.range_up_to >= _ALL or not math.isfinite(self.variance_codes):
            return f"{n} >= 2 AND {n} <= {self.range_up_to} AND {by_range}"
        scaled = f"({n} * SUM({code} * {code}) - SUM({code}) * SUM({code}))"
        bound = repr(float(self.variance_codes) * (1 - _EPSILON))
        return (f"{n} >= 2 AND ((({n}) <= {self.range_up_to} AND {by_range}) OR "
                f"(({n}) > {self.range_up_to} AND "
                f"{scaled} >= {bound} * {n} * ({n} - 1)))")


@dataclass(frozen=True)
class FlagRule:
    """A project's flag rule in scale points (see the module doc)."""

    name: str = DEFAULT_RULE
    range_threshold: float = DEFAULT_RANGE_THRESHOLD
    uncertain_threshold: float = DEFAULT_UNCERTAIN_THRESHOLD

    def __post_init__(self) -> None:
        if self.name not in RULES:
            raise SimrateError(f"no flag rule {cut(repr(self.name))}: use "
                               f"{', '.join(RULES)}")

    @classmethod
    def from_meta(cls, meta: Mapping[str, str]) -> FlagRule:
        """The rule stored in a project's meta table (the defaults where nothing is)."""
        return cls(meta.get("flag_rule", DEFAULT_RULE),
                   float(meta.get("threshold", DEFAULT_RANGE_THRESHOLD)),
                   float(meta.get("uncertain_threshold", DEFAULT_UNCERTAIN_THRESHOLD)))

    def in_codes(self, step: float) -> CodeRule:
        """The rule in step codes of a scale with this step."""
        range_codes = threshold_codes(self.range_threshold, step)
        variance = (self.uncertain_threshold / step) ** 2
        if self.name == "range":
            return CodeRule(range_codes)
        if self.name == "uncertain":
            return CodeRule(range_codes, 1, variance)
        return CodeRule(range_codes, AUTO_RANGE_RATERS, variance)

    @property
    def threshold(self) -> float:
        """The threshold of the rule's own measure (for `auto`, the uncertain part's)."""
        return self.range_threshold if self.name == "range" else self.uncertain_threshold

    def describe(self) -> str:
        """The rule and its thresholds in a few words: `auto (spread >= 1 point up to 3
        ratings, SD >= 0.8 points above)`; the SD is the ratings' sample SD (ddof=1)."""
        by_range = f"spread >= {_points(self.range_threshold)}"
        by_sd = f"SD >= {_points(self.uncertain_threshold)}"
        if self.name == "range":
            return f"range ({by_range})"
        if self.name == "uncertain":
            return f"uncertain ({by_sd})"
        return f"auto ({by_range} up to {AUTO_RANGE_RATERS} ratings, {by_sd} above)"

    def as_dict(self) -> dict:
        """The rule for --json, reports and the data card."""
        return {"rule": self.name, "range_threshold": self.range_threshold,
                "uncertain_threshold": self.uncertain_threshold,
                "auto_range_up_to": AUTO_RANGE_RATERS, "description": self.describe()}


def _points(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{text} point{'' if value == 1 else 's'}"


def check_rule_meta(meta: Mapping[str, str]) -> str | None:
    """What is wrong with a stored flag rule (None when it is well formed)."""
    rule = meta.get("flag_rule", DEFAULT_RULE)
    if rule not in RULES:
        return f"flag_rule is {cut(repr(rule))}, not one of {', '.join(RULES)}"
    text = meta.get("uncertain_threshold", str(DEFAULT_UNCERTAIN_THRESHOLD))
    try:
        if not isinstance(text, str) or not text.isascii() or "_" in text:
            raise ValueError(text)
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not 0 < value < math.inf:
        return f"uncertain_threshold is {cut(repr(text))}, not a positive number"
    return None
