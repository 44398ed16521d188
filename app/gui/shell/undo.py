"""Undo commands: each rating change is one QUndoCommand calling one Project method and,
on undo, the same method with the old value. Undo and redo go through `Project`, so they
are themselves committed and written to the project's change log like any other change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QUndoCommand

from app.core.errors import SimrateError
from app.core.project import Project
from app.core.scale import fmt


@dataclass(frozen=True)
class RatingState:
    """What one annotator has recorded for one item: a score, a note, or a skip."""

    score: float | None = None
    note: str = ""
    skipped: bool = False
    seconds: float | None = None

    @classmethod
    def of(cls, project: Project, item_id: str, annotator: str) -> RatingState:
        """The state stored in the project now."""
        record = project.rating_record(item_id, annotator)
        if record is None:
            return cls()
        return cls(record["score"], record["note"] or "", record["skipped"], record["seconds"])

    def describe(self) -> str:
        """`3.25`, `skipped`, `note` or `nothing`, for undo menu texts."""
        if self.skipped:
            return "skipped"
        if self.score is not None:
            return fmt(self.score)
        return "note" if self.note else "nothing"


def apply_state(project: Project, item_id: str, annotator: str, state: RatingState) -> None:
    """Write `state` for this annotator and item, in one committed transaction."""
    if state.skipped:
        project.skip(item_id, annotator, state.note)
    else:
        # note="" (not None) so that restoring "nothing" really removes an old note.
        project.rate(item_id, annotator, state.score, note=state.note, seconds=state.seconds)


class WrittenChangeCommand(QUndoCommand):
    """A change of one item that was written before the push; undo/redo write it again.

    The first write happens before the command is pushed, so a write that fails never
    leaves a command on the stack; `redo()` skips that first call. Subclasses say how a
    state is written in `write_state`.
    """

    def __init__(self, text: str, item_id: str, old: object, new: object,
                 on_applied: Callable[[str], None] | None = None,
                 on_error: Callable[[SimrateError], None] | None = None):
        super().__init__(text)
        self.item_id = item_id
        self.old = old
        self.new = new
        self._on_applied = on_applied
        self._on_error = on_error
        self._already_done = True

    def write_state(self, state: object) -> None:
        """Write `state` through the project (one committed transaction)."""
        raise NotImplementedError

    def redo(self) -> None:
        """Write the new state (skipped the first time: it was written before the push)."""
        if self._already_done:
            self._already_done = False
            return
        self._write(self.new)

    def undo(self) -> None:
        """Write the old state back."""
        self._write(self.old)

    def _write(self, state: object) -> None:
        try:
            self.write_state(state)
        except SimrateError as exc:
            # Exceptions must not cross back into Qt's C++ undo stack: report instead.
            if self._on_error is not None:
                self._on_error(exc)
            return
        if self._on_applied is not None:
            self._on_applied(self.item_id)


class SetRatingCommand(WrittenChangeCommand):
    """Change one annotator's rating of one item from `old` to `new`."""

    def __init__(self, project: Project, item_id: str, annotator: str, old: RatingState,
                 new: RatingState, on_applied: Callable[[str], None] | None = None,
                 on_error: Callable[[SimrateError], None] | None = None):
        super().__init__(f"{item_id}: {old.describe()} \u2192 {new.describe()}", item_id,
                         old, new, on_applied, on_error)
        self.project = project
        self.annotator = annotator

    def write_state(self, state: RatingState) -> None:
        """Write the rating state for this annotator and item."""
        apply_state(self.project, self.item_id, self.annotator, state)


def push_rating_change(stack, project: Project, item_id: str, annotator: str,
                       new: RatingState, on_applied: Callable[[str], None] | None = None,
                       on_error: Callable[[SimrateError], None] | None = None) -> bool:
    """Write `new` now and push an undoable command; False (nothing pushed) when unchanged.

    Raises SimrateError when the write fails, before anything is pushed.
    """
    old = RatingState.of(project, item_id, annotator)
    if (old.score, old.note, old.skipped) == (new.score, new.note, new.skipped):
        return False
    apply_state(project, item_id, annotator, new)
    command = SetRatingCommand(project, item_id, annotator, old, new, on_applied, on_error)
    stack.push(command)
    return True
