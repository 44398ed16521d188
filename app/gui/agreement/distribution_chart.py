"""DistributionChart: how each rater's scores spread over the scale (like the CLSS paper's
Figure 1), one line per rater, drawn with QPainter.

The y axis is the share of that rater's ratings at each step, so raters who rated different
numbers of items compare directly; the legend gives each rater's count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QHelpEvent, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from simrate.core.base.scale import Scale, fmt
from simrate.gui.kit.palette import rater_colour

LEFT, RIGHT, TOP = 44.0, 14.0, 10.0


def nice_ceiling(value: float) -> float:
    """A round axis maximum at or above `value` (percent): 5, 10, 20, 25, 40, 50, ... 100."""
    for top in (5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100):
        if value <= top:
            return float(top)
    return 100.0


class DistributionChart(QWidget):
    """Per-rater score distributions over a scale's steps."""

    def __init__(self, scale: Scale, parent: QWidget | None = None):
        super().__init__(parent)
        self.scale = scale
        self.names: list[str] = []
        self.counts = np.zeros((0, scale.n_codes), dtype=np.int64)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setAccessibleName("Distribution of each rater's scores")

    def set_data(self, names: Sequence[str], counts: np.ndarray) -> None:
        """Show raters' histograms: counts[i, code] = ratings of rater i at that code."""
        counts = np.asarray(counts, dtype=np.int64).reshape(len(names), self.scale.n_codes)
        if list(names) != self.names or not np.array_equal(counts, self.counts):
            self.names, self.counts = list(names), counts.copy()
            self.update()

    def shares(self) -> np.ndarray:
        """Percent of each rater's ratings at each code (zeros for a rater with none)."""
        totals = self.counts.sum(axis=1, keepdims=True)
        return np.divide(100.0 * self.counts, totals, out=np.zeros(self.counts.shape),
                         where=totals > 0)

    # ------------------------------------------------------------------ geometry
    def sizeHint(self) -> QSize:
        """A wide, low chart."""
        return QSize(480, 260)

    def minimumSizeHint(self) -> QSize:
        """Small but legible."""
        return QSize(300, 200)

    def _legend_rows(self) -> int:
        per_row = max(1, int((self.width() - LEFT) // 150))
        return max(1, -(-len(self.names) // per_row))

    def _plot_rect(self) -> QRectF:
        line = self.fontMetrics().height()
        bottom = line * 1.6 + self._legend_rows() * line * 1.3 + 6
        return QRectF(LEFT, TOP, max(self.width() - LEFT - RIGHT, 10),
                      max(self.height() - TOP - bottom, 10))

    def _x(self, code: int) -> float:
        plot = self._plot_rect()
        return plot.left() + plot.width() * code / max(self.scale.max_code, 1)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Axes, grid, one line per rater, legend."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(self.palette().ColorRole.WindowText)
        grid = self.palette().color(self.palette().ColorRole.Mid)
        plot = self._plot_rect()
        if not self.names or not self.counts.any():
            painter.setPen(text)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No ratings yet")
            return
        shares = self.shares()
        top = nice_ceiling(float(shares.max()))
        self._paint_axes(painter, plot, top, text, grid)
        for index, row in enumerate(shares):
            if self.counts[index].sum() == 0:
                continue
            colour = rater_colour(index)
            path = QPainterPath()
            for code, share in enumerate(row):
                point = QPointF(self._x(code), plot.bottom() - plot.height() * share / top)
                if code:
                    path.lineTo(point)
                else:
                    path.moveTo(point)
            painter.setPen(QPen(colour, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            painter.setBrush(colour)
            for code, share in enumerate(row):
                if share > 0:
                    point = QPointF(self._x(code), plot.bottom() - plot.height() * share / top)
                    painter.drawEllipse(point, 2.6, 2.6)
        self._paint_legend(painter, plot, text)

    def _paint_axes(self, painter: QPainter, plot: QRectF, top: float, text, grid) -> None:
        metrics = self.fontMetrics()
        step = top / 5
        for k in range(6):
            y = plot.bottom() - plot.height() * k / 5
            painter.setPen(QPen(grid, 1, Qt.PenStyle.DotLine if k else Qt.PenStyle.SolidLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(QRectF(0, y - metrics.height() / 2, LEFT - 6, metrics.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"{step * k:g}%")
        labelled = {self.scale.to_code(p.value) for p in self.scale.points} or {
            0, self.scale.max_code}
        for code in range(self.scale.n_codes):
            x = self._x(code)
            tall = code in labelled
            painter.setPen(QPen(text if tall else grid, 1))
            painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + (5 if tall
                                                                                   else 3)))
            if tall:
                painter.drawText(QRectF(x - 30, plot.bottom() + 5, 60, metrics.height() + 2),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                                 fmt(self.scale.from_code(code)))

    def _paint_legend(self, painter: QPainter, plot: QRectF, text) -> None:
        metrics = self.fontMetrics()
        line = metrics.height() * 1.3
        per_row = max(1, int((self.width() - LEFT) // 150))
        y0 = plot.bottom() + metrics.height() * 1.6 + 4
        for index, name in enumerate(self.names):
            row, column = divmod(index, per_row)
            x = LEFT + column * 150
            y = y0 + row * line
            painter.setPen(QPen(rater_colour(index), 3))
            painter.drawLine(QPointF(x, y + line / 2 - 2), QPointF(x + 18, y + line / 2 - 2))
            painter.setPen(text)
            label = f"{name} ({int(self.counts[index].sum()):,})"
            label = metrics.elidedText(label, Qt.TextElideMode.ElideMiddle, 124)
            painter.drawText(QRectF(x + 24, y, 126, line),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)

    # ------------------------------------------------------------------ tooltips
    def code_at(self, x: float) -> int:
        """The scale step nearest a horizontal position."""
        plot = self._plot_rect()
        code = round((x - plot.left()) / max(plot.width(), 1) * self.scale.max_code)
        return max(0, min(self.scale.max_code, code))

    def describe(self, code: int) -> str:
        """Every rater's count and share at one step."""
        shares = self.shares()
        lines = [f"<b>score {fmt(self.scale.from_code(code))}</b>"]
        for index, name in enumerate(self.names):
            lines.append(f"{name}: {int(self.counts[index, code]):,} "
                         f"({shares[index, code]:.1f}%)")
        return "<br>".join(lines)

    def event(self, event: QEvent) -> bool:
        """Tooltip: the counts at the step under the pointer."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent) and self.names:
            QToolTip.showText(event.globalPos(), self.describe(self.code_at(event.pos().x())),
                              self)
            return True
        return super().event(event)
