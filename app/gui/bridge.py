"""ProjectBridge: the one object that turns the Project's plain callbacks into Qt signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.core.project import Change, Project

#: Change kinds that may touch any number of items: views rebuild rather than update a row.
BULK_KINDS = frozenset({"ratings", "reload", "annotator", "settings", "items"})


class ProjectBridge(QObject):
    """Subscribes to a Project and re-emits each change as a Qt signal.

    Signals are emitted in the thread that committed the change; Qt queues them to
    receivers living in the GUI thread, so a commit made off the GUI thread is safe to
    observe.
    """

    #: One rating (or skip, or note) of one annotator changed: (item_id, annotator).
    rating_changed = Signal(str, str)
    #: Many ratings changed at once (a ratings import).
    ratings_changed = Signal()
    #: Items were added: the number added.
    items_added = Signal(int)
    #: An item's adjudication changed: item_id.
    adjudication_changed = Signal(str)
    #: The file changed under us (another process or a worker's connection): reread all.
    reloaded = Signal()
    #: Every change, as the core's Change object, for panels that want the detail.
    changed = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self._unsubscribe = project.subscribe(self._on_change)

    def detach(self) -> None:
        """Stop listening to the project (call before closing it)."""
        self._unsubscribe()

    def _on_change(self, change: Change) -> None:
        kind = change.kind
        if kind in ("rating", "skip"):
            self.rating_changed.emit(change.item_id or "", change.annotator or "")
        elif kind == "ratings":
            self.ratings_changed.emit()
        elif kind == "items":
            self.items_added.emit(int(change.new or 0))
        elif kind == "adjudication":
            self.adjudication_changed.emit(change.item_id or "")
        elif kind == "reload":
            self.reloaded.emit()
        self.changed.emit(change)
