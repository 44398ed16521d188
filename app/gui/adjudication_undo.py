"""Undo for adjudications: one QUndoCommand per verdict, calling Project.adjudicate and, on
undo, the same method with the previous verdict (or withdrawing it). Like rating changes,
undo and redo are themselves committed and logged by the core."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QUndoCommand

from app.core.errors import SimrateError
from app.core.scale import fmt
from app.gui.review_index import AdjudicationRecords


@dataclass(frozen=True)
class Verdict:
    """An item's adjudication: score (None: none) and note."""

    score: float | None = None
    note: str = ""

    @classmethod
    def of(cls, records: AdjudicationRecords, item_id: str) -> Verdict:
        """The verdict stored now."""
        record = records.get(item_id)
        return cls() if record is None else cls(record["score"], record["note"])

    def describe(self) -> str:
        """`2.5`, or `none`, for undo menu texts."""
        return "none" if self.score is None else fmt(self.score)


class AdjudicateCommand(QUndoCommand):
    """Change an item's adjudication from `old` to `new` (written before the push)."""

    def __init__(self, records: AdjudicationRecords, item_id: str, old: Verdict, new: Verdict,
                 by: str, on_applied: Callable[[str], None] | None = None,
                 on_error: Callable[[SimrateError], None] | None = None):
        super().__init__(f"Adjudicate {item_id}: {old.describe()} \u2192 {new.describe()}")
        self.records = records
        self.item_id = item_id
        self.old, self.new, self.by = old, new, by
        self._on_applied, self._on_error = on_applied, on_error
        self._already_done = True

    def redo(self) -> None:
        """Write the new verdict (skipped the first time: it was written before the push)."""
        if self._already_done:
            self._already_done = False
            return
        self._write(self.new)

    def undo(self) -> None:
        """Write the old verdict back (withdraw when there was none)."""
        self._write(self.old)

    def _write(self, verdict: Verdict) -> None:
        try:
            self.records.write(self.item_id, verdict.score, verdict.note, self.by)
        except SimrateError as exc:
            if self._on_error is not None:
                self._on_error(exc)
            return
        if self._on_applied is not None:
            self._on_applied(self.item_id)


def push_adjudication(stack, records: AdjudicationRecords, item_id: str, new: Verdict, by: str,
                      on_applied: Callable[[str], None] | None = None,
                      on_error: Callable[[SimrateError], None] | None = None) -> bool:
    """Write `new` now and push an undoable command; False (nothing pushed) when unchanged.

    Raises SimrateError when the write fails, before anything is pushed.
    """
    old = Verdict.of(records, item_id)
    if old == new:
        return False
    records.write(item_id, new.score, new.note, by)
    stack.push(AdjudicateCommand(records, item_id, old, new, by, on_applied, on_error))
    return True
