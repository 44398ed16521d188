"""A table model over a Python list of rows with fixed column titles, and the sorting and
filtering proxy of the tables that offer both."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import QLineEdit

_Index = QModelIndex | QPersistentModelIndex


class RowTableModel(QAbstractTableModel):
    """Rows replaced as a whole with `set_rows`; subclasses give HEADERS and `data()`, and
    may give TOOLTIPS, what each column means ('' for none)."""

    HEADERS: tuple[str, ...] = ()
    TOOLTIPS: tuple[str, ...] = ()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list = []

    def set_rows(self, rows: list) -> None:
        """Show these rows."""
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt signature
        """One row per record."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008, N802
        """One column per title in HEADERS."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles, and what each column means."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self.TOOLTIPS):
            return self.TOOLTIPS[section] or None
        return None


class SortFilterProxy(QSortFilterProxyModel):
    """Sorts by the source model's UserRole values (numbers as numbers); keeps the rows whose
    `filter_column` holds the filter text, whatever its case."""

    def __init__(self, filter_column: int = 0, parent=None):
        super().__init__(parent)
        self.setSortRole(Qt.ItemDataRole.UserRole)
        self.setFilterKeyColumn(filter_column)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)


def filter_field(proxy: QSortFilterProxyModel, placeholder: str) -> QLineEdit:
    """A line edit that filters `proxy` as one types, with a clear button."""
    edit = QLineEdit()
    edit.setPlaceholderText(placeholder)
    edit.setAccessibleName(placeholder)
    edit.setClearButtonEnabled(True)
    edit.textChanged.connect(proxy.setFilterFixedString)
    return edit
