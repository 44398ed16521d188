"""UnitTable: a LiveAgreement's {unit: {rater: value index}}, turned into dicts only when used.

Opening a crowd project loads a million ratings at once. Building a dict per unit for all of
them costs a second of Python; the sums that alpha and Pearson read come from arrays instead
(app/core/agreement/load.py). So the table keeps the loaded ratings as arrays sorted by unit
and makes a unit's dict the first time anything reads or changes that unit. To its users it
is an ordinary mutable mapping.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, MutableMapping, Sequence

import numpy as np


class UnitTable(MutableMapping):
    """{unit: {rater: value index}}: dicts for units touched, arrays for the rest."""

    def __init__(self) -> None:
        self._dicts: dict[Hashable, dict[Hashable, int]] = {}
        self._lazy: dict[Hashable, int] = {}  # unit -> its position in the arrays
        self._offsets = np.zeros(1, dtype=np.int64)
        self._raters: np.ndarray = np.zeros(0, dtype=object)
        self._values: np.ndarray = np.zeros(0, dtype=np.int64)

    def fill(self, units: Sequence[Hashable], offsets: np.ndarray, raters: np.ndarray,
             values: np.ndarray) -> None:
        """Replace the contents: unit k holds raters[offsets[k]:offsets[k + 1]] with the
        values at the same positions (every unit given holds at least one rating)."""
        self._dicts = {}
        self._lazy = dict(zip(units, range(len(units)), strict=True))
        self._offsets, self._raters, self._values = offsets, raters, values

    def get(self, unit: Hashable, default=None):
        ratings = self._dicts.get(unit)
        if ratings is not None:
            return ratings
        position = self._lazy.pop(unit, None)
        if position is None:
            return default
        low, high = int(self._offsets[position]), int(self._offsets[position + 1])
        ratings = self._dicts[unit] = dict(zip(self._raters[low:high].tolist(),
                                               self._values[low:high].tolist(), strict=True))
        return ratings

    def __getitem__(self, unit: Hashable) -> dict[Hashable, int]:
        ratings = self.get(unit)
        if ratings is None:
            raise KeyError(unit)
        return ratings

    def __setitem__(self, unit: Hashable, ratings: dict[Hashable, int]) -> None:
        self._lazy.pop(unit, None)
        self._dicts[unit] = ratings

    def __delitem__(self, unit: Hashable) -> None:
        if self._dicts.pop(unit, None) is None and self._lazy.pop(unit, None) is None:
            raise KeyError(unit)

    def __contains__(self, unit: object) -> bool:
        return unit in self._dicts or unit in self._lazy

    def __iter__(self) -> Iterator[Hashable]:
        yield from list(self._dicts)
        yield from list(self._lazy)

    def __len__(self) -> int:
        return len(self._dicts) + len(self._lazy)
