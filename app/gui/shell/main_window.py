"""MainWindow: the start page or the rating view in the middle, panels in docks around it.

Panels that belong to an open project (item list, progress, guidelines, and whatever
organizer mode adds through `add_dock`) are created when a project opens and removed when
it closes. Every shortcut lives on a QAction that appears in a menu.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.settings import (
    LAST_ANNOTATOR,
    LAST_FOLDER,
    TEXT_SIZE,
    TEXT_SIZE_RANGE,
    WINDOW_GEOMETRY,
    WINDOW_STATE,
)
from simrate.gui.dialogs.annotator_dialog import ask_annotator
from simrate.gui.dialogs.import_dialog import ImportController
from simrate.gui.dialogs.new_project_dialog import PAIR_FILES
from simrate.gui.kit.file_dialogs import get_open_file_name
from simrate.gui.rating.guidelines_panel import GuidelinesPanel
from simrate.gui.rating.item_list import ItemListPanel
from simrate.gui.rating.progress_panel import ProgressPanel
from simrate.gui.rating.rating_panel import RatingPanel
from simrate.gui.shell.menus import build_menus, shortcuts_html
from simrate.gui.shell.organizer_mode import Organizer
from simrate.gui.shell.project_creation import ProjectCreation
from simrate.gui.shell.start_page import StartPage
from simrate.gui.shell.sync_status import HubLink
from simrate.install.locations import installed_version
from simrate.services.imports.file_import import ImportRequest, ImportResult

REFRESH_MS = 2000  # how often to look for changes made by other processes

PROJECT_FILES = "simrate projects (*.simrate);;All files (*)"
#: Screens this wide or narrower open the window maximized the first time.
SMALL_SCREEN_WIDTH = 1440


class MainWindow(QMainWindow):
    """The application window."""

    def __init__(self, context: ApplicationContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("simrate")
        self.rating_panel: RatingPanel | None = None
        self.item_list: ItemListPanel | None = None
        self.progress_panel: ProgressPanel | None = None
        self.project_docks: list[QDockWidget] = []
        self.start_page = StartPage(context)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.start_page)
        self.setCentralWidget(self.stack)
        self.imports = ImportController(self, context.thread_pool)
        self.creation = ProjectCreation(self)
        self.imports.finished.connect(self._on_import_finished)
        # Another process (a CLI import, a merged package, a second window) may write to the
        # file: a cheap check (SQLite's data_version) picks that up while the window is open.
        self._watch_file = QTimer(self, interval=REFRESH_MS)
        self._watch_file.timeout.connect(self.context.refresh)
        self._watch_file.start()
        self.who_label = QLabel()
        self.statusBar().addPermanentWidget(self.who_label)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks
                            | QMainWindow.DockOption.AllowTabbedDocks)
        self.actions_by_name: dict[str, QAction] = {}
        self.menus = build_menus(self)
        self._undo_position = (0, 0)
        context.undo_stack.indexChanged.connect(self._on_undo_index)
        self._connect_start_page()
        context.project_opened.connect(self._build_workspace)
        context.project_closing.connect(self._tear_down_workspace)
        # the project is still open while it is closing: the actions follow once it is closed
        context.project_closed.connect(self._update_actions)
        self._restore_window()
        self._update_actions()
        # Always there, for its View menu toggle; its panels appear while the mode is on.
        self.organizer = Organizer(self)
        # Syncs a project linked to a team hub while it is open (status bar item).
        self.hub_link = HubLink(self)

    def _connect_start_page(self) -> None:
        page = self.start_page
        page.open_path.connect(lambda path: self.open_project(path))
        page.new_from_file.connect(self.new_project_from_file)
        page.open_other.connect(self.choose_project)
        page.open_sample.connect(self.open_sample)
        page.open_sample_as_organizer.connect(self.open_sample_as_organizer)
        page.join_hub.connect(self.join_hub)

    # ----------------------------------------------------------- docks
    def add_dock(self, title: str, widget: QWidget, area=Qt.DockWidgetArea.RightDockWidgetArea,
                 tabify_with: QDockWidget | None = None, name: str = "") -> QDockWidget:
        """Add a panel of the open project in a dock; it is listed in View and closed with
        the project."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name or f"dock_{title.lower().replace(' ', '_')}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        if tabify_with is not None:
            self.tabifyDockWidget(tabify_with, dock)
        self.project_docks.append(dock)
        self.menus["panels"].addAction(dock.toggleViewAction())
        return dock

    def retire_dock(self, dock: QDockWidget) -> None:
        """Take a closed project's dock out of the window for good.

        It is deleted later, so it stays a child of the window until the event loop runs;
        without its name, the next project's restoreState (which finds docks by name) cannot
        put it back in the layout beside the new dock of the same name.
        """
        self.removeDockWidget(dock)
        dock.setObjectName("")
        dock.deleteLater()

    # ----------------------------------------------------------- project life
    def _build_workspace(self) -> None:
        context = self.context
        self.rating_panel = RatingPanel(context)
        self.rating_panel.message.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.rating_panel.failed.connect(self.show_error)
        self.stack.addWidget(self.rating_panel)
        self.stack.setCurrentWidget(self.rating_panel)
        self.menus["rating"].addActions(list(self.rating_panel.actions_by_name.values()))
        self.item_list = ItemListPanel(context)
        self.item_list.item_chosen.connect(self.rating_panel.focus_scale)
        items = self.add_dock("Items", self.item_list, name="dock_items")
        self.progress_panel = ProgressPanel(context)
        self.add_dock("Progress", self.progress_panel, tabify_with=items, name="dock_progress")
        project = context.opened()[0]
        self.add_dock("Guidelines", GuidelinesPanel(project.scale), tabify_with=items,
                      name="dock_guidelines")
        items.raise_()
        state = context.settings.get(WINDOW_STATE)
        if state.isEmpty() or not self.restoreState(state):
            # After the layout settles: the rating view keeps about two thirds of the width.
            QTimer.singleShot(0, self._size_docks)
        self.setWindowTitle(f"{project.title or Path(project.path).stem} \u2013 simrate")
        mode = "organizer" if context.organizer else "blind: you see only your own ratings"
        self.who_label.setText(f"Rating as <b>{context.annotator}</b> ({mode})")
        self._update_actions()
        self.rating_panel.focus_scale()

    def _size_docks(self) -> None:
        if self.project_docks:
            width = max(360, int(self.width() * 0.33))
            self.resizeDocks([self.project_docks[0]], [width], Qt.Orientation.Horizontal)

    def _tear_down_workspace(self) -> None:
        self.context.settings.set(WINDOW_STATE, self.saveState())
        self.menus["rating"].clear()
        for dock in self.project_docks:
            self.retire_dock(dock)
        self.project_docks.clear()
        if self.rating_panel is not None:
            self.stack.removeWidget(self.rating_panel)
            self.rating_panel.deleteLater()
        self.rating_panel = self.item_list = self.progress_panel = None
        self.stack.setCurrentWidget(self.start_page)
        self.setWindowTitle("simrate")
        self.who_label.setText("")
        self.start_page.refresh()
        self._update_actions()

    def _update_actions(self) -> None:
        has_project = self.context.project is not None
        for name in ("import", "close", "find", "larger", "smaller", "guidelines"):
            self.actions_by_name[name].setEnabled(has_project)
        self.menus["rating"].setEnabled(has_project)

    def open_project(self, path: str, annotator: str | None = None) -> bool:
        """Open a project file, asking who is rating unless told; False if not opened."""
        try:
            if annotator is None:
                from simrate.core.project import Project

                with Project.open(path) as probe:
                    names = probe.annotators()
                    organizer = self.context.organizer and not probe.mode.annotator
                annotator = ask_annotator(names, self.context.settings.get(LAST_ANNOTATOR), self,
                                          organizer=organizer)
                if not annotator:
                    return False
            self.context.open_project(path, annotator)
        except SimrateError as exc:
            if not Path(path).is_file():
                self.context.settings.remove_recent_project(str(path))
                self.start_page.refresh()
            from simrate.core.check.integrity import with_way_out

            self.show_error(str(with_way_out(exc)))
            return False
        except Exception as exc:
            from simrate.core.check.integrity import damage_error

            error = damage_error(exc, [path])
            if error is None:
                raise
            self.context.close_project()
            self.show_error(str(error))
            return False
        self.context.settings.set(LAST_FOLDER, str(Path(path).resolve().parent))
        return True

    def choose_project(self) -> None:
        """Ask for a project file and open it."""
        path, _ = get_open_file_name(self, "Open project",
                                              self.context.settings.get(LAST_FOLDER),
                                              PROJECT_FILES)
        if path:
            self.open_project(path)

    def open_sample(self) -> None:
        """Open the sample project (built in the user's data folder the first time)."""
        from simrate.gui.base.sample import ensure_sample_project, sample_folder

        try:
            path = ensure_sample_project(sample_folder())
        except SimrateError as exc:
            self.show_error(str(exc))
            return
        self.open_project(str(path))

    def open_sample_as_organizer(self) -> None:
        """Open the sample in organizer mode as its organizer: agreement, flagged items and
        the adjudication already made, with no question asked."""
        from simrate.gui.base.sample import SAMPLE_ORGANIZER, ensure_sample_project, sample_folder

        try:
            path = ensure_sample_project(sample_folder())
        except SimrateError as exc:
            self.show_error(str(exc))
            return
        self.context.close_project()  # so that the mode changes with no project to warn about
        self.organizer.set_mode(True)
        self.open_project(str(path), annotator=SAMPLE_ORGANIZER)

    def join_hub(self) -> None:
        """Join a team hub: make a replica and open it as the person the hub knows."""
        from simrate.gui.dialogs.join_dialog import JoinDialog

        dialog = JoinDialog(self.context.settings.get(LAST_FOLDER), self)
        dialog.joined.connect(self._open_joined)
        dialog.exec()
        dialog.deleteLater()

    def _open_joined(self, path: str, name: str, password: str) -> None:
        if password:
            from simrate.core.project import Project

            with Project.open(path) as replica:  # for this session only, never stored
                self.hub_link.passwords[replica.mode.url] = password
        self.open_project(path, annotator=name or None)

    def close_project(self) -> None:
        """Close the project and go back to the start page."""
        self.context.close_project()

    # ----------------------------------------------------------- imports
    def new_project_from_file(self) -> None:
        """Ask for a pairs file, a scale and who rates; create the project in the background
        and open it."""
        self.creation.ask()

    def import_into_project(self) -> None:
        """Ask for a file and import it into the open project in the background."""
        if self.context.project is None:
            return
        path, _ = get_open_file_name(self, "Import pairs or ratings",
                                              self.context.settings.get(LAST_FOLDER), PAIR_FILES)
        if path:
            self.start_import(Path(path))

    def start_import(self, source: Path) -> None:
        """Import a file into the open project off the GUI thread."""
        request = ImportRequest(source=source, project_path=Path(self.context.opened()[0].path),
                                annotator=self.context.annotator)
        self.imports.start(request)

    def _on_import_finished(self, result: ImportResult) -> None:
        self.statusBar().showMessage(result.summary(), 10000)
        if not self.creation.open_created(result):
            self.context.refresh()

    def _on_undo_index(self, index: int) -> None:
        stack = self.context.undo_stack
        last_index, last_count = self._undo_position
        self._undo_position = (index, stack.count())
        if stack.count() != last_count:
            return  # a new change was pushed (or the history cleared): nothing to announce
        if index < last_index:
            self.statusBar().showMessage(f"Undid \u201c{stack.text(index)}\u201d", 6000)
        elif index > last_index:
            self.statusBar().showMessage(f"Redid \u201c{stack.text(index - 1)}\u201d", 6000)

    # ----------------------------------------------------------- view
    def change_text_size(self, delta: int) -> None:
        """Make the texts larger or smaller by `delta` points; remembered."""
        low, high = TEXT_SIZE_RANGE
        size = max(low, min(high, self.context.settings.text_size() + delta))
        self.context.settings.set(TEXT_SIZE, size)
        if self.rating_panel is not None:
            self.rating_panel.set_text_size(size)
        self.statusBar().showMessage(f"Text size {size} pt", 3000)

    def focus_search(self) -> None:
        """Ctrl+F: search the item list."""
        if self.item_list is not None:
            self.project_docks[0].show()
            self.project_docks[0].raise_()
            self.item_list.focus_search()

    def show_guidelines(self) -> None:
        """F1: bring the guidelines panel to the front."""
        for dock in self.project_docks:
            if dock.objectName() == "dock_guidelines":
                dock.show()
                dock.raise_()

    def show_shortcuts(self) -> None:
        """A dialog listing every menu action with its keys."""
        QMessageBox.information(self, "Keyboard", shortcuts_html(self.menuBar()))

    def show_about(self) -> None:
        """Version and a one-line description."""
        QMessageBox.about(self, "About simrate",
                          f"<b>simrate {installed_version()}</b><p>Rate text pairs on graded "
                          "similarity scales, watch agreement, adjudicate, export gold.</p>")

    def report_damage(self, exc: BaseException) -> bool:
        """Show the "damaged project" message if `exc` came from a damaged project file
        (the open one); True if it did. The window's hook for unexpected errors calls it."""
        from simrate.core.check.integrity import damage_error

        project = self.context.project
        error = damage_error(exc, [project.path] if project is not None else [])
        if error is None:
            return False
        self.show_error(str(error))
        return True

    def show_error(self, text: str) -> None:
        """A warning dialog with a one-line message."""
        QMessageBox.warning(self, "simrate", text)

    # ----------------------------------------------------------- window state
    def _restore_window(self) -> None:
        geometry = self.context.settings.get(WINDOW_GEOMETRY)
        if not geometry.isEmpty() and self.restoreGeometry(geometry):
            return
        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None and screen.width() <= SMALL_SCREEN_WIDTH:
            # A laptop screen (1366x768): every pixel goes to the texts. The size is set too,
            # for desktops without a window manager to honour "maximized".
            self.setGeometry(screen)
            self.setWindowState(Qt.WindowState.WindowMaximized)
        else:
            self.resize(1280, 800)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """On activation, pick up what other processes wrote to the project."""
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.context.refresh()
        super().changeEvent(event)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Remember the window, close the project (every rating is already saved)."""
        settings = self.context.settings
        settings.set(WINDOW_GEOMETRY, self.saveGeometry())
        if self.context.project is not None:
            settings.set(WINDOW_STATE, self.saveState())
        self.context.close_project()
        settings.sync()
        super().closeEvent(event)
