"""The window's list of sync conflicts: each edit of this machine that met another value
from the hub, the edits it lost first, both values in the scale's numbers.

A sync round logs every conflict in the project's change log (kind `conflict`, with both
values as scores: hub/team/later_wins.py and apply.py), whether the window or `simrate
team sync` ran it, so the list is read from there when the window opens and again on
Refresh: in the background, on a connection of its own (gui/base/jobs.py), as a long log
(200,000 entries) takes a second or two to read. A rating's value reads `3.25`, `skipped` or `cleared`
(with its note), a verdict's `3.25` or `withdrawn`, an exclusion's `excluded` or `counted`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.gui.base.jobs import JobRunner
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.kit.accessible import named
from simrate.gui.kit.closing import PanelDialog

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class ConflictRow:
    """One logged conflict, in words."""

    logged_at: float
    what: str
    here: str
    other: str
    lost: bool


def value_text(kind: str, value: object) -> str:
    """A conflict's value as the window says it (scores as the scale writes them)."""
    if kind == "exclusion":
        return "excluded" if value else "counted"
    if kind == "rating" and isinstance(value, dict):
        score = value.get("score")
        text = fmt(float(score)) if score is not None else (
            "skipped" if value.get("skipped") else "cleared")
        note = value.get("note") or ""
        return f"{text} \u201c{note}\u201d" if note else text
    if value is None:
        return "withdrawn" if kind == "adjudication" else "none"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt(float(value))
    return str(value)


def what_text(kind: str, key: str) -> str:
    """What the edit was about: a rating's item and rater, a verdict's item, a rater."""
    if kind == "rating":
        item, _, rater = key.rpartition("/")
        return f"rating of {item} by {rater}"
    if kind == "adjudication":
        return f"verdict on {key}"
    return f"exclusion of {key}"


def _entry(item: object, rater: object, old: dict, new: dict) -> tuple[str, str, object,
                                                                      object, bool]:
    """(kind, key, value here, value there, lost) of one logged conflict. A rating is
    logged as its two values (score, note, skipped, at) under its item and rater, with
    `won` on the new side when this machine's won; the others as {kind, value, at} with
    `won` on the new side."""
    if "kind" not in old:  # `won` is there when this machine's rating won
        return "rating", f"{item}/{rater}", old, new, new.get("won", "hub") == "hub"
    kind = str(old["kind"])
    key = str(rater if kind == "exclusion" else item)
    return kind, key, old.get("value"), new.get("value"), new.get("won") == "hub"


def conflict_rows(changes) -> list[ConflictRow]:
    """The conflicts of a change-log frame (`Project.changes()`), the edits this machine
    lost before those it won, newest first."""
    rows = []
    logged = changes[changes["kind"] == "conflict"]
    for at, item, rater, old, new in zip(logged["at"], logged["item_id"], logged["annotator"],
                                         logged["old"], logged["new"], strict=True):
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        kind, key, here, there, lost = _entry(item, rater, old, new)
        rows.append(ConflictRow(float(at), what_text(kind, key), value_text(kind, here),
                                value_text(kind, there), lost))
    return sorted(rows, key=lambda r: (not r.lost, -r.logged_at))


class ConflictsModel(RowTableModel):
    """One row per conflict; the edits lost here in bold."""

    HEADERS = ("Synced", "Edit", "Made here", "From the other machine", "Kept")
    TOOLTIPS = ("When the sync met the other value", "", "This machine's value",
                "The value another machine sent to the hub", "Which edit was later and stays")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row: ConflictRow = self.rows[index.row()]
        if role == Qt.ItemDataRole.FontRole and row.lost:
            font = QFont()
            font.setBold(True)
            return font
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        kept = "theirs (yours lost)" if row.lost else "yours (made later)"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.logged_at))
        return (when, row.what, row.here, row.other, kept)[index.column()]


def summary(rows: list[ConflictRow]) -> str:
    """One line over the table: how many edits made here lost and won."""
    if not rows:
        return "No sync conflicts: no edit made here has met another value on the hub."
    lost, won = sum(r.lost for r in rows), sum(not r.lost for r in rows)
    edits = "edit" if lost == 1 else "edits"
    also = f"; {won} made later here won" if won else ""
    return (f"{lost} {edits} made here lost to a later edit made on another machine{also}. "
            "Both values of each are kept in the change log.")


class ConflictsPanel(QWidget):
    """The summary, the table and Refresh."""

    def __init__(self, project_path, pool=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.project_path = project_path
        self.runner = JobRunner(pool, self)
        self.model = ConflictsModel(self)
        self.table = named(QTableView(), "Sync conflicts")
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        row = QHBoxLayout()
        row.addWidget(self.summary_label, 1)
        row.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        self.refresh()

    def refresh(self) -> None:
        """Read the logged conflicts again (in the background)."""
        path = self.project_path

        def work(_job):
            from simrate.core.project import Project

            with Project.open(path) as project:
                return conflict_rows(project.changes())

        self.summary_label.setText("Reading the change log\u2026")
        self.refresh_button.setEnabled(False)
        self.runner.start(work, finished=self._show, failed=self._failed, files=[path])

    def _show(self, rows: list[ConflictRow]) -> None:
        self.refresh_button.setEnabled(True)
        self.model.set_rows(rows)
        self.summary_label.setText(summary(rows))

    def _failed(self, exc: SimrateError) -> None:
        self.refresh_button.setEnabled(True)
        self.summary_label.setText(str(exc))


def open_conflicts_window(window) -> PanelDialog:
    """The conflicts in a window of their own (not modal; closed with the project)."""
    dialog = PanelDialog(window, "Sync conflicts")
    panel = ConflictsPanel(window.context.project.path, window.context.thread_pool, dialog)
    dialog.hold(panel)
    window.context.project_closing.connect(dialog.close)
    dialog.finished.connect(lambda _code: panel.runner.cancel_all())
    dialog.resize(860, 360)
    dialog.show()
    return dialog
