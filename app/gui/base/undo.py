"""The undo adapter: each core action (app/core/actions/) wrapped in one QUndoCommand.

The action is done before the command is pushed, so a write that fails never leaves a
command on the stack; the stack's first `redo()` call is therefore skipped.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from simrate.core.actions import Action
from simrate.core.base.errors import SimrateError
from simrate.core.project import Project


class ActionCommand(QUndoCommand):
    """One done action; undo and redo call the action's own methods."""

    def __init__(self, project: Project, action: Action, item_id: str | None = None,
                 on_applied: Callable[[str], None] | None = None,
                 on_error: Callable[[SimrateError], None] | None = None):
        super().__init__(action.describe(project.scale))
        self.project = project
        self.action = action
        self.item_id = item_id
        self._on_applied = on_applied
        self._on_error = on_error
        self._already_done = True

    def redo(self) -> None:
        """Do the action again (skipped the first time: it was done before the push)."""
        if self._already_done:
            self._already_done = False
            return
        self._run(self.action.do)

    def undo(self) -> None:
        """Undo the action."""
        self._run(self.action.undo)

    def _run(self, step: Callable[[Project], object]) -> None:
        try:
            step(self.project)
        except SimrateError as exc:
            # Exceptions must not cross back into Qt's C++ undo stack: report instead. A
            # refused step (a newer change made elsewhere stands) leaves the stack with it.
            self.setObsolete(True)
            if self._on_error is not None:
                self._on_error(exc)
            return
        if self._on_applied is not None and self.item_id is not None:
            self._on_applied(self.item_id)


def push_action(stack, project: Project, action: Action, item_id: str | None = None,
                on_applied: Callable[[str], None] | None = None,
                on_error: Callable[[SimrateError], None] | None = None) -> bool:
    """Do `action` now and push it; False (nothing pushed) when it changed nothing.

    Raises SimrateError when the write fails, before anything is pushed.
    """
    if not action.do(project):
        return False
    stack.push(ActionCommand(project, action, item_id, on_applied, on_error))
    return True
