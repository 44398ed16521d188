"""QueueModel: the adjudication queue as a table, largest disagreement first.

Rows are the flagged items and the adjudicated items that need a second look, in the order
(-disagreement, project position). A change to one item moves, adds or removes one row
(`beginRemoveRows`/`beginInsertRows` at the place found by bisection), so adjudicating an
item of a 200,000-item project never rebuilds the table.
"""

from __future__ import annotations

from bisect import bisect_left

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from simrate.core.base.scale import fmt
from simrate.core.project import Project
from simrate.core.review.index import FLAGGED, SECOND_LOOK, QueueEntry, ReviewIndex
from simrate.gui.kit.palette import SECOND_LOOK_COLOUR

_Index = QModelIndex | QPersistentModelIndex


class QueueModel(QAbstractTableModel):
    """Flagged and second-look items with their spread and status (dataset in the tooltip)."""

    HEADERS = ("Item", "Spread", "Status")

    def __init__(self, project: Project, review: ReviewIndex | None = None, parent=None):
        super().__init__(parent)
        self.project = project
        self.review = review or ReviewIndex(project)
        self._entries: list[QueueEntry] = []
        self._keys: list[tuple[int, int]] = []
        self._key_of: dict[str, tuple[int, int]] = {}
        self._datasets: dict[str, str] = {}  # filled as rows are shown
        self._bold = QFont()
        self._bold.setBold(True)
        self.rebuild()

    # ------------------------------------------------------------------ building and updates
    def rebuild(self) -> None:
        """Reread the whole queue (after bulk changes)."""
        self.beginResetModel()
        self._entries = self.review.queue()
        position = self.project.position
        self._keys = [e.sort_key(position(e.item_id)) for e in self._entries]
        self._key_of = {e.item_id: k for e, k in zip(self._entries, self._keys, strict=True)}
        self._datasets.clear()
        self.endResetModel()

    def refresh_item(self, item_id: str) -> None:
        """Bring one item's row up to date: moved, added, removed or restyled."""
        status = self.review.status(item_id)
        row = self.row_of(item_id)
        entry = QueueEntry(item_id, status.disagreement, status.kind) if status.in_queue else None
        key = entry.sort_key(self.project.position(item_id)) if entry else None
        if row >= 0 and entry is not None and key == self._keys[row]:
            self._entries[row] = entry
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.FontRole,
                                   Qt.ItemDataRole.ForegroundRole])
            return
        if row >= 0:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._entries[row], self._keys[row], self._key_of[item_id]
            self.endRemoveRows()
        if entry is not None and key is not None:
            place = bisect_left(self._keys, key)
            self.beginInsertRows(QModelIndex(), place, place)
            self._entries.insert(place, entry)
            self._keys.insert(place, key)
            self._key_of[item_id] = key
            self.endInsertRows()

    # ------------------------------------------------------------------ lookups
    def row_of(self, item_id: str) -> int:
        """The row showing an item, or -1 (found by bisection on its stored key)."""
        key = self._key_of.get(item_id)
        if key is None:
            return -1
        row = bisect_left(self._keys, key)
        return row if row < len(self._keys) and self._keys[row] == key else -1

    def entry(self, row: int) -> QueueEntry | None:
        """The entry at a row, or None outside the table."""
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def item_at(self, row: int) -> str:
        """The item id of a row of the table (IndexError outside it)."""
        return self._entries[row].item_id

    def first_row_of_kind(self, kind: str) -> int:
        """The first row of `kind` (FLAGGED or SECOND_LOOK), or -1."""
        return next((i for i, e in enumerate(self._entries) if e.kind == kind), -1)

    # ------------------------------------------------------------------ Qt model interface
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        """One row per item in the queue."""
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Item, spread, status."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        """Column titles; rows are numbered from 1."""
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] if 0 <= section < len(self.HEADERS) else None
        return str(section + 1) if 0 <= section < len(self._entries) else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Cells, fetched only for the rows on screen."""
        if not index.isValid() or index.row() >= len(self._entries):
            return None
        entry = self._entries[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return entry.item_id
            if column == 1:
                return fmt(entry.disagreement * self.project.scale.step)
            return entry.kind
        if entry.kind == SECOND_LOOK and column == 2:
            if role == Qt.ItemDataRole.ForegroundRole:
                return SECOND_LOOK_COLOUR
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(entry, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def _tooltip(self, entry: QueueEntry, column: int) -> str:
        if column == 0:
            dataset = self._dataset(entry.item_id)
            return f"{entry.item_id} (dataset {dataset})" if dataset else entry.item_id
        if column == 1:
            return "How far apart the ratings are, in scale points"
        return (f"Flagged by the flag rule {self.project.flag_rule.describe()}; not "
                "adjudicated yet" if entry.kind == FLAGGED else
                "Adjudicated, but a rating given later disagrees with the verdict")

    def _dataset(self, item_id: str) -> str:
        dataset = self._datasets.get(item_id)
        if dataset is None:
            dataset = self._datasets[item_id] = self.project.item(item_id)["dataset"] or ""
        return dataset
