"""Dashboard: live agreement for the organizer.

Alpha over all items and over the unadjudicated ones with their 95% intervals, the same by
dataset or genre (the CLSS paper's Table 4 for this project), pairwise Pearson as a heatmap,
each rater's score distribution, and the counts of rated, flagged and adjudicated items.
The figures come from an AgreementWatcher; this module only shows them.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.agreement.batch import LEVELS
from simrate.core.agreement.scopes import ALL, OVERALL, UNADJUDICATED, ScopeRow
from simrate.core.base.names import UNDISPUTED_NAME, UNDISPUTED_NOTE
from simrate.gui.agreement import agreement_watch as watch
from simrate.gui.agreement import dashboard_parts as parts
from simrate.gui.agreement.distribution_chart import DistributionChart
from simrate.gui.agreement.gold_panel import GoldPanel
from simrate.gui.agreement.machine_panel import MachinePanel, MachineWatch
from simrate.gui.agreement.pearson_view import PearsonView
from simrate.gui.agreement.rater_table import TOP_N
from simrate.gui.kit.accessible import named

_Index = QModelIndex | QPersistentModelIndex
ALPHA = "\u03b1"
#: Dashboard widths (pixels) from which the sections sit side by side, and from which the
#: table has room for its interval columns in the one-column layout.
WIDE, NARROW_TABLE = 1000, 560
INTERVAL_COLUMNS = (3, 6)


def format_alpha(value: float | None) -> str:
    """`0.907`, or an en dash when alpha is undefined."""
    return "\u2013" if value is None else f"{value:.3f}"


def format_interval(interval: tuple[float, float] | None) -> str:
    """`0.894\u20130.921`, or '' when there is none (yet)."""
    return "" if interval is None else f"{interval[0]:.3f}\u2013{interval[1]:.3f}"


class AgreementTableModel(QAbstractTableModel):
    """Table 4: per group, alpha over all items and over unadjudicated ones, with intervals."""

    HEADERS = ("Items", f"{ALPHA} all", "95% CI", "Undisputed items", f"{ALPHA} undisputed",
               "95% CI")

    def __init__(self, watcher: watch.AgreementWatcher, grouping: str = "dataset", parent=None):
        super().__init__(parent)
        self.watcher = watcher
        self.grouping = grouping
        self._rows: list[ScopeRow] = []
        self._bold = QFont()
        self._bold.setBold(True)
        self.refresh()

    def set_grouping(self, grouping: str) -> None:
        """Group rows by `dataset` or `genre`."""
        if grouping != self.grouping:
            self.grouping = grouping
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, 0)
            self.refresh(intervals_changed=True)

    def refresh(self, intervals_changed: bool = False) -> None:
        """Reread the figures; a reset only when the groups themselves changed."""
        rows = self.watcher.table(self.grouping)
        if rows == self._rows and not intervals_changed:
            return
        if [r.group for r in rows] != [r.group for r in self._rows]:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
        elif rows:
            self._rows = rows
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, 6),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """One row per group and one for the whole project."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Group, then HEADERS."""
        return 0 if parent.isValid() else 1 + len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles."""
        if role != Qt.ItemDataRole.DisplayRole or orientation != Qt.Orientation.Horizontal:
            return None
        titles = (self.grouping.capitalize(), *self.HEADERS)
        return titles[section] if 0 <= section < len(titles) else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Cells as text; the whole-project row in bold."""
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and row.grouping == OVERALL:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole and column in (2, 5):
            return self._tooltip(row, column)
        return None

    def _tooltip(self, row: ScopeRow, column: int) -> str:
        if self._display(row, column) == "\u2013":
            return "Undefined: no item with two or more ratings, or no variation in them"
        interval = self._display(row, column + 1)
        return f"95% bootstrap interval {interval}" if interval else "Interval not computed yet"

    def _display(self, row: ScopeRow, column: int) -> str:
        if column == 0:
            return "All items" if row.grouping == OVERALL else (row.group or "(none)")
        key = (row.grouping, row.group)
        values = (f"{row.items:,}", format_alpha(row.alpha),
                  format_interval(self.watcher.interval((*key, ALL))),
                  f"{row.unadjudicated_items:,}", format_alpha(row.alpha_unadjudicated),
                  format_interval(self.watcher.interval((*key, UNADJUDICATED))))
        return values[column - 1]


class Dashboard(QWidget):
    """The organizer's agreement panel."""

    def __init__(self, watcher: watch.AgreementWatcher, parent: QWidget | None = None,
                 extra: dict[str, QWidget] | None = None):
        super().__init__(parent)
        self.watcher = watcher
        self.project = watcher.project
        self.extra = dict(extra or {})  # sections of the full-window view (agreement_view)
        self._build()
        watcher.updated.connect(self.refresh)
        watcher.intervals_updated.connect(self.refresh_intervals)
        watcher.failed.connect(self._show_failure)
        self.machine_watch.failed.connect(self._show_failure)
        self.refresh()

    # ------------------------------------------------------------------ widgets
    def _build(self) -> None:
        self.pearson = PearsonView(self.project)
        self.heatmap = self.pearson.heatmap
        self.watcher.bridge.changed.connect(self.pearson.model.note)
        self.machines = MachinePanel()
        self.machine_watch = MachineWatch(self.project, self.watcher.bridge,
                                          self.watcher.runner, self)
        self.machine_watch.updated.connect(self._on_machine_report)
        self.distribution = DistributionChart(self.project.scale)
        self.distribution.setMinimumHeight(230)
        self.excluded_label = QLabel()
        self.distribution_title = parts.section_title("Distribution of each rater's scores")
        self.excluded_label.setWordWrap(True)
        self.sections = {
            "summary": self._summary_section(),
            "table": self._table_section(),
            "heatmap": parts.box(self.pearson, self.machines),
            "distribution": parts.box(self.distribution_title, self.distribution,
                                 self.excluded_label),
            **self.extra,
        }
        content = QWidget()
        self.grid = QGridLayout(content)
        self.grid.setContentsMargins(10, 8, 10, 8)
        self.grid.setHorizontalSpacing(24)
        self.grid.setVerticalSpacing(14)
        self.wide: bool | None = None
        self._arrange(False)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def _summary_section(self) -> QWidget:
        """Level choice, the two alphas with their intervals, the counts."""
        self.level_combo = QComboBox()
        self.level_combo.addItems(LEVELS)
        self.level_combo.setToolTip("Level of measurement of every alpha shown")
        self.level_combo.currentTextChanged.connect(self.watcher.set_level)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setObjectName("dashboardStatus")
        self.status_label.hide()  # until a background computation fails
        top = QHBoxLayout()
        top.addWidget(QLabel("Level:"))
        top.addWidget(self.level_combo)
        top.addStretch(1)
        self.gold = GoldPanel(self.watcher)
        return parts.box(top, self.status_label, self._headline(), self.gold, parts.rule(),
                         self._counts())

    def _headline(self) -> QGridLayout:
        """Alpha over all items, large (the figure to report); the undisputed, smaller."""
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 2.0)
        big.setBold(True)
        smaller = QFont(big)
        smaller.setPointSizeF(self.font().pointSizeF() * 1.3)
        self.alpha_label, self.alpha_unadjudicated_label = QLabel(), QLabel()
        self.alpha_label.setObjectName("alphaAll")
        self.alpha_unadjudicated_label.setObjectName("alphaUnadjudicated")
        self.interval_label, self.interval_unadjudicated_label = QLabel(), QLabel()
        self.alpha_caption, self.unadjudicated_caption = QLabel(), QLabel()
        self.undisputed_note = QLabel(UNDISPUTED_NOTE[:1].upper() + UNDISPUTED_NOTE[1:] + ".")
        self.undisputed_note.setWordWrap(True)
        headline = QGridLayout()
        headline.setHorizontalSpacing(18)
        for column, (value, interval, caption, font) in enumerate((
                (self.alpha_label, self.interval_label, self.alpha_caption, big),
                (self.alpha_unadjudicated_label, self.interval_unadjudicated_label,
                 self.unadjudicated_caption, smaller))):
            value.setFont(font)
            caption.setWordWrap(True)
            headline.addWidget(caption, 0, column)
            headline.addWidget(value, 1, column)
            headline.addWidget(interval, 2, column)
        headline.addWidget(self.undisputed_note, 3, 0, 1, 2)
        return headline

    def _counts(self) -> QGridLayout:
        self.count_labels: dict[str, QLabel] = {}
        counts = QGridLayout()
        counts.setHorizontalSpacing(18)
        for i, (key, caption) in enumerate((
                ("rated", "items rated"), ("pairable", "with 2+ ratings"),
                ("ratings", "ratings"), ("flagged", "flagged"),
                ("second_look", "second look"), ("adjudicated", "adjudicated"))):
            value = parts.stat_label()
            self.count_labels[key] = value
            counts.addWidget(value, (i // 3) * 2, i % 3)
            counts.addWidget(QLabel(caption), (i // 3) * 2 + 1, i % 3)
        return counts

    def _table_section(self) -> QWidget:
        """Table 4: alpha per dataset or genre, all items and unadjudicated ones."""
        self.grouping_combo = QComboBox()
        self.grouping_combo.addItems(["dataset", "genre"])
        self.grouping_combo.currentTextChanged.connect(self._on_grouping)
        self.table_model = AgreementTableModel(self.watcher, "dataset", self)
        self.table = named(QTableView(), "Agreement by subset")
        self.table.setModel(self.table_model)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        grouping_row = QHBoxLayout()
        grouping_row.addWidget(parts.section_title("Agreement by"))
        grouping_row.addWidget(self.grouping_combo)
        grouping_row.addStretch(1)
        return parts.box(grouping_row, self.table)

    def _arrange(self, wide: bool) -> None:
        """One column in a narrow dock; two (summary and table left, charts right) when wide."""
        if wide != self.wide:
            self.wide = wide
            for widget in self.sections.values():
                self.grid.removeWidget(widget)
            # wide: the Pearson section (tall in a crowd) on the right beside all the others;
            # the empty row 3 takes its extra height, so the left ones stay together
            places = ({"summary": (0, 0, 1), "table": (1, 0, 1), "heatmap": (0, 1, 4),
                       "distribution": (2, 0, 1)} if wide else
                      {"summary": (0, 0, 1), "table": (1, 0, 1), "heatmap": (2, 0, 1),
                       "distribution": (3, 0, 1)})
            if "over_time" in self.sections:
                right, stack = self._right_column()
                if wide:  # a right column of its own: heatmap, then over time below it
                    del places["heatmap"]
                    stack.addWidget(self.sections["heatmap"])
                    stack.addWidget(self.sections["over_time"], 1)
                    self.grid.addWidget(right, 0, 1, 4, 1)
                    right.show()
                else:
                    places["over_time"] = (4, 0, 1)
                    for name in ("heatmap", "over_time"):
                        stack.removeWidget(self.sections[name])
                    self.grid.removeWidget(right)
                    right.hide()
            for name, (row, column, rows) in places.items():
                align = Qt.AlignmentFlag(0) if name == "over_time" else Qt.AlignmentFlag.AlignTop
                self.grid.addWidget(self.sections[name], row, column, rows, 1, align)
            stretch_row = (3 if wide else 4) + ("over_time" in self.sections and not wide)
            for row in range(6):
                self.grid.setRowStretch(row, 1 if row == stretch_row else 0)
            self.grid.setColumnStretch(0, 1)
            self.grid.setColumnStretch(1, 1 if wide else 0)
        # The intervals need room; in a narrow dock they move into the alpha cells' tooltips.
        narrow = not wide and self.width() < NARROW_TABLE
        for column in INTERVAL_COLUMNS:
            self.table.setColumnHidden(column, narrow)

    def _right_column(self) -> tuple[QWidget, QVBoxLayout]:
        """The wide layout's right column when it holds more than the heatmap: its own
        layout, so a tall heatmap (a crowd) leaves no gaps between the left column's parts."""
        if getattr(self, "_column", None) is None:
            self._column = QWidget()
            self._column_layout = QVBoxLayout(self._column)
            self._column_layout.setContentsMargins(0, 0, 0, 0)
            self._column_layout.setSpacing(14)
        return self._column, self._column_layout

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Re-flow the sections for the new width."""
        super().resizeEvent(event)
        self._arrange(self.width() >= WIDE)

    # ------------------------------------------------------------------ refreshing
    def _show_failure(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(True)

    def _on_machine_report(self, report: dict, counts: dict) -> None:
        self.machines.show_report(report)
        self.pearson.set_machine_report(report, counts)

    def _on_grouping(self, grouping: str) -> None:
        self.table_model.set_grouping(grouping)

    def refresh(self) -> None:
        """Show the current figures (called after each burst of changes)."""
        head = self.watcher.headline()
        level = head.level
        self.alpha_caption.setText(f"Krippendorff's {ALPHA} ({level}), all "
                                   f"{head.rated_items:,} rated items")
        self.unadjudicated_caption.setText(f"{ALPHA} over the {head.unadjudicated_items:,} "
                                           f"{UNDISPUTED_NAME} items only")
        self.alpha_label.setText(format_alpha(head.alpha))
        self.alpha_unadjudicated_label.setText(format_alpha(head.alpha_unadjudicated))
        counts = {"rated": f"{head.rated_items:,} / {head.items:,}",
                  "pairable": f"{head.pairable_items:,}", "ratings": f"{head.ratings:,}",
                  "flagged": f"{head.flagged:,}", "second_look": f"{head.second_look:,}",
                  "adjudicated": f"{head.adjudicated:,}"}
        for key, text in counts.items():
            self.count_labels[key].setText(text)
        self.table_model.refresh()
        self.pearson.refresh()
        self._show_distribution()
        excluded = sorted(self.watcher.engine.snapshot.excluded)
        self.excluded_label.setText(
            f"Not counted (excluded): {', '.join(excluded)}" if excluded else "")
        self.excluded_label.setVisible(bool(excluded))
        self._show_intervals()

    def _show_distribution(self) -> None:
        """Every rater's histogram; in a crowd, those of the heatmap's raters only."""
        engine = self.watcher.engine
        if len(engine.raters) <= TOP_N:
            self.distribution_title.setText("Distribution of each rater's scores")
            self.distribution.set_data(engine.raters, engine.histograms)
            return
        rows = [engine.raters.index(name) for name in self.pearson.shown]
        self.distribution_title.setText("Distribution of the scores of the raters in the "
                                        "heatmap")
        self.distribution.set_data(self.pearson.shown, engine.histograms[rows])

    def refresh_intervals(self) -> None:
        """Show the latest bootstrap intervals (or say they are coming)."""
        self._show_intervals()
        self.table_model.refresh(intervals_changed=True)

    def _show_intervals(self) -> None:
        for label, key in ((self.interval_label, watch.OVERALL_ALL),
                           (self.interval_unadjudicated_label, watch.OVERALL_UNADJUDICATED)):
            interval = self.watcher.interval(key)
            if interval is not None:
                label.setText(f"95% interval {format_interval(interval)}")
            else:
                label.setText("95% interval: undefined" if self.watcher.has_intervals
                              else "95% interval: computing\u2026")
        if self.watcher.intervals_at:
            stamp = time.strftime("%H:%M:%S", time.localtime(self.watcher.intervals_at))
            tip = (f"Unit bootstrap, 1,000 resamples; computed at {stamp} and refreshed "
                   "in the background a moment after the ratings change")
            self.interval_label.setToolTip(tip)
            self.interval_unadjudicated_label.setToolTip(tip)
