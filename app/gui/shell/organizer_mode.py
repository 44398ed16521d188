"""Organizer mode on top of the main window: menus, docks, the adjudication queue, dialogs.

MainWindow creates an Organizer once it is built. It adds a View menu toggle "Organizer
mode" and an Organizer menu; while organizer mode is on and a project is open, an
OrganizerWorkspace adds the Agreement, Annotators and All ratings docks and puts the
adjudication queue beside the rating view in the window's central stack (Ctrl+J opens it,
Ctrl+R returns to rating). Every shortcut is on an action in a menu.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox

from simrate.core.base.errors import SimrateError
from simrate.core.review.index import AdjudicationRecords
from simrate.gui.agreement.agreement_view import AgreementView
from simrate.gui.agreement.agreement_watch import AgreementWatcher
from simrate.gui.agreement.dashboard import Dashboard
from simrate.gui.base.jobs import JobRunner
from simrate.gui.base.settings import LAST_FOLDER, WINDOW_STATE
from simrate.gui.organizer.adjudication_queue import AdjudicationQueue
from simrate.gui.organizer.annotator_report import AnnotatorReport
from simrate.gui.organizer.item_ratings_panel import ItemRatingsPanel

BLIND_WARNING = ("Organizer mode shows every annotator's ratings and the agreement between "
                 "them. If you are going to rate items yourself, your ratings will no longer "
                 "be blind. The project's change log records that you switched it on.\n\n"
                 "Switch to organizer mode?")
#: Why the View menu's Organizer mode is unavailable on an annotator's replica.
ANNOTATOR_REPLICA = ("Organizer mode is for organizers: this file is an annotator's replica "
                     "of a team hub.")


def state_names(state, name: str) -> bool:
    """Whether a saved window state (QMainWindow.saveState) holds a dock of this name: the
    state keeps names as QDataStream strings, UTF-16 big-endian."""
    return bool(name) and name.encode("utf-16-be") in bytes(state.data())


class OrganizerWorkspace(QObject):
    """The organizer's panels for one open project; removed when it closes."""

    def __init__(self, window, parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        context = window.context
        self.context = context
        self.runner = JobRunner(context.thread_pool, self)
        self.records = AdjudicationRecords(context.project)
        self.watcher = AgreementWatcher(context.project, context.bridge, self.runner, self)
        self.watcher.failed.connect(lambda text: window.statusBar().showMessage(text, 10000))
        self.dashboard = Dashboard(self.watcher)
        self.queue = AdjudicationQueue(context, self.records)
        self.queue.message.connect(lambda text: window.statusBar().showMessage(text, 6000))
        self.queue.failed.connect(window.show_error)
        self.report = AnnotatorReport(context.project, context.bridge, context.annotator or "",
                                      self.runner, undo_stack=context.undo_stack)
        self.ratings = ItemRatingsPanel(context, self.records)
        window.stack.addWidget(self.queue)
        # The full-window Agreement view (Ctrl+3): the docks step aside while it is up.
        self.agreement_view = AgreementView(self.watcher, self.runner)
        window.stack.addWidget(self.agreement_view)
        self._docks_aside: list = []
        tab_with = window.project_docks[0] if window.project_docks else None
        self.docks = [
            window.add_dock("Agreement", self.dashboard, tabify_with=tab_with,
                            name="dock_agreement"),
            window.add_dock("Annotators", self.report, tabify_with=tab_with,
                            name="dock_annotators"),
            window.add_dock("All ratings", self.ratings, area=Qt.DockWidgetArea.BottomDockWidgetArea,
                            name="dock_all_ratings"),
        ]
        self._restore_docks(context.settings.get(WINDOW_STATE))
        # The organizer's first look is agreement (after the window has placed its docks).
        QTimer.singleShot(0, self.docks[0].raise_)
        self.adjudication_menu = QMenu("Adjudication &keys", window)
        self.adjudication_menu.addActions(list(self.queue.actions_by_name.values()))
        self._ratings_dock_was_visible = True
        window.stack.currentChanged.connect(self._on_central_changed)

    def _restore_docks(self, state) -> None:
        """The saved layout again, now that our docks exist; a dock the saved state does
        not name (saved by a blind session, which had none) is shown."""
        if state.isEmpty():
            return
        self.window.restoreState(state)
        for dock in self.docks:
            if not state_names(state, dock.objectName()):
                dock.show()

    def _on_central_changed(self, _index: int) -> None:
        current = self.window.stack.currentWidget()
        if current is self.agreement_view:
            return  # the docks were put aside by show_agreement
        for aside in self._docks_aside:  # back from the Agreement view
            aside.show()
        self._docks_aside = []
        # The queue shows every rating of its own item: the All ratings dock, which follows
        # the rating view, would show another item beside it. Hide it while the queue is up.
        dock = self.docks[2]
        if current is self.queue:
            self._ratings_dock_was_visible = dock.isVisible()
            dock.hide()
        elif self._ratings_dock_was_visible:
            dock.show()

    def show_queue(self) -> None:
        """Put the adjudication queue in the middle, at the first flagged item."""
        self.window.stack.setCurrentWidget(self.queue)
        self.queue.open_first_flagged()

    def show_agreement(self) -> None:
        """The Agreement view across the whole window; the docks step aside until the
        rating view or the queue comes back."""
        window = self.window
        if window.stack.currentWidget() is not self.agreement_view:
            self._docks_aside = [d for d in window.project_docks if not d.isHidden()]
            for dock in self._docks_aside:
                dock.hide()
            window.stack.setCurrentWidget(self.agreement_view)

    def show_rating(self) -> None:
        """Back to the rating view."""
        panel = self.window.rating_panel
        if panel is not None:
            self.window.stack.setCurrentWidget(panel)
            panel.focus_scale()

    def set_text_size(self, points: int) -> None:
        """Follow the View menu's text size."""
        self.queue.set_text_size(points)

    def close(self) -> None:
        """Stop background work and take the panels out of the window."""
        self.window.stack.currentChanged.disconnect(self._on_central_changed)
        self.watcher.shutdown()
        self.dashboard.machine_watch.shutdown()
        self.agreement_view.shutdown()
        self.runner.cancel_all()
        window = self.window
        if window.stack.indexOf(self.queue) >= 0:
            if (window.stack.currentWidget() in (self.queue, self.agreement_view)
                    and window.rating_panel is not None):
                window.stack.setCurrentWidget(window.rating_panel)
            window.stack.removeWidget(self.queue)
            window.stack.removeWidget(self.agreement_view)
        for dock in self.docks:
            if dock in window.project_docks:  # still there: organizer mode switched off
                window.project_docks.remove(dock)
                window.menus["panels"].removeAction(dock.toggleViewAction())
                window.retire_dock(dock)
        self.queue.deleteLater()
        self.agreement_view.deleteLater()
        self.adjudication_menu.deleteLater()
        self.deleteLater()


class Organizer(QObject):
    """Organizer mode for one main window: the toggle, the menu, the workspace."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.context = window.context
        self.workspace: OrganizerWorkspace | None = None
        self.evaluation = None  # the evaluation window, made on first use
        self.actions: dict[str, QAction] = {}
        self._build_menus()
        self.context.project_opened.connect(self._on_project_opened)
        self.context.project_closing.connect(self._close_workspace)
        for name in ("larger", "smaller"):
            action = window.actions_by_name.get(name)
            if action is not None:
                action.triggered.connect(self._follow_text_size)
        self._update()

    # ------------------------------------------------------------------ menus
    def _action(self, name: str, text: str, keys: list[str], slot) -> QAction:
        action = QAction(text, self.window)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(slot)
        self.actions[name] = action
        self.window.actions_by_name[f"organizer_{name}"] = action
        return action

    def _build_menus(self) -> None:
        window = self.window
        self.mode_action = QAction("&Organizer mode", window)
        self.mode_action.setCheckable(True)
        self.mode_action.setChecked(self.context.organizer)
        self.mode_action.triggered.connect(self.set_mode)
        window.actions_by_name["organizer_mode"] = self.mode_action
        window.menus["view"].addSeparator()
        window.menus["view"].addAction(self.mode_action)
        self.menu: QMenu | None = None

    def _build_organizer_menu(self) -> QMenu:
        """The Organizer menu, present only in organizer mode (a blind window names nothing
        about other annotators or agreement, not even in a hidden menu)."""
        window = self.window
        menu = QMenu("&Organizer", window)
        menu.addAction(self._action("rating", "&Rating view", ["Ctrl+1", "Ctrl+R"],
                                    self.show_rating))
        menu.addAction(self._action("queue", "Adjudication &queue", ["Ctrl+2", "Ctrl+J"],
                                    self.show_queue))
        menu.addAction(self._action("agreement_view", "Agreement &view", ["Ctrl+3"],
                                    self.show_agreement))
        menu.addAction(self._action("agreement", "&Agreement dashboard", ["Ctrl+D"],
                                    lambda: self._raise_dock(0)))
        menu.addAction(self._action("annotators", "A&nnotator report", [],
                                    lambda: self._raise_dock(1)))
        self.keys_placeholder = menu.addSeparator()
        menu.addAction(self._action("import", "&Import ratings or packages\u2026",
                                    ["Ctrl+Shift+I"], self.import_ratings))
        menu.addAction(self._action("export", "&Export gold\u2026", ["Ctrl+Shift+E"],
                                    self.export_gold))
        menu.addAction(self._action("evaluate", "E&valuate systems\u2026", [],
                                    self.evaluate_systems))
        menu.addAction(self._action("team", "&Team hub\u2026", [], self.show_team))
        menu.addAction(self._action("web", "&Web studies\u2026", [], self.show_web_studies))
        help_menu = window.menus.get("help")
        window.menuBar().insertMenu(help_menu.menuAction() if help_menu else None, menu)
        window.menus["organizer"] = menu
        self.menu = menu
        return menu

    def _remove_organizer_menu(self) -> None:
        if self.menu is None:
            return
        self.window.menuBar().removeAction(self.menu.menuAction())
        for name, action in self.actions.items():
            self.window.actions_by_name.pop(f"organizer_{name}", None)
            action.deleteLater()
        self.actions.clear()
        self.window.menus.pop("organizer", None)
        self.menu.deleteLater()
        self.menu = None

    def _update(self) -> None:
        if self.context.organizer and self.menu is None:
            self._build_organizer_menu()
        elif not self.context.organizer:
            self._remove_organizer_menu()
        has_project = self.workspace is not None
        for name in ("queue", "rating", "agreement", "agreement_view", "annotators", "import",
                     "export", "team", "web"):
            if name in self.actions:
                self.actions[name].setEnabled(has_project)

    # ------------------------------------------------------------------ mode
    def set_mode(self, on: bool) -> None:
        """Switch organizer mode on (after a warning about blindness) or off; on a plain
        file the switch is written to its change log, on an annotator's replica refused."""
        project = self.context.project
        if on and not self.context.organizer and project is not None:
            if project.mode.annotator:
                self.mode_action.setChecked(False)
                self.window.statusBar().showMessage(ANNOTATOR_REPLICA, 10000)
                return
            answer = QMessageBox.question(self.window, "Organizer mode", BLIND_WARNING)
            if answer != QMessageBox.StandardButton.Yes:
                self.mode_action.setChecked(False)
                return
        try:
            self.context.set_organizer(on)
        except SimrateError as exc:
            self.mode_action.setChecked(self.context.organizer)
            self.window.show_error(str(exc))
            return
        self.mode_action.setChecked(on)
        if on and self.context.project is not None and self.workspace is None:
            self._open_workspace()
        elif not on:
            self._close_workspace()
        mode = "organizer" if on else "blind: you see only your own ratings"
        if self.context.project is not None:
            self.window.who_label.setText(f"Rating as <b>{self.context.annotator}</b> ({mode})")
        self._update()

    def _on_project_opened(self) -> None:
        # an annotator's replica of a hub has no organizer mode (the context switched it off)
        allowed = not self.context.project.mode.annotator
        self.mode_action.setEnabled(allowed)
        self.mode_action.setStatusTip("" if allowed else ANNOTATOR_REPLICA)
        self.mode_action.setToolTip("" if allowed else ANNOTATOR_REPLICA)
        self.mode_action.setChecked(self.context.organizer)
        if self.context.organizer:
            self._open_workspace()
        self._update()

    def _open_workspace(self) -> None:
        menu = self.menu if self.menu is not None else self._build_organizer_menu()
        self.workspace = OrganizerWorkspace(self.window, self)
        menu.insertMenu(self.keys_placeholder, self.workspace.adjudication_menu)

    def _close_workspace(self) -> None:
        if self.workspace is not None:
            self.workspace.close()
            self.workspace = None
        self.mode_action.setEnabled(True)  # until the next project says otherwise
        self._update()

    # ------------------------------------------------------------------ actions
    def show_queue(self) -> None:
        """Ctrl+J: the adjudication queue at the first flagged item."""
        if self.workspace is not None:
            self.workspace.show_queue()

    def show_agreement(self) -> None:
        """Ctrl+3: the Agreement view across the window."""
        if self.workspace is not None:
            self.workspace.show_agreement()

    def show_rating(self) -> None:
        """Ctrl+R: back to the rating view."""
        if self.workspace is not None:
            self.workspace.show_rating()

    def _raise_dock(self, index: int) -> None:
        if self.workspace is not None:
            dock = self.workspace.docks[index]
            dock.show()
            dock.raise_()

    def _follow_text_size(self) -> None:
        if self.workspace is not None:
            self.workspace.set_text_size(self.context.settings.text_size())

    def import_ratings(self) -> None:
        """Preview and import a ratings file or a returned package."""
        from simrate.gui.dialogs.ratings_import_dialog import RatingsImportDialog

        context = self.context
        dialog = RatingsImportDialog(context.project.path, context.annotator or "",
                                     context.settings.get(LAST_FOLDER), parent=self.window)
        dialog.imported.connect(lambda text: self.window.statusBar().showMessage(text, 10000))
        dialog.imported.connect(lambda _text: context.refresh())
        dialog.choose_file()
        if dialog.preview is not None or dialog.path_edit.text():
            dialog.exec()
        dialog.deleteLater()

    def export_gold(self) -> None:
        """Open the export dialog."""
        from simrate.gui.dialogs.export_dialog import ExportDialog

        project = self.context.project
        dialog = ExportDialog(project.path, project.scale,
                              self.context.settings.get(LAST_FOLDER), parent=self.window)
        dialog.exec()
        if dialog.report is not None:
            self.window.statusBar().showMessage(f"Exported to {dialog.report.path}", 10000)
        dialog.deleteLater()

    def evaluate_systems(self) -> None:
        """Open the evaluation window."""
        from simrate.gui.dialogs.evaluation_window import EvaluationWindow

        if self.evaluation is None:
            self.evaluation = EvaluationWindow(self.context.settings.get(LAST_FOLDER),
                                               parent=self.window)
            # the project's own task to start with (its scale is named after it)
            self.evaluation.set_task(self.context.project.scale.name)
        self.evaluation.show()
        self.evaluation.raise_()
        self.evaluation.activateWindow()

    def show_web_studies(self) -> None:
        """Open the web studies window: progress, the worker link, open or close."""
        from simrate.gui.organizer.web_studies import open_web_studies_window

        open_web_studies_window(self.window)

    def show_team(self) -> None:
        """Open the team hub window: publish, people, who is connected."""
        from simrate.gui.organizer.team_panel import open_team_window

        open_team_window(self.window)
