"""AnnotatorReport: one row per annotator (app/core/team/quality.py), with a Counted box to exclude
a rater from agreement and gold or include them again (`Project.set_excluded`, logged).

The report reads every rating, so it is computed in the background on a connection of its
own, a moment after the ratings stop changing; ticking a box writes at once and the row
shows it at once, then the figures follow.
"""

from __future__ import annotations

import math
import time

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.actions import ExcludeCareless
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import AdjudicationChanged, AnnotatorExcluded, Event
from simrate.core.project import Project
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.base.row_model import SortFilterProxy, filter_field
from simrate.gui.base.undo import push_action
from simrate.gui.kit.accessible import named
from simrate.gui.kit.palette import WARNING_COLOUR

_Index = QModelIndex | QPersistentModelIndex
#: (report key, column title, number format or None for text). The columns that judge a
#: rater (agreement with the rest, then with the check items, then the rater model's
#: reliability and bias) come right after the name, so they are on screen however narrow the
#: dock; the counts and the warning follow.
COLUMNS = (
    ("excluded", "Counted", None),
    ("annotator", "Annotator", None),
    ("pearson_vs_rest", "r vs rest", "{:.3f}"),
    ("check_pearson", "Check r", "{:.3f}"),
    ("check_mae", "Check MAE", "{:.2f}"),
    ("checks", "Checks", "{:,}"),
    ("reliability", "Reliability", "{:.2f}"),
    ("bias", "Bias", "{:+.2f}"),
    ("rated", "Rated", "{:,}"),
    ("skipped", "Skipped", "{:,}"),
    ("mean", "Mean", "{:.2f}"),
    ("sd", "SD", "{:.2f}"),
    ("seconds_per_item", "s / item", "{:.1f}"),
    ("flag_reason", "Warning", None),
)
TOOLTIPS = {
    "excluded": "Untick to leave this rater out of agreement, flags and gold (logged; "
                "reversible)",
    "pearson_vs_rest": "Pearson r against the mean of the other counted raters",
    "reliability": "The rater model's reliability of this rater: the share of the variance of "
                   "a rating that is the items' true variance (1: no noise; 0: all noise). "
                   "Not given for excluded and machine raters",
    "bias": "The rater model's bias of this rater, relative to the average rater, in scale "
            "points: + scores higher than the average rater, \u2212 lower. Not given for "
            "excluded and machine raters",
    "checks": "Check items (known scores) this rater rated",
    "check_pearson": "Pearson r with the known scores of the check items; STS 2012 dropped "
                     "raters below 0.5",
    "check_mae": "Mean absolute difference from the known scores of the check items",
    "seconds_per_item": "Median seconds per rated item",
}
REFRESH_DELAY_MS = 2000
CARELESS_TIP = ("The STS 2012 rule: leave out of agreement and gold every worker whose "
                "Pearson with the check items' known scores is below the threshold. One "
                "logged step; Edit > Undo (Ctrl+Z) counts them again.")
NO_CHECKS_TIP = ("This project has no check items, so there is nothing to judge workers "
                 "by. Mark items with known scores with `simrate checks`.")


def compute_report(project_path) -> list[dict]:
    """The annotator report, on a connection of our own (a worker-thread function)."""
    from simrate.core.team.quality import annotator_report

    with Project.open(project_path) as project:
        return annotator_report(project)


class AnnotatorReportModel(QAbstractTableModel):
    """Rows of the annotator report; the Counted column is checkable and writes through."""

    #: A write was refused: the message.
    failed = Signal(str)

    def __init__(self, project: Project, by: str = "", parent=None):
        super().__init__(parent)
        self.project = project
        self.by = by
        self.rows: list[dict] = []
        self._italic = QFont()
        self._italic.setItalic(True)

    def set_rows(self, rows: list[dict]) -> None:
        """Show a freshly computed report."""
        self.beginResetModel()
        self.rows = [dict(r) for r in rows]
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """One row per annotator."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """The columns of COLUMNS."""
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles and what they mean."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        key, title, _ = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return title
        if role == Qt.ItemDataRole.ToolTipRole:
            return TOOLTIPS.get(key)
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """The Counted column is checkable."""
        base = super().flags(index)
        if index.isValid() and index.column() == 0:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Figures as text (en dash when undefined); excluded raters in italics."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        key, _title, number = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.CheckStateRole and key == "excluded":
            return Qt.CheckState.Unchecked if row["excluded"] else Qt.CheckState.Checked
        if role == Qt.ItemDataRole.UserRole:
            return _sort_value(row, key, number)
        if role == Qt.ItemDataRole.DisplayRole:
            if key == "excluded":
                return None
            value = row.get(key)
            if value is None and row.get(f"{key}_reason"):
                return "n/a"  # as `annotators` and `agreement` print it
            if value is None:
                return "" if key == "flag_reason" else "\u2013"
            return number.format(value) if number else str(value)
        if role == Qt.ItemDataRole.FontRole and row["excluded"]:
            return self._italic
        if role == Qt.ItemDataRole.ForegroundRole and key == "flag_reason" and row["flagged"]:
            return WARNING_COLOUR
        if role == Qt.ItemDataRole.TextAlignmentRole and number:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and row.get(f"{key}_reason"):
            return f"n/a: undefined because {row[f'{key}_reason']}"
        if role == Qt.ItemDataRole.ToolTipRole and key == "flag_reason" and row["flagged"]:
            return f"{row['annotator']} looks careless on the check items: {row['flag_reason']}"
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Ticking Counted includes the rater; unticking excludes them (written at once)."""
        if (not index.isValid() or index.column() != 0
                or role != Qt.ItemDataRole.CheckStateRole):
            return False
        row = self.rows[index.row()]
        excluded = Qt.CheckState(value) != Qt.CheckState.Checked
        if excluded == row["excluded"]:
            return False
        try:
            self.project.set_excluded(row["annotator"], excluded, by=self.by)
        except SimrateError as exc:
            self.failed.emit(str(exc))
            return False
        row["excluded"] = excluded
        self.dataChanged.emit(self.index(index.row(), 0),
                              self.index(index.row(), len(COLUMNS) - 1),
                              [Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.FontRole])
        return True


def _sort_value(row: dict, key: str, number: str | None):
    """What a column sorts by: numbers as numbers (undefined after all of them), names
    without case, Counted before excluded."""
    if key == "excluded":
        return int(row["excluded"])
    value = row.get(key)
    if number:
        return math.inf if value is None else float(value)
    return (value or "").casefold()


def _names(names: list[str], shown: int = 8) -> str:
    """`a, b, c`, or the first few and how many more (a crowd has hundreds)."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown:,} more"


class AnnotatorReport(QWidget):
    """The report table with its refresh machinery."""

    def __init__(self, project: Project, bridge, by: str = "",
                 runner: JobRunner | None = None, parent: QWidget | None = None,
                 undo_stack: QUndoStack | None = None):
        super().__init__(parent)
        self.project = project
        self.by = by
        self.runner = runner or JobRunner(parent=self)
        # the window's stack (Ctrl+Z); a stack of our own when the report stands alone
        self.undo_stack = undo_stack if undo_stack is not None else QUndoStack(self)
        self.model = AnnotatorReportModel(project, by, self)
        self.proxy = SortFilterProxy(1, self)  # filtered by the annotator's name
        self.proxy.setSourceModel(self.model)
        self.computed_at = 0.0
        self._job: Job | None = None
        self._again = False
        self.table = self._table()
        self.status_label = QLabel("Computing\u2026")
        self.status_label.setWordWrap(True)
        self.message_label = QLabel()  # what the last exclusion did
        self.message_label.setWordWrap(True)
        self.message_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(self._tools())
        layout.addWidget(self.status_label)
        layout.addWidget(self.message_label)
        layout.addWidget(self.table, 1)
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self.model.failed.connect(self.status_label.setText)
        bridge.changed.connect(self._on_change)
        self.refresh()

    def _table(self) -> QTableView:
        table = named(QTableView(), "Annotators")
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
        table.verticalHeader().hide()
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        return table

    def _tools(self) -> QHBoxLayout:
        """The name filter, the check-item rule and Refresh."""
        self.filter_edit = filter_field(self.proxy, "Filter by name")
        self.careless_button = QPushButton(
            f"Exclude careless (check r < {DEFAULT_CHECK_THRESHOLD:g})")
        self.careless_button.setToolTip(CARELESS_TIP)
        self.careless_button.clicked.connect(self.exclude_careless)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.careless_button)
        top.addWidget(refresh)
        return top

    def exclude_careless(self) -> None:
        """Apply the check-item rule as one undoable step, and say whom it excluded."""
        action = ExcludeCareless(DEFAULT_CHECK_THRESHOLD, by=self.by)
        try:
            done = push_action(self.undo_stack, self.project, action,
                               on_error=lambda exc: self._say(str(exc)))
        except SimrateError as exc:
            self._say(f"Nobody was excluded: {exc}")
            return
        if not done:
            self._say(f"No counted worker has a check-item r below "
                      f"{DEFAULT_CHECK_THRESHOLD:g}: nobody was excluded.")
            return
        self._say(f"{action.describe(self.project.scale)}: {_names(action.excluded)}. "
                  "Edit > Undo (Ctrl+Z) counts them again.")

    def _say(self, text: str) -> None:
        self.message_label.setText(text)
        self.message_label.show()

    def _on_change(self, event: Event) -> None:
        if not isinstance(event, AdjudicationChanged):
            self._timer.start(0 if isinstance(event, AnnotatorExcluded) else REFRESH_DELAY_MS)

    def refresh(self) -> None:
        """Recompute the report in the background (one job at a time)."""
        if self._job is not None:
            self._again = True
            return
        self._again = False
        path = self.project.path
        self._job = self.runner.start(lambda job: compute_report(path), finished=self._on_report,
                                      failed=self._on_failed)

    def _on_report(self, rows: list[dict]) -> None:
        self._job = None
        self.model.set_rows(rows)
        self._hide_empty_columns(rows)
        self.computed_at = time.time()
        flagged = [r["annotator"] for r in rows if r["flagged"]]
        stamp = time.strftime("%H:%M:%S", time.localtime(self.computed_at))
        text = f"{len(rows)} annotator{'s' * (len(rows) != 1)}, as of {stamp}"
        if flagged:
            text += f" \u2013 check items flag {_names(flagged)}"
        self.status_label.setText(text)
        if self._again:
            self.refresh()

    def _hide_empty_columns(self, rows: list[dict]) -> None:
        """Leave out the check-item columns without check items, the time without times."""
        no_checks = not any(r["checks"] for r in rows)
        no_times = all(r["seconds_per_item"] is None for r in rows)
        self.careless_button.setEnabled(not no_checks)
        self.careless_button.setToolTip(NO_CHECKS_TIP if no_checks else CARELESS_TIP)
        for column, (key, _title, _fmt) in enumerate(COLUMNS):
            hidden = (no_checks and key in ("checks", "check_pearson", "check_mae")
                      or no_times and key == "seconds_per_item")
            self.table.setColumnHidden(column, hidden)

    def _on_failed(self, exc: SimrateError) -> None:
        self._job = None
        self.status_label.setText(f"The report could not be computed: {exc}")
