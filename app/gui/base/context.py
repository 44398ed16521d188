"""ApplicationContext: the one object every window and panel receives (git-cola style).

It holds the open project, the bridge that turns the project's callbacks into signals, the
current annotator's session, the settings, the undo stack and the organizer flag. There
is no global application object: whoever needs these gets the context passed in.
"""

from __future__ import annotations

import weakref
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from PySide6.QtGui import QUndoStack

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import check_rater_name
from simrate.core.data.store import HUMAN
from simrate.core.edits.roster import kind_clash
from simrate.core.project import Project
from simrate.core.team.blind import record_organizer_mode
from simrate.gui.base.bridge import ProjectBridge
from simrate.gui.base.jobs import JobRunner
from simrate.gui.base.session import AnnotatorSession, ItemDetails, read_item_details_from
from simrate.gui.base.settings import LAST_ANNOTATOR, Settings

#: Milliseconds after the first item is shown before the item list's details are read (by a
#: background job: at a million items that takes seconds, and the window must not freeze).
DETAILS_DELAY_MS = 30


class ApplicationContext(QObject):
    """Project, bridge, session, settings, undo stack, annotator and organizer flag."""

    #: A project was opened (project, bridge and session are set).
    project_opened = Signal()
    #: The project is about to close (still readable while this is emitted).
    project_closing = Signal()
    #: The project was closed.
    project_closed = Signal()

    def __init__(self, settings: Settings, organizer: bool = False,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.settings = settings
        self.organizer = organizer
        self.undo_stack = QUndoStack(self)
        self.thread_pool = QThreadPool.globalInstance()
        self.details_runner = JobRunner(self.thread_pool, self)
        self.project: Project | None = None
        self.bridge: ProjectBridge | None = None
        self.session: AnnotatorSession | None = None
        self.annotator: str | None = None

    @property
    def blind(self) -> bool:
        """Annotators see only their own ratings: no other scores, no agreement."""
        return not self.organizer

    def opened(self) -> tuple[Project, AnnotatorSession]:
        """The open project and its session, for a view built while a project is open."""
        if self.project is None or self.session is None:
            raise RuntimeError("no project is open")
        return self.project, self.session

    def open_project(self, path: str | Path | Project, annotator: str) -> None:
        """Open a project (path or an already opened Project) for `annotator`.

        Raises SimrateError when the file is not a readable project; the previous project
        stays open in that case.
        """
        annotator = check_rater_name(annotator, "annotator name")  # one rule (names.py)
        project = path if isinstance(path, Project) else Project.open(path)
        annotator = project.roster.name_of(annotator)  # `ANA` or an NFD `Zoë`: the one rater
        held = project.roster.kinds().get(annotator, HUMAN)
        if held != HUMAN:  # people rate here: never under a machine rater or crowd worker
            if project is not path:
                project.close()
            raise SimrateError(kind_clash(annotator, held, HUMAN), project.path)
        try:
            self._check_mode(project, annotator)
        except BaseException:
            if project is not path:
                project.close()
            raise
        self.close_project()
        self.project = project
        self.annotator = annotator
        self.bridge = ProjectBridge(project, self)
        # Ids and this annotator's ratings are enough to show the first item; the item
        # list's datasets, genres and texts follow once that item is on screen.
        session = AnnotatorSession(project, annotator, self.bridge, self, defer_details=True)
        self.session = session
        self.settings.add_recent_project(str(Path(project.path).resolve()))
        self.settings.set(LAST_ANNOTATOR, annotator)
        self.project_opened.emit()
        session.go_first_unrated()
        # with the runner as context: dropped if the context is deleted before it fires
        QTimer.singleShot(DETAILS_DELAY_MS, self.details_runner,
                          lambda: self._load_details(session))

    def _check_mode(self, project: Project, annotator: str) -> None:
        """Organizer mode on this project: never on an annotator's replica of a hub (it
        switches off), and on a plain file written to its change log under the name."""
        if not self.organizer:
            return
        if project.mode.annotator:
            self.organizer = False
        else:
            record_organizer_mode(project, annotator, True)

    def set_organizer(self, on: bool) -> None:
        """Switch organizer mode (the View menu); SimrateError on an annotator's replica.
        With a plain file open, the switch goes to its change log under the annotator's
        name before it takes effect."""
        if on == self.organizer:
            return
        if self.project is not None:
            record_organizer_mode(self.project, self.annotator or "", on)
        self.organizer = on

    def _load_details(self, session: AnnotatorSession) -> None:
        if session is not self.session or session.details_ready:
            return  # the project was closed meanwhile, or a search read them already
        # Weakly held: strong references from the runner's pending callbacks would make a
        # cycle, and the cyclic collector could then free a parentless context at any
        # moment, even inside its own runner's collect() (seen in the tests).
        path, context = self.opened()[0].path, weakref.ref(self)
        self.details_runner.start(
            lambda job: read_item_details_from(path),
            finished=lambda details: _call(context, "_details_read", session, details),
            failed=lambda error: _call(context, "_details_failed", session, error),
            files=[path])

    def _details_read(self, session: AnnotatorSession, details: ItemDetails) -> None:
        if session is self.session:
            session.apply_details(details)

    def _details_failed(self, session: AnnotatorSession, _error: SimrateError) -> None:
        if session is self.session:  # the job could not open the file: read them here
            session.load_details()

    def close_project(self) -> None:
        """Close the open project, if any, and forget its undo history."""
        if self.project is None:
            return
        self.project_closing.emit()
        self.undo_stack.clear()
        if self.bridge is not None:
            self.bridge.detach()
            self.bridge.deleteLater()
        if self.session is not None:
            self.session.deleteLater()
        self.project.close()
        self.project = self.bridge = self.session = None
        self.project_closed.emit()

    def show_item(self, item_id: str) -> None:
        """Show an item in the rating view (used after undo and redo)."""
        if self.session is not None:
            self.session.go_to_id(item_id)

    def refresh(self) -> None:
        """Pick up changes other processes made to the project file."""
        if self.project is not None:
            self.project.refresh()


def _call(context: weakref.ref, method: str, *args: object) -> None:
    """Call a method of the context, if it still exists."""
    target = context()
    if target is not None:
        getattr(target, method)(*args)
