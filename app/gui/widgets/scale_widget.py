"""ScaleWidget: the rating scale drawn as a ruler with its labelled points; click to pick.

It shows two markers: the saved score (a filled green dot) and the pending score typed
but not yet saved (a ring in the highlight colour). Hovering a point shows its guideline.
The widget holds no rating: the RatingPanel tells it what to draw.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHelpEvent, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from simrate.core.base.scale import Scale, ScalePoint, fmt
from simrate.gui.kit.accessible import scale_value_text
from simrate.gui.kit.palette import PENDING_COLOUR, SAVED_COLOUR


class ScaleWidget(QWidget):
    """A clickable, hoverable drawing of a scale; emits `code_picked(code)` on click."""

    code_picked = Signal(int)

    def __init__(self, scale: Scale, parent: QWidget | None = None):
        super().__init__(parent)
        self.scale = scale
        self.saved_code: int | None = None
        self.pending_code: int | None = None
        self._hover_code: int | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        #: What a screen reader calls the scale, before the score it shows.
        self.accessible_title = "Rating scale"
        self.setAccessibleDescription(
            f"{fmt(scale.low)} to {fmt(scale.high)} in steps of {fmt(scale.step)}: digits set "
            "the score, + and \u2212 move it, Enter saves")
        self._update_accessible()
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    # ----------------------------------------------------------- state from the panel
    def set_codes(self, saved: int | None, pending: int | None) -> None:
        """Show the saved score and the pending (typed, unsaved) one."""
        if (saved, pending) != (self.saved_code, self.pending_code):
            self.saved_code, self.pending_code = saved, pending
            self._update_accessible()
            self.update()

    def _update_accessible(self) -> None:
        """The accessible name says the score shown and its label (screen readers read it
        out as it changes)."""
        self.setAccessibleName(f"{self.accessible_title}: "
                               + scale_value_text(self.scale, self.saved_code, self.pending_code))

    # ----------------------------------------------------------- geometry
    def _margin(self) -> float:
        return max(50.0, self.width() / (2 * max(len(self.scale.points), 2)))

    def _x_of(self, code: int) -> float:
        left = self._margin()
        span = self.width() - 2 * left
        return left + span * code / max(self.scale.max_code, 1)

    def code_at(self, x: float) -> int:
        """The scale code nearest to a horizontal position."""
        left = self._margin()
        span = max(self.width() - 2 * left, 1.0)
        code = round((x - left) / span * self.scale.max_code)
        return max(0, min(self.scale.max_code, code))

    def _rows(self) -> tuple[float, float, float]:
        """Baselines: value numbers, the track, top of the labels."""
        line = self.fontMetrics().height()
        return line * 1.4, line * 2.6, line * 3.5

    def sizeHint(self) -> QSize:
        """Wide enough for the labels, tall enough for two lines of them."""
        line = self.fontMetrics().height()
        return QSize(640, int(line * 6.2))

    def minimumSizeHint(self) -> QSize:
        """Never squeezed below its labels' height."""
        return QSize(360, self.sizeHint().height())

    # ----------------------------------------------------------- painting
    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Draw the track, the ticks, the labelled points and the two markers."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(palette.ColorRole.WindowText)
        value_y, track_y, _label_y = self._rows()
        if self.hasFocus():
            painter.setPen(QPen(palette.color(palette.ColorRole.Highlight), 1.5))
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 6, 6)
        painter.setPen(QPen(text_colour, 2))
        painter.drawLine(QPointF(self._x_of(0), track_y),
                         QPointF(self._x_of(self.scale.max_code), track_y))
        painter.setPen(QPen(text_colour, 1))
        for code in range(self.scale.n_codes):
            x = self._x_of(code)
            painter.drawLine(QPointF(x, track_y - 4), QPointF(x, track_y + 4))
        self._paint_points(painter, text_colour, value_y, track_y)
        if self._hover_code is not None:
            painter.setPen(QPen(palette.color(palette.ColorRole.Mid), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(self._x_of(self._hover_code), track_y), 7, 7)
        self._paint_markers(painter, track_y)

    def label_layout(self) -> tuple[QFont, list[QRectF]]:
        """The font of the point labels and the box of each: a box is as wide as the space
        between two points (so neighbours never overlap), and the font shrinks (down to 6
        points) until the widest word of any label fits its box, and every label, wrapped
        at its box's width, fits the height below the track."""
        _value_y, _track_y, label_y = self._rows()
        spacing = (self.width() - 2 * self._margin()) / max(len(self.scale.points) - 1, 1)
        width, height = max(spacing - 6, 24.0), self.height() - label_y
        font = QFont(self.font())
        size = font.pointSizeF()
        while size > 6 and not self._labels_fit(QFontMetricsF(font), width, height):
            size -= 0.5
            font.setPointSizeF(size)
        boxes = [QRectF(self._x_of(self.scale.to_code(point.value)) - width / 2, label_y,
                        width, height) for point in self.scale.points]
        return font, boxes

    def _labels_fit(self, metrics: QFontMetricsF, width: float, height: float) -> bool:
        """True when each word of each label fits `width`, and each label, wrapped at that
        width, fits `height`."""
        wrap = QRectF(0, 0, width, 1e6)
        for point in self.scale.points:
            if any(metrics.horizontalAdvance(word) > width for word in point.label.split()):
                return False
            if metrics.boundingRect(wrap, Qt.TextFlag.TextWordWrap, point.label).height() > height:
                return False
        return True

    def _paint_points(self, painter: QPainter, colour: QColor, value_y: float,
                      track_y: float) -> None:
        bold = QFont(self.font())
        bold.setBold(True)
        label_font, boxes = self.label_layout()
        for point, box in zip(self.scale.points, boxes, strict=True):
            x = self._x_of(self.scale.to_code(point.value))
            painter.setPen(QPen(colour, 2))
            painter.drawLine(QPointF(x, track_y - 9), QPointF(x, track_y + 9))
            painter.setFont(bold)
            painter.drawText(QRectF(x - 40, value_y - self.fontMetrics().height(), 80,
                                    self.fontMetrics().height() * 1.2),
                             Qt.AlignmentFlag.AlignCenter, fmt(point.value))
            painter.setFont(label_font)
            painter.drawText(box, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                             | Qt.TextFlag.TextWordWrap, point.label)

    def _paint_markers(self, painter: QPainter, track_y: float) -> None:
        if self.saved_code is not None:
            painter.setPen(QPen(SAVED_COLOUR.darker(130), 1.5))
            painter.setBrush(SAVED_COLOUR)
            painter.drawEllipse(QPointF(self._x_of(self.saved_code), track_y), 9, 9)
        if self.pending_code is not None and self.pending_code != self.saved_code:
            painter.setPen(QPen(PENDING_COLOUR, 3.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(QPointF(self._x_of(self.pending_code), track_y), 11, 11)

    # ----------------------------------------------------------- mouse
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        """A left click picks the nearest step."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.code_picked.emit(self.code_at(event.position().x()))
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Track the step under the pointer."""
        code = self.code_at(event.position().x())
        if code != self._hover_code:
            self._hover_code = code
            self.update()

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Forget the hovered step."""
        self._hover_code = None
        self.update()

    def event(self, event: QEvent) -> bool:
        """Tooltips: the guideline of the labelled point nearest the pointer."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            point = self.point_near(self.scale.from_code(self.code_at(event.pos().x())))
            if point is not None:
                QToolTip.showText(event.globalPos(), guideline_html(point), self)
            return True
        return super().event(event)

    def point_near(self, value: float) -> ScalePoint | None:
        """The labelled point closest to a value."""
        if not self.scale.points:
            return None
        return min(self.scale.points, key=lambda p: abs(p.value - value))


def guideline_html(point: ScalePoint) -> str:
    """A labelled point and its guideline as a short rich-text paragraph."""
    from html import escape

    return (f"<p style='max-width: 28em'><b>{fmt(point.value)} \u2013 {escape(point.label)}</b>"
            f"<br>{escape(point.guideline)}</p>")
