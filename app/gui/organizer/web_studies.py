"""The organizer's web studies: create one, change its settings, watch the progress of
each, copy the worker link, open or close.

New study and Settings open the form of study_dialog.py; its values, like Open/Close, go
to `set_study`, the same call as `simrate crowd study` (on an organizer's hub replica: to
the hub, then the file). Reads `study_status` (app/core/team/web_study/) on the
project's connection when shown, every few seconds while open, and after each change. On
a hub replica the hub's leases and slots are copied into the file first
(`mirror_hub_studies`), at most every MIRROR_SECONDS.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.team.quality import check_scores
from simrate.core.team.web_study import Study, get_study, study_status
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.kit.closing import PanelDialog
from simrate.gui.kit.fitting import WrappedLabel
from simrate.gui.organizer.study_dialog import StudyDialog, StudySettings
from simrate.gui.organizer.study_review import ReviewBox
from simrate.hub.team.web_hub import set_study

_Index = QModelIndex | QPersistentModelIndex
REFRESH_MS = 5000
MIRROR_SECONDS = 20.0
DEFAULT_BASE = "http://127.0.0.1:8000"


def plural(count: int, word: str) -> str:
    """`1 task`, `2 tasks`, with thousands separated."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class StudiesModel(RowTableModel):
    """One row per study: name, open, tasks done / leased / left, workers, ratings."""

    HEADERS = ("Study", "State", "Done", "Leased", "Left", "Workers", "Web ratings")
    TOOLTIPS = ("", "Open studies are served by simrate serve", "Tasks finished",
                "Tasks a worker holds now", "Tasks still to hand out",
                "Crowd workers who took a task", "Ratings given on the page")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        name, entry = self.rows[index.row()]
        tasks = entry["tasks"]
        ratings = sum(int(n) * c for n, c in entry["ratings_per_item"].items())
        return (name, "open" if entry["open"] else "closed", f"{tasks['done']:,}",
                f"{tasks['leased']:,}", f"{tasks['left']:,}", f"{len(entry['workers']):,}",
                f"{ratings:,}")[index.column()]


class WebStudiesPanel(QWidget):
    """The table of studies with Copy link and Open/Close."""

    def __init__(self, project, parent: QWidget | None = None):
        super().__init__(parent)
        self.project = project
        self.model = StudiesModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.base_edit = QLineEdit(DEFAULT_BASE)
        self.base_edit.setToolTip("Where simrate serve answers, as workers reach it")
        self.link_edit = QLineEdit(readOnly=True)
        self.copy_button = QPushButton("Copy link")
        self.copy_button.clicked.connect(self.copy_link)
        self.toggle_button = QPushButton("Close study")
        self.toggle_button.clicked.connect(self.toggle)
        self.new_button = QPushButton("New study\u2026")
        self.new_button.clicked.connect(self.new_study)
        self.settings_button = QPushButton("Settings\u2026")
        self.settings_button.clicked.connect(self.change_study)
        self.message = WrappedLabel()
        self.review_box = ReviewBox(self)
        self.review_box.review_button.clicked.connect(
            lambda: self.review_box.show_review(self.project, self.selected_name()))
        self._lay_out()
        self.table.selectionModel().selectionChanged.connect(self._selected)
        self.base_edit.textChanged.connect(self._selected)
        self._mirrored = 0.0
        # runs only while the panel is shown (showEvent, hideEvent): a panel closed or never
        # shown reads nothing, so it never reads a project closed under it
        self.timer = QTimer(self, interval=REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.timer.start()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.timer.stop()
        super().hideEvent(event)

    def _lay_out(self) -> None:
        """New study above the table; the server, the link and its buttons, the message
        and the review below."""
        row = QHBoxLayout()
        row.addWidget(QLabel("Server"))
        row.addWidget(self.base_edit, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.link_edit, 1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.settings_button)
        buttons.addWidget(self.toggle_button)
        top = QHBoxLayout()
        top.addWidget(self.new_button)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.review_box)

    def _hub_replica(self) -> bool:
        return self.project.mode.organizer

    def refresh(self, mirror: bool = False) -> None:
        """Read every study's progress again, keeping the selection (on a hub replica,
        from the hub when `mirror` or when the last copy is MIRROR_SECONDS old)."""
        chosen = self.selected_name()
        note = ""
        if self._hub_replica() and (mirror or time.monotonic() - self._mirrored
                                    >= MIRROR_SECONDS):
            from simrate.hub.team.web_hub import mirror_hub_studies

            self._mirrored = time.monotonic()
            try:
                mirror_hub_studies(self.project)
            except SimrateError as exc:
                note = f"The hub's figures could not be read: {exc}"
        try:
            rows = list(study_status(self.project).items())
        except SimrateError as exc:
            self.message.setText(str(exc))
            return
        self.model.set_rows(rows)
        names = [name for name, _entry in rows]
        if rows:
            self.table.selectRow(names.index(chosen) if chosen in names else 0)
        self.message.setText(note or ("" if rows else "No web studies yet: press New study, "
                                      "then run simrate serve PROJECT so workers reach it."))
        self._selected()

    def selected_name(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() \
            else []
        return self.model.rows[rows[0].row()][0] if rows else None

    def link(self, name: str) -> str:
        """The worker link of a study, with Prolific's placeholders."""
        base = self.base_edit.text().strip().rstrip("/") or DEFAULT_BASE
        return (f"{base}/study/{name}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
                f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}}")

    def _selected(self, *_args) -> None:
        name = self.selected_name()
        entry = dict(self.model.rows).get(name) if name else None
        self.link_edit.setText(self.link(name) if name else "")
        self.link_edit.setCursorPosition(0)  # the start of the link: server and study
        self.copy_button.setEnabled(name is not None)
        self.toggle_button.setEnabled(name is not None)
        self.settings_button.setEnabled(name is not None)
        self.toggle_button.setText("Close study" if entry is None or entry["open"]
                                   else "Open study")

    def copy_link(self) -> None:
        name = self.selected_name()
        if name:
            QGuiApplication.clipboard().setText(self.link(name))
            self.message.setText(f"Link of {name} copied.")

    def new_study(self) -> StudyDialog:
        """Open the form for a new study (not modal: the table goes on updating)."""
        return self._open_form(None)

    def change_study(self) -> StudyDialog | None:
        """Open the form on the selected study's settings."""
        name = self.selected_name()
        study = get_study(self.project, name) if name else None
        return None if study is None else self._open_form(study)

    def _open_form(self, study: Study | None) -> StudyDialog:
        dialog = StudyDialog(study, len(check_scores(self.project)), self._hub_replica(),
                             self.save, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.form = dialog
        dialog.open()
        return dialog

    def save(self, settings: StudySettings, new: bool) -> None:
        """Create or change a study through `set_study` (SimrateError: the form says it)."""
        old = get_study(self.project, settings.name)
        if new and old is not None:
            raise SimrateError(f"a study named {settings.name!r} exists already: select it "
                               "and press Settings to change it")
        study, what = set_study(
            self.project, settings.name, settings.per_task, settings.checks, settings.per_item,
            settings.lease_minutes, settings.completion_url, old is not None and not old.open,
            by="organizer", new_web_password=settings.new_web_password,
            completion_code=settings.completion_code, options=settings.options)
        self.refresh(mirror=True)
        names = [name for name, _entry in self.model.rows]
        self.table.selectRow(names.index(study.name))
        left = dict(self.model.rows)[study.name]["tasks"]["left"]
        done = "created" if what == "created" else "saved"
        state = "open" if study.open else "closed (Open study serves it)"
        text = f"Study {study.name} {done}: {plural(left, 'task')} left, {state}."
        if study.open and not left:
            text += (" No task can be handed out: every item has its web ratings or is a "
                     "check item.")
        self.message.setText(text)

    def toggle(self) -> None:
        name = self.selected_name()
        if not name:
            return
        entry = dict(self.model.rows)[name]
        try:
            set_study(self.project, name, close=entry["open"], by="organizer")
        except SimrateError as exc:
            QMessageBox.warning(self, "Web study", str(exc))
            return
        self.refresh(mirror=True)


def open_web_studies_window(window) -> PanelDialog:
    """The web studies in a window of their own (not modal; closed with the project)."""
    dialog = PanelDialog(window, "Web studies")
    panel = WebStudiesPanel(window.context.project, dialog)
    dialog.hold(panel)
    dialog.finished.connect(lambda _code: panel.timer.stop())
    window.context.project_closing.connect(dialog.close)
    dialog.resize(760, 460)
    dialog.show()
    return dialog
