"""ProjectBridge: the one object that turns the Project's plain callbacks into Qt signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from simrate.core.project import Project


class ProjectBridge(QObject):
    """Subscribes to a Project and re-emits each typed event (app/core/base/events.py) as the Qt
    signal `changed`.

    The window's Project is used from the GUI thread only: background jobs write through
    connections of their own, and `Project.refresh()` (on the GUI thread) reports what they
    wrote as `Reloaded`. So `changed` is emitted, and its receivers run, in the GUI thread.
    """

    #: Every committed change, as the core's typed event.
    changed = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self._unsubscribe = project.subscribe(self.changed.emit)

    def detach(self) -> None:
        """Stop listening to the project (call before closing it)."""
        self._unsubscribe()
