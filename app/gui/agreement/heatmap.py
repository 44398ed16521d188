"""CorrelationHeatmap: pairwise Pearson r between raters, and each rater against the rest.

Drawn with QPainter (no chart library). The widget holds only what it was last given to
draw; the dashboard feeds it from the core's LiveAgreement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QFont, QHelpEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from simrate.gui.kit.palette import correlation_colour, readable_text_colour

MIN_CELL, MAX_CELL = 38, 72
GAP = 10  # between the matrix and the vs-rest column


def format_r(value: float | None) -> str:
    """`0.87`, or an en dash when undefined."""
    return "\u2013" if value is None or value != value else f"{value:.2f}"


class CorrelationHeatmap(QWidget):
    """A raters x raters grid of Pearson r, plus a 'vs rest' column."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.names: list[str] = []
        self.matrix: list[list[float | None]] = []
        self.vs_rest: list[float | None] = []
        self.machines: set[str] = set()  # drawn in italics, named as machines in tooltips
        #: The fewest raters the owner may cut the grid to for a narrow width (None: it
        #: shows every rater it is given, and asks for the room they need).
        self.fewest: int | None = None
        self._label_w: int | None = None
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setAccessibleName("Pearson correlation between raters")

    def set_data(self, names: Sequence[str], matrix: Sequence[Sequence[float | None]],
                 vs_rest: Sequence[float | None], machines: set[str] | None = None) -> None:
        """Show these raters' pairwise r (NaN/None undefined) and r against the rest."""
        self.machines = set(machines or ())
        names = list(names)
        rows = [[None if v is None or v != v else float(v) for v in row] for row in matrix]
        rest = [None if v is None or v != v else float(v) for v in vs_rest]
        if (names, rows, rest) != (self.names, self.matrix, self.vs_rest):
            size_changed = len(names) != len(self.names)
            self.names, self.matrix, self.vs_rest = names, rows, rest
            self._label_w = None
            if size_changed:
                self.updateGeometry()
            self.update()

    # ------------------------------------------------------------------ geometry
    def _label_width(self) -> int:
        # measured once per set of names and font: painting asks for it for every cell
        if self._label_w is None:
            metrics = self.fontMetrics()
            widest = max((metrics.horizontalAdvance(n) for n in self.names), default=40)
            self._label_w = min(max(widest + 12, 48), 140)
        return self._label_w

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        """A new font: measure the names again."""
        if event.type() == QEvent.Type.FontChange:
            self._label_w = None
        super().changeEvent(event)

    def _cell(self) -> float:
        n = max(len(self.names), 1)
        across = (self.width() - self._label_width() - GAP - 8) / (n + 1)
        down = (self.height() - self._origin()[1] - 8) / n
        return max(MIN_CELL, min(MAX_CELL, across, down))

    def _origin(self) -> tuple[float, float]:
        return self._label_width(), self.fontMetrics().height() * 2.0

    def sizeHint(self) -> QSize:
        """Room for the grid at a comfortable cell size."""
        n = max(len(self.names), 2)
        return QSize(int(self._label_width() + GAP + (n + 1) * 58 + 8),
                     int(self.fontMetrics().height() * 2.0 + n * 58 + 8))

    def minimumSizeHint(self) -> QSize:
        """The grid at its smallest cells (of `fewest` raters, when it may be cut)."""
        n = max(len(self.names), 2)
        across = n if self.fewest is None else max(min(n, self.fewest), 2)
        return QSize(int(self._label_width() + GAP + (across + 1) * MIN_CELL + 8),
                     int(self.fontMetrics().height() * 2.0 + n * MIN_CELL + 8))

    def fitting(self, width: int) -> int:
        """How many raters' columns (and the vs-rest column) fit `width` at the smallest
        cells."""
        return int((width - self._label_width() - GAP - 8) // MIN_CELL) - 1

    def _cell_rect(self, row: int, column: int) -> QRectF:
        left, top = self._origin()
        cell = self._cell()
        x = left + column * cell + (GAP if column == len(self.names) else 0)
        return QRectF(x, top + row * cell, cell - 2, cell - 2)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """(row, column) under a point; column len(names) is 'vs rest'."""
        for row in range(len(self.names)):
            for column in range(len(self.names) + 1):
                if self._cell_rect(row, column).contains(x, y):
                    return row, column
        return None

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Draw the headers, the coloured cells and their values."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(self.palette().ColorRole.WindowText)
        if not self.names:
            painter.setPen(text)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No ratings yet")
            return
        left, top = self._origin()
        cell = self._cell()
        metrics = self.fontMetrics()
        bold = QFont(self.font())
        bold.setBold(True)
        painter.setFont(bold)
        for column, title in enumerate([*self.names, "vs rest"]):
            rect = self._cell_rect(0, column)
            bold.setItalic(title in self.machines)
            painter.setFont(bold)
            painter.setPen(text)
            # Titles may overhang their cell a little: names are usually short.
            room = cell + (2 * GAP if column == len(self.names) else 6)
            elided = metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(room))
            painter.drawText(QRectF(rect.center().x() - room / 2, 0, room, top - 4),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                             elided)
        for row, name in enumerate(self.names):
            rect = self._cell_rect(row, 0)
            elided = metrics.elidedText(name, Qt.TextElideMode.ElideRight, int(left - 8))
            bold.setItalic(name in self.machines)
            painter.setFont(bold)
            painter.setPen(text)
            painter.drawText(QRectF(0, rect.y(), left - 8, rect.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, elided)
            painter.setFont(self.font())
            values = [*self.matrix[row], self.vs_rest[row]]
            for column, value in enumerate(values):
                self._paint_cell(painter, self._cell_rect(row, column), value)

    def _paint_cell(self, painter: QPainter, rect: QRectF, value: float | None) -> None:
        background = correlation_colour(value)
        painter.setPen(QPen(background.darker(115), 1))
        painter.setBrush(background)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setPen(readable_text_colour(background))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, format_r(value))

    # ------------------------------------------------------------------ tooltips
    def event(self, event: QEvent) -> bool:
        """Tooltips name the two raters and the value."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.cell_at(event.pos().x(), event.pos().y())
            if hit is not None:
                QToolTip.showText(event.globalPos(), self.describe(*hit), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def describe(self, row: int, column: int) -> str:
        """What a cell shows, in words."""
        name, other = (self._named(row), self._named(column % len(self.names)))
        if column == len(self.names):
            others = "the humans" if self.names[row] in self.machines else "the others"
            value, what = self.vs_rest[row], f"{name} against the mean of {others}"
        else:
            value, what = self.matrix[row][column], f"{name} and {other}"
        if value is None or math.isnan(value):
            return f"{what}: undefined (too few items rated by both, or no variance)"
        return f"{what}: Pearson r = {value:.3f}"

    def _named(self, index: int) -> str:
        name = self.names[index]
        return f"{name} (machine)" if name in self.machines else name
