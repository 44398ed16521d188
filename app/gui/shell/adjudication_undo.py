"""Undo for adjudications: one QUndoCommand per verdict, calling Project.adjudicate and, on
undo, the same method with the previous verdict (or withdrawing it). Like rating changes,
undo and redo are themselves committed and logged by the core."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.core.errors import SimrateError
from app.core.review.index import AdjudicationRecords
from app.core.scale import fmt
from app.gui.shell.undo import WrittenChangeCommand


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


class AdjudicateCommand(WrittenChangeCommand):
    """Change an item's adjudication from `old` to `new` (written before the push)."""

    def __init__(self, records: AdjudicationRecords, item_id: str, old: Verdict, new: Verdict,
                 by: str, on_applied: Callable[[str], None] | None = None,
                 on_error: Callable[[SimrateError], None] | None = None):
        super().__init__(f"Adjudicate {item_id}: {old.describe()} \u2192 {new.describe()}",
                         item_id, old, new, on_applied, on_error)
        self.records = records
        self.by = by

    def write_state(self, verdict: Verdict) -> None:
        """Write the verdict (withdraw it when its score is None)."""
        self.records.write(self.item_id, verdict.score, verdict.note, self.by)


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
