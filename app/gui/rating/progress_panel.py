"""ProgressPanel: how much this annotator has rated, overall and per dataset, and how fast."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.session import AnnotatorSession
from simrate.gui.kit.accessible import named

_Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Dataset", "Rated", "Skipped", "Total", "Done")


def duration(seconds: float) -> str:
    """`45 s`, `12 min`, `3 h 20 min`: a rounded human duration."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class DatasetProgressModel(QAbstractTableModel):
    """One row per dataset: rated, skipped, total and the share done, for one annotator."""

    def __init__(self, session: AnnotatorSession, parent=None):
        super().__init__(parent)
        self.session = session
        self._rows = session.dataset_counts()

    def refresh(self) -> None:
        """Recount from the session; a reset only when the datasets themselves changed."""
        rows = self.session.dataset_counts()
        if [r[0] for r in rows] != [r[0] for r in self._rows]:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
            return
        self._rows = rows
        if rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(rows) - 1, len(HEADERS) - 1),
                                  [Qt.ItemDataRole.DisplayRole])

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """One row per dataset."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Dataset, rated, skipped, total, done."""
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles."""
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(HEADERS)):
            return HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Counts as text, right-aligned."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        name, rated, skipped, total = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            done = f"{100 * (rated + skipped) / total:.0f}%" if total else ""
            return (name or "(no dataset)", f"{rated:,}", f"{skipped:,}", f"{total:,}",
                    done)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ProgressPanel(QWidget):
    """Overall progress bar, per-dataset table, time per item."""

    def __init__(self, context: ApplicationContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = context.opened()[1]
        self.summary_label = QLabel()
        self.summary_label.setObjectName("progressSummary")
        self.bar = QProgressBar()
        self.bar.setTextVisible(True)
        self.pace_label = QLabel()
        self.pace_label.setWordWrap(True)
        self.model = DatasetProgressModel(self.session, self)
        table = named(QTableView(), "Progress by dataset")
        table.setModel(self.model)
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table = table
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.bar)
        layout.addWidget(self.pace_label)
        layout.addWidget(table, 1)
        # Counting is cheap (a bincount), but it need not happen inside the keystroke: batch it.
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.refresh)
        self.session.row_changed.connect(self._timer.start)
        self.session.reset.connect(self._timer.start)
        self.session.details_loaded.connect(self._timer.start)
        self.refresh()

    def refresh(self) -> None:
        """Recount and redraw."""
        counts = self.session.counts()
        total, rated, skipped = counts["total"], counts["rated"], counts["skipped"]
        done = rated + skipped
        self.summary_label.setText(
            f"<b>{rated:,}</b> of {total:,} rated" + (f", {skipped:,} skipped" if skipped else ""))
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(done)
        self.bar.setFormat(f"{100 * done / total:.1f}%" if total else "no items")
        self.model.refresh()
        self.pace_label.setText(self._pace(counts["unrated"]))

    def _pace(self, remaining: int) -> str:
        median = self.session.median_seconds()
        if median is None:
            return "Time per item: shown once you have rated a few items."
        parts = [f"Time per item: {median:.1f} s (median)"]
        if self.session.session_count:
            mean = self.session.session_seconds / self.session.session_count
            parts.append(f"this session {self.session.session_count:,} items, "
                         f"{mean:.1f} s each")
        if remaining:
            parts.append(f"about {duration(remaining * median)} left at this pace")
        return "; ".join(parts) + "."
