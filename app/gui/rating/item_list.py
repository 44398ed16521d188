"""ItemListPanel: every item in a table, filtered and searched; double-click jumps to one."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.gui.base.context import ApplicationContext
from simrate.gui.kit.accessible import named
from simrate.gui.rating.item_model import (
    COL_DATASET,
    COL_GENRE,
    COL_ID,
    COL_LEFT,
    COL_RATING,
    COL_RIGHT,
    FILTERS,
    ItemTableModel,
)

FILTER_TITLES = {"all": "All items", "unrated": "Unrated", "rated": "Rated",
                 "skipped": "Skipped"}
#: Milliseconds of typing pause before a search runs.
SEARCH_DELAY_MS = 250


class ItemListPanel(QWidget):
    """The item table with its filter and search box."""

    #: The user chose an item (double-click or Enter) or pressed Esc: focus should go back
    #: to the rating.
    item_chosen = Signal()

    def __init__(self, context: ApplicationContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = context.opened()[1]
        self.model = ItemTableModel(self.session, self)
        self.filter_box = QComboBox()
        for name in FILTERS:
            self.filter_box.addItem(FILTER_TITLES[name], name)
        self.filter_box.currentIndexChanged.connect(self._on_filter_changed)
        self.search_edit = named(QLineEdit(), "Search items")
        self.search_edit.setPlaceholderText("Search text or id (Ctrl+F)")
        self.search_edit.setClearButtonEnabled(True)
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._run_search)
        self.search_edit.textChanged.connect(self._search_timer.start)
        self.search_edit.returnPressed.connect(self._run_search)
        self.count_label = QLabel()
        self.count_label.setObjectName("itemCount")
        self.table = self._build_table()

        controls = QHBoxLayout()
        controls.addWidget(self.filter_box)
        controls.addWidget(self.search_edit, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)

        for signal in (self.model.modelReset, self.model.rowsInserted, self.model.rowsRemoved):
            signal.connect(self._update_count)
        self.model.modelReset.connect(lambda: self.select_row(self.session.current_row))
        self.session.current_changed.connect(self.select_row)
        self.session.details_loaded.connect(lambda: self._fit_columns(self.table))
        self._update_count()
        # Esc anywhere in the list (the search box included) goes back to rating, as the
        # rating view's own Esc does; what was typed is searched first
        back = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        back.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        back.activated.connect(self._back_to_rating)

    def _back_to_rating(self) -> None:
        self._run_search()
        self.item_chosen.emit()

    def _build_table(self) -> QTableView:
        table = named(QTableView(), "Items")
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setWordWrap(False)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setAlternatingRowColors(True)
        table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # Fixed row heights: Qt then never measures 200,000 rows to lay out the scroll bar.
        rows = table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(table.fontMetrics().height() + 8)
        rows.hide()
        columns = table.horizontalHeader()
        columns.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        columns.setStretchLastSection(False)
        self._fit_columns(table)
        for column in (COL_LEFT, COL_RIGHT):
            columns.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        # Double-click and Enter both activate an item.
        table.activated.connect(self._on_activated)
        return table

    def _fit_columns(self, table: QTableView) -> None:
        """Narrow columns sized to their contents (sampled: never a pass over every row)."""
        metrics = table.fontMetrics()
        session = self.session

        def fit(texts: list[str], cap: int) -> int:
            widest = max((metrics.horizontalAdvance(t) for t in texts), default=0)
            return min(cap, widest + 2 * metrics.averageCharWidth() + 8)

        sample = range(min(session.n, 500))
        table.setColumnWidth(COL_ID, fit(["Id"] + [session.short_id(r) for r in sample],
                                         16 * metrics.averageCharWidth()))
        table.setColumnWidth(COL_DATASET, fit(["Dataset", *session.dataset_names],
                                              14 * metrics.averageCharWidth()))
        table.setColumnWidth(COL_GENRE, fit(["Genre", *session.genre_names],
                                            11 * metrics.averageCharWidth()))
        table.setColumnWidth(COL_RATING, fit(["Your rating"], 200))
        # A dataset or genre column with one value for every row says nothing: hide it.
        table.setColumnHidden(COL_DATASET, len(session.dataset_names) <= 1)
        table.setColumnHidden(COL_GENRE, len(session.genre_names) <= 1)

    # ----------------------------------------------------------- filter and search
    def set_filter(self, name: str) -> None:
        """Show all, unrated, rated or skipped items."""
        self.filter_box.setCurrentIndex(list(FILTERS).index(name))

    def _on_filter_changed(self, index: int) -> None:
        self.model.set_filter(self.filter_box.itemData(index))

    def _run_search(self) -> None:
        self._search_timer.stop()
        if self.search_edit.text().strip() != self.model.search_text:
            self.model.set_search(self.search_edit.text())

    def focus_search(self) -> None:
        """Put the keyboard in the search box."""
        self.search_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_edit.selectAll()

    def _update_count(self, *_args) -> None:
        shown, total = self.model.rowCount(), self.session.n
        self.count_label.setText(f"{shown:,} of {total:,} items shown")

    # ----------------------------------------------------------- following the rating view
    def select_row(self, source_row: int) -> None:
        """Select (and scroll to) the item shown in the rating view, when it is listed."""
        model_row = self.model.model_row(source_row) if source_row >= 0 else -1
        selection = self.table.selectionModel()
        if model_row < 0:
            selection.clearSelection()
            return
        index = self.model.index(model_row, COL_ID)
        selection.setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def _on_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.session.go_to(self.model.source_row(index.row()))
            self.item_chosen.emit()
