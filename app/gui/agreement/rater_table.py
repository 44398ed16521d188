"""RaterTableModel: one row per rater (r vs rest, ratings), the raters most in doubt first.

At crowd scale (hundreds of workers) a heatmap of every pair is unreadable, so the dashboard
shows this table, sortable by any column, and draws the heatmap for the first TOP_N raters
of the doubt order only. The figures come from the core's LiveAgreement; an edit changes
the vs-rest r of the raters of one item only, so only those rows are read again. Machine
raters never enter the live engine: their rows (r against the humans) come from the
machine report, computed in the background (machine_panel.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP, reason_few_common
from simrate.core.agreement.live import LiveAgreement
from simrate.core.base.events import Event, RatingChanged
from simrate.gui.base.row_model import RowTableModel

_Index = QModelIndex | QPersistentModelIndex
#: Raters in the heatmap when there are more (with fewer, the heatmap shows every rater).
TOP_N = 12
#: Ratings on items someone else rated too, before a rater's r vs rest is shown, coloured
#: or ranked among the most in doubt: the one floor of every correlation shown.
MIN_OVERLAP = DEFAULT_MIN_OVERLAP
R_COLUMN = 2


@dataclass
class RaterRow:
    """What the table shows of one rater."""

    name: str
    machine: bool
    r: float | None
    ratings: int
    shared: int
    crowd: bool = False  # a web (crowd) worker, annotators.kind 'crowd'

    @property
    def trusted(self) -> bool:
        """r is defined and rests on at least MIN_OVERLAP shared ratings."""
        return self.r is not None and self.shared >= MIN_OVERLAP


def doubt_key(row: RaterRow) -> tuple:
    """Most in doubt first: trusted rows by lowest r (fewest shared first on ties), then
    rows with too few shared ratings, fewest first; undefined r last."""
    if row.trusted:
        return (0, row.r, row.shared, row.name)
    if row.r is not None:
        return (1, row.shared, row.r, row.name)
    return (2, row.shared, 0.0, row.name)


def _clean(value: float | None) -> float | None:
    return None if value is None or value != value else float(value)


class RaterTableModel(RowTableModel):
    """Rows of people from the live engine, then machine rows from the machine report."""

    HEADERS = ("Rater", "Kind", "r vs rest", "Ratings", "Shared")
    TOOLTIPS = ("", "Person, crowd worker (rated on the web page), or machine rater (never "
                "in gold or the humans' alpha)",
                "Pearson r against the mean of the other raters on the same items; for a machine, "
                "against the mean of the humans",
                "Items this rater scored",
                "Ratings on items at least one other rater scored too")

    def __init__(self, live_of: Callable[[], LiveAgreement], parent: QObject | None = None):
        super().__init__(parent)
        self._live_of = live_of  # a callable: the project's LiveAgreement (rebuilt on bulk)
        self.rows: list[RaterRow] = []
        # rater keys as the live engine gives them (names, typed as its Hashable keys)
        self._row_of: dict[Hashable, int] = {}
        self._dirty: set[Hashable] = set()
        self._reload = True
        # names of crowd workers (set by the view)
        self.crowd_of: Callable[[], set[str]] = lambda: set()
        self._italic = QFont()
        self._italic.setItalic(True)

    # ------------------------------------------------------------------ updates
    def note(self, event: Event) -> None:
        """Remember what a change touched; `refresh()` (coalesced) reads it."""
        if event.is_bulk:
            self._reload = True
        elif isinstance(event, RatingChanged) and event.counted:
            live: LiveAgreement = self._live_of()
            self._dirty.update(live.unit_ratings(event.item))
            self._dirty.add(event.annotator)

    def refresh(self) -> None:
        """Read again the rows the noted changes touched (all of them after bulk changes)."""
        dirty, self._dirty = self._dirty, set()
        if self._reload or any(name not in self._row_of for name in dirty):
            self.reload()  # a new rater, or the engine was rebuilt
            return
        live: LiveAgreement = self._live_of()
        counts = live.rater_counts(dirty)
        if any(ratings == 0 for ratings, _shared in counts.values()):
            self.reload()  # a rater withdrew their last rating
            return
        for name, r in live.vs_rest_of(dirty).items():
            index = self._row_of[name]
            row = self.rows[index]
            row.r, (row.ratings, row.shared) = _clean(r), counts[name]
            self.dataChanged.emit(self.index(index, R_COLUMN),
                                  self.index(index, len(self.HEADERS) - 1))

    def reload(self) -> None:
        """Read every person's row again (keeps the machine rows)."""
        live: LiveAgreement = self._live_of()
        rest, counts = live.pearson_vs_rest(), live.rater_counts()
        crowd = self.crowd_of()
        people = [RaterRow(str(name), False, _clean(rest.get(name)), *counts[name],
                           crowd=str(name) in crowd) for name in live.raters()]
        self.set_rows([*people, *(row for row in self.rows if row.machine)])
        self._reload = False

    def set_machines(self, machines: list[RaterRow]) -> None:
        """Replace the machine rows (no reset when they are the same)."""
        if machines != self.machines():
            self.set_rows([*(row for row in self.rows if not row.machine), *machines])

    def set_rows(self, rows: list[RaterRow]) -> None:
        """Show these rows (a reset), each findable by name."""
        self._row_of = {row.name: i for i, row in enumerate(rows)}
        super().set_rows(rows)

    # ------------------------------------------------------------------ reading
    def people(self) -> list[RaterRow]:
        """The rows of people (not machines)."""
        return [row for row in self.rows if not row.machine]

    def machines(self) -> list[RaterRow]:
        """The machine rows."""
        return [row for row in self.rows if row.machine]

    def top(self, n: int = TOP_N) -> list[str]:
        """The n people most in doubt (doubt_key order)."""
        return [row.name for row in sorted(self.people(), key=doubt_key)[:n]]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Text, sort keys (UserRole), alignment; machine rows in italics."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == Qt.ItemDataRole.UserRole:
            return self._sort_value(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= R_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and row.machine:
            return self._italic
        if role == Qt.ItemDataRole.ToolTipRole and column == R_COLUMN and not row.trusted:
            return (f"n/a: undefined because {reason_few_common(MIN_OVERLAP)}"
                    if row.shared < MIN_OVERLAP else "n/a: undefined because no variance")
        return None

    @staticmethod
    def _text(row: RaterRow, column: int) -> str:
        if column == 0:
            return row.name
        if column == 1:
            return "machine" if row.machine else "crowd" if row.crowd else "person"
        if column == R_COLUMN:
            return f"{row.r:.3f}" if row.trusted else "n/a"
        return f"{row.ratings if column == 3 else row.shared:,}"

    @staticmethod
    def _sort_value(row: RaterRow, column: int):
        if column == 0:
            return row.name.casefold()
        if column == 1:
            return 2 if row.machine else int(row.crowd)
        if column == R_COLUMN:  # undefined sorts after every r (ascending)
            return math.inf if row.r is None else row.r
        return row.ratings if column == 3 else row.shared

