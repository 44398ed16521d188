"""The disagreement rule: which items are flagged for adjudication, kept up to date per rating."""

from __future__ import annotations

import math
from collections.abc import Iterable

#: Tolerance for thresholds typed as decimals (0.3 / 0.1 is 2.9999999999999996).
_EPSILON = 1e-9


def threshold_codes(threshold: float, step: float) -> int:
    """The smallest spread in step codes that is at least `threshold` scale points (>= 1).

    A spread of k codes is k * step points, so "spread >= threshold" is
    k >= ceil(threshold / step); rounding to the nearest code instead would flag a
    0.25 spread under a 0.3 threshold.
    """
    return max(1, math.ceil(threshold / step - _EPSILON))


class FlagIndex:
    """Per-item ratings (as step codes) and the flagged set, updated in O(raters) per change.

    An item is flagged when it has two or more ratings whose largest and smallest differ by at
    least `threshold_codes` steps and it has no adjudication. An adjudicated item that receives
    a rating (after the adjudication) differing from the adjudicated score by the threshold or
    more needs a second look, for as long as such a rating stands; revising or withdrawing the
    adjudication clears that.
    """

    def __init__(self, threshold_codes: int):
        self.threshold = threshold_codes
        self._units: dict[int, dict[int, int]] = {}
        self.adjudicated: dict[int, int] = {}
        self.flagged: dict[int, int] = {}  # item -> spread in codes
        self.second_look: set[int] = set()
        # item -> raters whose rating, given after the adjudication, disagrees with it
        self._late: dict[int, set[int]] = {}

    def load(self, rows: Iterable[tuple[int, int, int, float]],
             adjudicated: dict[int, tuple[int, float]]) -> None:
        """Fill from (item, rater, code, saved_at) rows and {item: (adjudicated code, at)}."""
        units = self._units
        self.adjudicated = {item: code for item, (code, _at) in adjudicated.items()}
        for item, rater, code, saved_at in rows:
            units.setdefault(item, {})[rater] = code
            adj = adjudicated.get(item)
            if adj is not None and saved_at > adj[1] and abs(code - adj[0]) >= self.threshold:
                self._late.setdefault(item, set()).add(rater)
                self.second_look.add(item)
        for item in units:
            self._update(item)

    def units(self):
        """(item, {rater: code}) for every item with ratings."""
        return self._units.items()

    def unit(self, item: int) -> dict[int, int]:
        """{rater: code} for one item."""
        return self._units.get(item, {})

    def spread(self, item: int) -> int:
        """Largest minus smallest code of the item (0 with fewer than two ratings)."""
        codes = self._units.get(item)
        if not codes or len(codes) < 2:
            return 0
        values = codes.values()
        return max(values) - min(values)

    def set(self, item: int, rater: int, code: int | None) -> None:
        """Record one rating change (None removes the rating)."""
        unit = self._units.setdefault(item, {})
        if code is None:
            unit.pop(rater, None)
        else:
            unit[rater] = code
        adjudicated = self.adjudicated.get(item)
        if adjudicated is not None:
            late = self._late.setdefault(item, set())
            if code is not None and abs(code - adjudicated) >= self.threshold:
                late.add(rater)
            else:
                late.discard(rater)
            if late:
                self.second_look.add(item)
            else:
                del self._late[item]
                self.second_look.discard(item)
        self._update(item)

    def set_adjudicated(self, item: int, code: int | None) -> None:
        """Record an adjudication (None withdraws it)."""
        if code is None:
            self.adjudicated.pop(item, None)
        else:
            self.adjudicated[item] = code
        self._late.pop(item, None)
        self.second_look.discard(item)
        self._update(item)

    def _update(self, item: int) -> None:
        if item in self.adjudicated:
            self.flagged.pop(item, None)
            return
        spread = self.spread(item)
        if spread >= self.threshold:
            self.flagged[item] = spread
        else:
            self.flagged.pop(item, None)

    def ordered(self) -> list[tuple[int, int]]:
        """Flagged (item, spread) pairs, largest spread first, then project order."""
        return sorted(self.flagged.items(), key=lambda kv: (-kv[1], kv[0]))
