"""ItemTableModel: the project's items as a table, filtered through an index array.

The model reads the session's per-row arrays lazily in `data()`; filtering keeps a sorted
NumPy array of the visible source rows, so 200,000 rows scroll and filter without a proxy.
A rating change touches one row: a `dataChanged` naming only the rating column, or one
row removed or inserted when the filter no longer (or now) matches it.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from simrate.core.base.scale import fmt
from simrate.gui.base.session import RATED, SKIPPED, UNRATED, AnnotatorSession
from simrate.gui.widgets.text_pane import column_labels

COL_ID, COL_DATASET, COL_GENRE, COL_LEFT, COL_RIGHT, COL_RATING = range(6)
#: Filter names and the row states each one shows.
FILTERS = {"all": None, "unrated": UNRATED, "rated": RATED, "skipped": SKIPPED}
ItemIdRole = Qt.ItemDataRole.UserRole + 1
SourceRowRole = Qt.ItemDataRole.UserRole + 2
# Roles as plain ints: a view asks for seven roles per cell on every repaint (over a thousand
# calls for a page of the list), and comparing ints is several times cheaper than enums.
_DISPLAY, _TOOLTIP, _ALIGN, _FONT = (int(r.value) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.FontRole))
_ITEM_ID, _SOURCE_ROW = int(ItemIdRole), int(SourceRowRole)
_ANSWERED_ROLES = frozenset({_DISPLAY, _TOOLTIP, _ALIGN, _FONT, _ITEM_ID, _SOURCE_ROW})
_CENTER = int(Qt.AlignmentFlag.AlignCenter.value)
#: Characters of a text shown in a cell; the view elides the rest.
CELL_CHARS = 120
TOOLTIP_CHARS = 1200

_Index = QModelIndex | QPersistentModelIndex


class ItemTableModel(QAbstractTableModel):
    """Items of one project with this annotator's rating; filter by state and search text."""

    def __init__(self, session: AnnotatorSession, parent=None):
        super().__init__(parent)
        self.session = session
        self.filter_name = "all"
        self.search_text = ""
        left, right = column_labels(session.dataset_names)
        self._headers = ["Id", "Dataset", "Genre", left, right, "Your rating"]
        self._italic = QFont()
        self._italic.setItalic(True)
        self._visible = np.arange(session.n, dtype=np.int64)
        session.row_changed.connect(self._on_row_changed)
        session.reset.connect(self.refilter)
        session.details_loaded.connect(self._on_details_loaded)

    # ----------------------------------------------------------- Qt model interface
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """Visible rows (none under a valid parent: this is a flat table)."""
        return 0 if parent.isValid() else len(self._visible)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Six columns: id, dataset, genre, the two texts, your rating."""
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column names; row headers are the 1-based position in the project."""
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._headers[section] if 0 <= section < len(self._headers) else None
        if 0 <= section < len(self._visible):
            return str(int(self._visible[section]) + 1)
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Cell contents, fetched from the session only for the cells Qt asks about."""
        # Views ask for a dozen roles per cell on every repaint: refuse the others first.
        if role not in _ANSWERED_ROLES:
            return None
        visible, position = self._visible, index.row()  # -1 for an invalid index
        if not 0 <= position < len(visible):
            return None
        return self._value(int(visible[position]), index.column(), role)

    def _value(self, row: int, column: int, role: int):
        """The value of one answered role of a session row's cell (None: nothing)."""
        if role == _DISPLAY:
            return self._display(row, column)
        if column == COL_RATING:
            if role == _ALIGN:
                return _CENTER
            if role == _FONT:
                return self._italic if self.session.state[row] == SKIPPED else None
        if role == _TOOLTIP:
            if column == COL_ID:
                return self.session.ids[row]
            if column in (COL_LEFT, COL_RIGHT):
                text = self.session.left[row] if column == COL_LEFT else self.session.right[row]
                return text if len(text) <= TOOLTIP_CHARS else text[:TOOLTIP_CHARS] + "\u2026"
        if role == _ITEM_ID:
            return self.session.ids[row]
        if role == _SOURCE_ROW:
            return row
        return None

    def _display(self, row: int, column: int) -> str:
        session = self.session
        if column == COL_ID:
            return session.short_id(row)
        if column == COL_DATASET:
            return session.dataset(row)
        if column == COL_GENRE:
            return session.genre(row)
        if column in (COL_LEFT, COL_RIGHT):
            text = session.left[row] if column == COL_LEFT else session.right[row]
            return " ".join(text[:CELL_CHARS * 2].split())[:CELL_CHARS]
        state = session.state[row]
        if state == SKIPPED:
            return "skipped"
        score = session.score(row) if state == RATED else None
        return "" if score is None else fmt(score)

    def _on_details_loaded(self) -> None:
        labels = list(column_labels(self.session.dataset_names))
        if labels != self._headers[COL_LEFT:COL_RIGHT + 1]:  # now that the datasets are known
            self._headers[COL_LEFT:COL_RIGHT + 1] = labels
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, COL_LEFT, COL_RIGHT)
        if len(self._visible):
            self.dataChanged.emit(self.index(0, COL_ID),
                                  self.index(len(self._visible) - 1, COL_RIGHT),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])

    # ----------------------------------------------------------- filtering
    def set_filter(self, name: str) -> None:
        """Show all, unrated, rated or skipped items."""
        if name not in FILTERS:
            raise ValueError(f"unknown filter {name!r}; use one of {', '.join(FILTERS)}")
        self.filter_name = name
        self.refilter()

    def set_search(self, text: str) -> None:
        """Show only items whose id or texts contain `text` (case ignored); '' shows all."""
        self.search_text = text.strip()
        self.refilter()

    def refilter(self) -> None:
        """Recompute the visible rows from the session arrays."""
        self.beginResetModel()
        self._visible = np.flatnonzero(self._mask()).astype(np.int64)
        self.endResetModel()

    def _mask(self) -> np.ndarray:
        wanted = FILTERS[self.filter_name]
        mask = np.ones(self.session.n, dtype=bool)
        if wanted is not None:
            mask &= self.session.state == wanted
        if self.search_text:
            mask &= self.session.search_mask(self.search_text)
        return mask

    def _matches(self, row: int) -> bool:
        wanted = FILTERS[self.filter_name]
        if wanted is not None and self.session.state[row] != wanted:
            return False
        if not self.search_text:
            return True
        needle = self.search_text.casefold()
        session = self.session
        return any(needle in text.casefold()
                   for text in (session.ids[row], session.left[row], session.right[row]))

    def _on_row_changed(self, row: int) -> None:
        position = int(np.searchsorted(self._visible, row))
        present = position < len(self._visible) and self._visible[position] == row
        matches = self._matches(row)
        if present and matches:
            cell = self.index(position, COL_RATING)
            self.dataChanged.emit(cell, cell, [Qt.ItemDataRole.DisplayRole,
                                               Qt.ItemDataRole.FontRole])
        elif present:
            self.beginRemoveRows(QModelIndex(), position, position)
            self._visible = np.delete(self._visible, position)
            self.endRemoveRows()
        elif matches:
            self.beginInsertRows(QModelIndex(), position, position)
            self._visible = np.insert(self._visible, position, row)
            self.endInsertRows()

    # ----------------------------------------------------------- mapping
    def source_row(self, model_row: int) -> int:
        """The session row shown at a model row."""
        return int(self._visible[model_row])

    def model_row(self, source_row: int) -> int:
        """The model row showing a session row, or -1 when filtered out."""
        position = int(np.searchsorted(self._visible, source_row))
        if position < len(self._visible) and self._visible[position] == source_row:
            return position
        return -1
