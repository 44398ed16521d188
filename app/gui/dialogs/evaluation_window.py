"""EvaluationWindow: score system outputs against gold files as CLSS 2014, STS 2012 or PIT 2015
did (app/core/machine/evaluation.py), see the table, copy it as TSV.

Files are read and scored in the background; an unreadable file is reported with its
name and line, as the command line does (`simrate evaluate`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.machine.evaluation import (
    DATASET_MEASURES,
    MEASURE_LABELS,
    TASKS,
    TOTAL_MEASURES,
    EvaluationReport,
    Measure,
)
from simrate.core.machine.evaluation_text import TITLES, format_report
from simrate.gui.base.jobs import JobRunner
from simrate.gui.kit.accessible import named
from simrate.gui.kit.closing import close_button
from simrate.gui.kit.file_dialogs import get_open_file_name
from simrate.gui.kit.palette import ERROR_COLOUR, colour_style
from simrate.services.imports.evaluation import evaluate_files

_Index = QModelIndex | QPersistentModelIndex
TOTAL_ROW = "All datasets"


def report_columns(task: str) -> list[str]:
    """Measure keys shown as columns: per-dataset measures, then those only totals have."""
    keys = list(DATASET_MEASURES[task])
    return keys + [k for k in TOTAL_MEASURES[task] if k not in keys]


class FilePairsModel(QAbstractTableModel):
    """The (gold, system) file pairs to evaluate."""

    HEADERS = ("Gold", "System output")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pairs: list[tuple[str, str]] = []

    def add(self, gold: str, system: str) -> None:
        """Append a pair."""
        row = len(self.pairs)
        self.beginInsertRows(QModelIndex(), row, row)
        self.pairs.append((gold, system))
        self.endInsertRows()

    def remove(self, row: int) -> None:
        """Remove the pair at `row`."""
        if 0 <= row < len(self.pairs):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.pairs[row]
            self.endRemoveRows()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """One row per pair."""
        return 0 if parent.isValid() else len(self.pairs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Gold, system."""
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles."""
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < 2):
            return self.HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """File names; the full path as tooltip."""
        if not index.isValid() or index.row() >= len(self.pairs):
            return None
        path = self.pairs[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return Path(path).name
        if role == Qt.ItemDataRole.ToolTipRole:
            return path
        return None


class EvaluationTableModel(QAbstractTableModel):
    """One row per dataset and a last row over all of them; undefined values explained."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.report: EvaluationReport | None = None
        self.keys: list[str] = []
        self._bold = QFont()
        self._bold.setBold(True)

    def set_report(self, report: EvaluationReport | None) -> None:
        """Show an evaluation report (None: empty)."""
        self.beginResetModel()
        self.report = report
        self.keys = report_columns(report.task) if report else []
        self.endResetModel()

    def _has_total_row(self) -> bool:
        return self.report is not None and (self.report.task != "pit"
                                            or len(self.report.datasets) > 1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """Datasets, then the totals."""
        if parent.isValid() or self.report is None:
            return 0
        return len(self.report.datasets) + int(self._has_total_row())

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Dataset, pairs, then the task's measures."""
        return 0 if parent.isValid() or self.report is None else 2 + len(self.keys)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles."""
        if role != Qt.ItemDataRole.DisplayRole or orientation != Qt.Orientation.Horizontal:
            return None
        titles = ["Dataset", "Pairs", *(MEASURE_LABELS[k] for k in self.keys)]
        return titles[section] if 0 <= section < len(titles) else None

    def _shown(self) -> EvaluationReport:
        """The report on show (the table has cells only while there is one)."""
        if self.report is None:
            raise LookupError("no evaluation report is shown")
        return self.report

    def measure(self, row: int, column: int) -> Measure | None:
        """The measure in a cell, or None when the cell has none."""
        key, report = self.keys[column - 2], self._shown()
        if row < len(report.datasets):
            return report.datasets[row].measures.get(key)
        return report.totals.get(key)

    def cell_text(self, row: int, column: int, undefined: str = "n/a") -> str:
        """A cell as text: numbers at four decimals; `undefined` for an undefined measure."""
        datasets = self._shown().datasets
        if column == 0:
            return datasets[row].name if row < len(datasets) else TOTAL_ROW
        if column == 1:
            return str(datasets[row].n if row < len(datasets) else sum(d.n for d in datasets))
        measure = self.measure(row, column)
        if measure is None:
            return ""
        return measure.text() if measure.defined else undefined

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Cell texts; the reason as tooltip where a measure is undefined."""
        if not index.isValid() or self.report is None or index.row() >= self.rowCount():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell_text(row, column)
        if role == Qt.ItemDataRole.ToolTipRole and column >= 2:
            measure = self.measure(row, column)
            return None if measure is None or measure.defined else measure.reason
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and row >= len(self.report.datasets):
            return self._bold
        return None

    def to_tsv(self) -> str:
        """The table as tab-separated text with a header row (undefined values empty)."""
        if self.report is None:
            return ""
        header = [self.headerData(c, Qt.Orientation.Horizontal) for c in
                  range(self.columnCount())]
        rows = [[self.cell_text(r, c, undefined="") for c in range(self.columnCount())]
                for r in range(self.rowCount())]
        return "".join("\t".join(cells) + "\n" for cells in [header, *rows])


class EvaluationWindow(QWidget):
    """Choose task, gold and system files; see and copy the scores."""

    def __init__(self, start_folder: str = "", runner: JobRunner | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Evaluate systems against gold \u2013 simrate")
        self.start_folder = start_folder
        self.runner = runner or JobRunner(parent=self)
        self.report: EvaluationReport | None = None
        self._build()
        self.runner.idle.connect(self._update_buttons)
        self._update_buttons()
        self.resize(900, 600)

    def _build(self) -> None:
        self.task_combo = QComboBox()
        for task in TASKS:
            self.task_combo.addItem(TITLES[task], task)
        self.pairs_model = FilePairsModel(self)
        self.pairs_view = named(QTableView(), "Gold and system files")
        self.pairs_view.setModel(self.pairs_model)
        self.pairs_view.verticalHeader().hide()
        self.pairs_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.pairs_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.pairs_model.rowsInserted.connect(self._update_buttons)
        self.pairs_model.rowsRemoved.connect(self._update_buttons)
        add = QPushButton("Add gold and system\u2026")
        add.clicked.connect(self.choose_pair)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.evaluate_button = QPushButton("Evaluate")
        self.evaluate_button.setDefault(True)
        self.evaluate_button.clicked.connect(self.evaluate)
        self.copy_button = QPushButton("Copy table as TSV")
        self.copy_button.setToolTip("Copy the table, tab separated, to paste into a "
                                    "spreadsheet or a paper")
        self.copy_button.clicked.connect(self.copy_table)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Task:"))
        controls.addWidget(self.task_combo)
        controls.addStretch(1)
        controls.addWidget(add)
        controls.addWidget(self.remove_button)
        controls.addWidget(self.evaluate_button)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.pairs_view)
        splitter.addWidget(self._results())
        splitter.setSizes([140, 460])
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(splitter, 1)
        layout.addLayout(self._bottom_row())

    def _bottom_row(self) -> QHBoxLayout:
        """Close, at the bottom right (Esc and Ctrl+W close too)."""
        self.close_button = close_button(self)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.close_button)
        return bottom

    def _results(self) -> QWidget:
        """The status line with Copy, the table, and the command line's text report."""
        self.status_label = QLabel("Add a gold file and a system output, then Evaluate.")
        self.status_label.setWordWrap(True)
        self.table_model = EvaluationTableModel(self)
        self.table = named(QTableView(), "Scores")
        self.table.setModel(self.table_model)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.details = named(QPlainTextEdit(), "Details")
        self.details.setReadOnly(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.details.setFont(mono)
        results = QWidget()
        results_layout = QVBoxLayout(results)
        results_layout.setContentsMargins(0, 0, 0, 0)
        copy_row = QHBoxLayout()
        copy_row.addWidget(self.status_label, 1)
        copy_row.addWidget(self.copy_button)
        results_layout.addLayout(copy_row)
        results_layout.addWidget(self.table, 2)
        results_layout.addWidget(QLabel("Details"))
        results_layout.addWidget(self.details, 1)
        return results

    def _update_buttons(self) -> None:
        has_pairs = self.pairs_model.rowCount() > 0
        self.evaluate_button.setEnabled(has_pairs and not self.runner.busy)
        self.remove_button.setEnabled(has_pairs)
        self.copy_button.setEnabled(self.report is not None)

    # ------------------------------------------------------------------ files
    def choose_pair(self) -> None:
        """Ask for a gold file, then for the system output scored against it."""
        gold, _ = get_open_file_name(self, "Choose the gold file", self.start_folder)
        if not gold:
            return
        self.start_folder = str(Path(gold).parent)
        system, _ = get_open_file_name(
            self, f"Choose the system output for {Path(gold).name}", self.start_folder)
        if system:
            self.add_pair(gold, system)

    def add_pair(self, gold: str | Path, system: str | Path) -> None:
        """Add a (gold, system) pair to evaluate."""
        self.pairs_model.add(str(gold), str(system))

    def remove_selected(self) -> None:
        """Remove the selected pair (the last one when none is selected)."""
        rows = self.pairs_view.selectionModel().selectedRows()
        row = rows[0].row() if rows else self.pairs_model.rowCount() - 1
        self.pairs_model.remove(row)

    def set_task(self, task: str) -> None:
        """Choose clss, sts or pit (anything else leaves the choice as it is)."""
        index = self.task_combo.findData(task)
        if index >= 0:
            self.task_combo.setCurrentIndex(index)

    # ------------------------------------------------------------------ evaluating
    def evaluate(self) -> None:
        """Read and score the files in the background."""
        task = self.task_combo.currentData()
        pairs = list(self.pairs_model.pairs)
        if not pairs:
            return
        self.status_label.setStyleSheet("")
        self.status_label.setText("Evaluating\u2026")
        self.runner.start(lambda job: evaluate_files(task, pairs), finished=self._on_report,
                          failed=self._on_failed)
        self._update_buttons()

    def _on_report(self, report: EvaluationReport) -> None:
        self.report = report
        self.table_model.set_report(report)
        self.details.setPlainText(format_report(report))
        count = len(report.datasets)
        measures = [m for d in report.datasets for m in d.measures.values()]
        undefined = any(not m.defined for m in [*measures, *report.totals.values()])
        self.status_label.setText(f"{TITLES[report.task]}: {count} dataset{'s' * (count != 1)}"
                                  + ("; point at n/a for the reason" if undefined else ""))
        self._update_buttons()

    def _on_failed(self, exc: SimrateError) -> None:
        self.report = None
        self.table_model.set_report(None)
        self.details.clear()
        self.status_label.setText(f"Cannot evaluate: {exc}")
        self.status_label.setStyleSheet(colour_style(ERROR_COLOUR))
        self._update_buttons()

    def copy_table(self) -> None:
        """Put the table on the clipboard as TSV."""
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.table_model.to_tsv())
            self.status_label.setText("Table copied to the clipboard (tab separated).")
