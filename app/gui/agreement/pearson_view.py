"""PearsonView: the dashboard's Pearson section, readable from 2 raters to a crowd of 500.

Up to TOP_N raters it is the heatmap of every pair, as it always was. With more, the
heatmap shows the TOP_N raters most in doubt (lowest r against the rest, among those with
enough shared ratings; fewer, down to FEWEST, when the dashboard is too narrow for TOP_N
columns), and a sortable, filterable table below lists every rater. Machine
raters are drawn after the people, marked as machines, with their r against each human
from the machine report.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.gui.agreement.heatmap import CorrelationHeatmap
from simrate.gui.agreement.rater_table import (
    MIN_OVERLAP,
    R_COLUMN,
    TOP_N,
    RaterRow,
    RaterTableModel,
)
from simrate.gui.base.row_model import SortFilterProxy, filter_field

#: Rows of the rater table shown before it scrolls.
TABLE_ROWS = 10
#: The fewest crowd raters the heatmap shows in a narrow dashboard.
FEWEST = 3


def crowd_names(project) -> set[str]:
    """The project's crowd (web) workers, marked in the rater table."""
    from simrate.core.team.web_study import crowd_workers

    return set(crowd_workers(project))


class PearsonView(QWidget):
    """Heatmap (all raters, or the TOP_N most in doubt) and, for a crowd, the rater table."""

    def __init__(self, project, parent: QWidget | None = None):
        super().__init__(parent)
        self.project = project
        self.machine_report: dict = {}
        self.shown: list[str] = []  # the people in the heatmap, in its order
        self.model = RaterTableModel(lambda: project.agreement.live, self)
        self.model.crowd_of = lambda: crowd_names(project)
        self.proxy = SortFilterProxy(0, self)
        self.proxy.setSourceModel(self.model)
        self.title = QLabel("Pearson r between raters")
        bold = QFont(self.title.font())
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setWordWrap(True)
        self.heatmap = CorrelationHeatmap()
        self.crowd = self._crowd_part()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.heatmap)
        layout.addWidget(self.crowd)
        layout.addStretch(1)  # spare height below, not between the heatmap and the table

    def _crowd_part(self) -> QWidget:
        self.filter_edit = filter_field(self.proxy, "Filter raters by name")
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(R_COLUMN, Qt.SortOrder.AscendingOrder)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        # fixed widths: sizing to contents would read all 500 rows after every edit
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.model.modelReset.connect(self._fit_columns)
        self.table.setMinimumHeight(header.sizeHint().height() + TABLE_ROWS
                                    * self.table.verticalHeader().defaultSectionSize() + 4)
        self.count_label = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.count_label, 1)
        top.addWidget(self.filter_edit)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table)
        return box

    def _fit_columns(self) -> None:
        """Columns wide enough for their titles and figures (after the rows were replaced)."""
        metrics = self.table.fontMetrics()
        for column in range(1, self.model.columnCount()):
            title = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            width = max(metrics.horizontalAdvance(t) for t in (title, "machine", "-0.000",
                                                                "000,000"))
            self.table.setColumnWidth(column, width + 24)

    # ------------------------------------------------------------------ refreshing
    def refresh(self) -> None:
        """Update the table's touched rows, then redraw the heatmap (after each burst)."""
        self.model.refresh()
        people = self.model.people()
        crowd = len(people) > TOP_N
        self.crowd.setVisible(crowd)
        live = self.project.agreement.live
        overlap = MIN_OVERLAP  # no pair, no rater coloured from a chance overlap
        self.heatmap.fewest = FEWEST if crowd else None
        if crowd:  # sparse workers: r over a handful of shared items says nothing
            top = self._top_fitting()
            names = self.model.top(top)
            self.title.setText(f"Pearson r: the {top} of {len(people):,} raters most in "
                               f"doubt (lowest r vs rest); \u2013 where two share fewer than "
                               f"{MIN_OVERLAP} items")
            self.count_label.setText(f"All {len(people):,} raters, most in doubt first; "
                                     "click a column to sort")
        else:
            names = [row.name for row in people]
            self.title.setText(f"Pearson r between raters; \u2013 where two share fewer "
                               f"than {MIN_OVERLAP} items")
        rest = {row.name: row.r if row.trusted else None for row in people}
        self.shown = names
        self._draw(names, live.pearson_among(names, overlap).tolist(),
                   [rest.get(n) for n in names])

    def _top_fitting(self) -> int:
        """How many crowd raters the heatmap shows: TOP_N, or as many as fit the width
        beside the machine raters' columns (at least FEWEST)."""
        room = self.heatmap.fitting(self.width()) - len(self.machine_report.get("machines", {}))
        return max(FEWEST, min(TOP_N, room))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """At a new width a crowd's heatmap may hold more or fewer raters."""
        super().resizeEvent(event)
        if self.crowd.isVisibleTo(self) and len(self.shown) != self._top_fitting():
            self.refresh()

    def _draw(self, names: list[str], matrix: list[list[float]], rest: list) -> None:
        """The people's grid, with the machine raters' rows and columns added."""
        machines = self.machine_report.get("machines", {})
        size = len(names) + len(machines)
        grid = [[*row, *([None] * len(machines))] for row in matrix]
        grid += [[None] * size for _ in machines]
        for k, entry in enumerate(machines.values()):
            m = len(names) + k
            grid[m][m] = 1.0
            for h, name in enumerate(names):
                grid[m][h] = grid[h][m] = entry["pearson"].get(name)
        self.heatmap.set_data([*names, *machines], grid,
                              [*rest, *(e["pearson_vs_humans"] for e in machines.values())],
                              machines=set(machines))

    def set_machine_report(self, report: dict, counts: dict[str, tuple[int, int]]) -> None:
        """Show the machine raters (from the background machine report) and redraw."""
        self.machine_report = report
        self.model.set_machines([
            RaterRow(name, True, entry["pearson_vs_humans"], *counts.get(name, (0, 0)))
            for name, entry in report.get("machines", {}).items()])
        self.refresh()
