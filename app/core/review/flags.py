"""The disagreement rule: which items are flagged for adjudication, kept up to date per rating."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from simrate.core.base.flagrule import CodeRule


def run_sums(keys: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, ...]:
    """(starts, count, spread, sum, sum of squares) of each run of equal keys, from codes
    sorted (grouped) by item: what the flag rule reads of each item."""
    starts, spread = run_spreads(keys, codes)
    if not keys.size:
        return starts, starts, spread, starts, starts
    count = np.diff(np.r_[starts, keys.size])
    total = np.add.reduceat(codes, starts)
    squares = np.add.reduceat(codes * codes, starts)
    return starts, count, spread, total, squares


def run_spreads(keys: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first position of each run of equal keys, largest minus smallest code in the run):
    the spread of each item's ratings, from ratings sorted (grouped) by item."""
    if not keys.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return starts, np.maximum.reduceat(codes, starts) - np.minimum.reduceat(codes, starts)


class FlagIndex:
    """Per-item ratings (as step codes) and the flagged set, updated in O(raters) per change.

    An item is flagged when its ratings meet the project's flag rule (a `CodeRule`, or a
    whole number of codes for the range rule alone: two or more ratings whose largest and
    smallest differ by at least that many steps) and it has no adjudication. An adjudicated item that receives
    a rating (after the adjudication) differing from the adjudicated score by the threshold or
    more needs a second look, for as long as such a rating stands; revising or withdrawing the
    adjudication clears that.

    Loading is columnar: the ratings stay as three sorted arrays and the flagged set comes
    from one vectorised pass, so a million items load in a fraction of a second. An item
    becomes a {rater: code} dict only when a change touches it (`_units` holds those).
    """

    def __init__(self, threshold_codes: int | CodeRule):
        rule = threshold_codes if isinstance(threshold_codes, CodeRule) \
            else CodeRule(threshold_codes)
        self.rule = rule
        self.threshold = rule.range_codes  # of the range rule, and of the second look
        self._units: dict[int, dict[int, int]] = {}  # items changed since loading
        empty = np.zeros(0, dtype=np.int64)
        self._base = (empty, empty, empty)  # (item, rater, code) as loaded, by item
        self.adjudicated: dict[int, int] = {}
        self.flagged: dict[int, int] = {}  # item -> spread in codes
        self.second_look: set[int] = set()
        # item -> raters whose rating, given after the adjudication, disagrees with it
        self._late: dict[int, set[int]] = {}

    def load(self, rows: Iterable[tuple[int, int, int, float]],
             adjudicated: dict[int, tuple[int, float]]) -> None:
        """Fill from (item, rater, code, saved_at) rows and {item: (adjudicated code, at)}."""
        rows = list(rows)
        table = np.array([r[:3] for r in rows], dtype=np.int64).reshape(-1, 3)
        late = [(item, rater, code) for item, rater, code, saved_at in rows
                if item in adjudicated and saved_at > adjudicated[item][1]]
        self.load_columns(table[:, 0], table[:, 1], table[:, 2],
                          {item: code for item, (code, _at) in adjudicated.items()}, late)

    def load_columns(self, items: np.ndarray, raters: np.ndarray, codes: np.ndarray,
                     adjudicated: dict[int, int],
                     late: Iterable[tuple[int, int, int]] = ()) -> None:
        """Fill from parallel arrays (one score each) and {item: adjudicated code}; `late`
        lists the (item, rater, code) scores saved after their item's adjudication."""
        order = np.argsort(items, kind="stable")
        items, raters, codes = items[order], raters[order], codes[order]
        self._base, self._units = (items, raters, codes), {}
        self.adjudicated = dict(adjudicated)
        self._late, self.second_look = {}, set()
        for item, rater, code in late:
            if item in self.adjudicated and abs(code - self.adjudicated[item]) >= self.threshold:
                self._late.setdefault(item, set()).add(rater)
                self.second_look.add(item)
        starts, count, spread, total, squares = run_sums(items, codes)
        hit = self.rule.mask(count, spread, total, squares)
        self.flagged = dict(zip(items[starts][hit].tolist(), spread[hit].tolist(), strict=True))
        for item in self.adjudicated.keys() & self.flagged.keys():
            del self.flagged[item]

    def unit(self, item: int) -> dict[int, int]:
        """{rater: code} for one item (a copy; change it through `set`)."""
        unit = self._units.get(item)
        if unit is not None:
            return dict(unit)
        items, raters, codes = self._base
        low, high = np.searchsorted(items, [item, item + 1])
        return dict(zip(raters[low:high].tolist(), codes[low:high].tolist(), strict=True))

    def spread(self, item: int) -> int:
        """Largest minus smallest code of the item (0 with fewer than two ratings)."""
        codes = self.unit(item).values()
        if len(codes) < 2:
            return 0
        return max(codes) - min(codes)

    def set(self, item: int, rater: int, code: int | None) -> None:
        """Record one rating change (None removes the rating)."""
        unit = self._units.get(item)
        if unit is None:
            unit = self._units[item] = self.unit(item)
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
        codes = list(self.unit(item).values())
        if self.rule.one(codes):
            self.flagged[item] = max(codes) - min(codes)
        else:
            self.flagged.pop(item, None)

    def ordered(self) -> list[tuple[int, int]]:
        """Flagged (item, spread) pairs, largest spread first, then project order."""
        return sorted(self.flagged.items(), key=lambda kv: (-kv[1], kv[0]))
