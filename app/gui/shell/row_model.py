"""A table model over a Python list of rows with fixed column titles."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

_Index = QModelIndex | QPersistentModelIndex


class RowTableModel(QAbstractTableModel):
    """Rows replaced as a whole with `set_rows`; subclasses give HEADERS and `data()`."""

    HEADERS: tuple[str, ...] = ()

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
        """Column titles."""
        if (role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(self.HEADERS)):
            return self.HEADERS[section]
        return None
