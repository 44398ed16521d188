"""The disagreement rule: which items are flagged for adjudication, kept up to date per rating."""

from __future__ import annotations

from collections.abc import Iterable


class FlagIndex:
    """Per-item ratings (as step codes) and the flagged set, updated in O(raters) per change.

    An item is flagged when it has two or more ratings whose largest and smallest differ by at
    least `threshold_codes` steps and it has no adjudication. An adjudicated item that receives
    a rating (after the adjudication) differing from the adjudicated score by the threshold or
    more needs a second look; revising the adjudication clears that.
    """

    def __init__(self, threshold_codes: int):
        self.threshold = threshold_codes
        self._units: dict[int, dict[int, int]] = {}
        self.adjudicated: dict[int, int] = {}
        self.flagged: dict[int, int] = {}  # item -> spread in codes
        self.second_look: set[int] = set()

    def load(self, rows: Iterable[tuple[int, int, int, float]],
             adjudicated: dict[int, tuple[int, float]]) -> None:
        """Fill from (item, rater, code, saved_at) rows and {item: (adjudicated code, at)}."""
        units = self._units
        self.adjudicated = {item: code for item, (code, _at) in adjudicated.items()}
        for item, rater, code, saved_at in rows:
            units.setdefault(item, {})[rater] = code
            adj = adjudicated.get(item)
            if adj is not None and saved_at > adj[1] and abs(code - adj[0]) >= self.threshold:
                self.second_look.add(item)
        for item in units:
            self._update(item)

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
            if adjudicated is not None and abs(code - adjudicated) >= self.threshold:
                self.second_look.add(item)
        self._update(item)

    def set_adjudicated(self, item: int, code: int | None) -> None:
        """Record an adjudication (None withdraws it)."""
        if code is None:
            self.adjudicated.pop(item, None)
        else:
            self.adjudicated[item] = code
        self.second_look.discard(item)
        self._update(item)

    def _update(self, item: int) -> None:
        spread = self.spread(item)
        adjudicated = self.adjudicated.get(item)
        if adjudicated is None:
            self.second_look.discard(item)
            if spread >= self.threshold:
                self.flagged[item] = spread
            else:
                self.flagged.pop(item, None)
            return
        self.flagged.pop(item, None)

    def ordered(self) -> list[tuple[int, int]]:
        """Flagged (item, spread) pairs, largest spread first, then project order."""
        return sorted(self.flagged.items(), key=lambda kv: (-kv[1], kv[0]))
