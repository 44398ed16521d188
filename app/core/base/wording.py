"""Counts in words: `1 task`, `2 tasks`; every count the program prints goes through
`counted`, so that no line reads "1 tasks" (tests/core/base/test_wording.py)."""

from __future__ import annotations

#: Plurals not made by adding an s.
IRREGULAR = {"person": "people", "batch": "batches", "match": "matches", "study": "studies",
             "was": "were", "has": "have", "is": "are"}


def plural(count: int | float, word: str) -> str:
    """`word` as it goes with `count` (the last word of a phrase is the one that changes)."""
    if count == 1:
        return word
    head, _, last = word.rpartition(" ")
    many = IRREGULAR.get(last, last + "s")
    return f"{head} {many}" if head else many


def counted(count: int | float, word: str, thousands: bool = False) -> str:
    """`1 check item`, `3 check items`; with `thousands`, `12,000 items`."""
    number = f"{count:,g}" if thousands and isinstance(count, float) else \
        f"{count:,}" if thousands else f"{count:g}" if isinstance(count, float) else f"{count}"
    return f"{number} {plural(count, word)}"
