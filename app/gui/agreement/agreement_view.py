"""The organizer's full-window Agreement view, beside the rating view and the adjudication
queue (Ctrl+1, Ctrl+2, Ctrl+3): the dashboard laid out across the window, and agreement over
time: alpha with its interval, and each rater's Pearson r against the rest, after every N
ratings, so that a rater who drifts is seen while there is time to talk to them.

The figures over time are worked out in a background job from the project file (the job
opens its own connection), when the view is shown and a moment after ratings change.
"""

from __future__ import annotations

import math
from html import escape

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from simrate.core.agreement.reports.over_time import TimePoint, drifting
from simrate.gui.agreement.dashboard import Dashboard
from simrate.gui.agreement.dashboard_parts import box, section_title
from simrate.gui.base.jobs import Job, JobRunner
from simrate.gui.kit.accessible import named
from simrate.gui.kit.fitting import WrappedLabel
from simrate.gui.kit.palette import WARNING_COLOUR, rater_colour

#: Milliseconds after a burst of changes before the figures over time are worked out again.
REFRESH_MS = 1500
LEFT, RIGHT, TOP, BOTTOM = 44.0, 14.0, 8.0, 26.0
ALPHA_COLOUR = QColor("#202020")


def read_over_time(path: str, excluded: tuple[str, ...], job: Job) -> tuple[int, list]:
    """The background job: the project's ratings, then agreement after every N of them."""
    from simrate.core.agreement.reports.over_time import agreement_over_time
    from simrate.core.project import Project

    with Project.open(path) as project:
        ratings = project.ratings()
    return agreement_over_time(ratings, excluded=excluded, check=job.check)


class OverTimeChart(QWidget):
    """Alpha (a thick line, its interval a band) and each rater's r against the rest (thin
    lines in the raters' colours) against the number of ratings given."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.points: list[TimePoint] = []
        self.raters: list[str] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(180)
        named(self, "Agreement over time",
              "Alpha and each rater's correlation with the others after every N ratings")

    def set_points(self, points: list[TimePoint], raters: list[str]) -> None:
        """Show these points; `raters` in the order of their colours."""
        self.points, self.raters = list(points), list(raters)
        last = self.points[-1] if self.points else None
        if last is not None and last.alpha is not None:
            self.setAccessibleDescription(
                f"After {last.ratings:,} ratings alpha is {last.alpha:.3f}; "
                + "; ".join(f"{name} {r:.2f}" for name, r in last.vs_rest.items()
                            if r is not None))
        self.update()

    def sizeHint(self) -> QSize:
        """A wide, low chart."""
        return QSize(440, 240)

    def _bounds(self) -> tuple[float, float]:
        values = [v for p in self.points for v in (p.alpha, p.low, *p.vs_rest.values())
                  if v is not None and math.isfinite(v)]
        low = min([0.0, *values])
        return (math.floor(low * 5) / 5, 1.0)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Axes, the interval band, the alpha line, the raters' lines."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        plot = QRectF(LEFT, TOP, max(10.0, self.width() - LEFT - RIGHT),
                      max(10.0, self.height() - TOP - BOTTOM))
        text_pen = QPen(self.palette().text().color())
        y_low, y_high = self._bounds()
        most = self.points[-1].ratings if self.points else 1

        def x_of(ratings: int) -> float:
            return plot.left() + plot.width() * ratings / max(most, 1)

        def y_of(value: float) -> float:
            return plot.bottom() - plot.height() * (value - y_low) / (y_high - y_low)

        self._grid(painter, plot, y_low, y_high, y_of, text_pen)
        painter.setPen(text_pen)
        painter.drawText(QRectF(plot.left(), plot.bottom() + 4, plot.width(), BOTTOM - 4),
                         Qt.AlignmentFlag.AlignLeft, "0")
        painter.drawText(QRectF(plot.left(), plot.bottom() + 4, plot.width(), BOTTOM - 4),
                         Qt.AlignmentFlag.AlignRight, f"{most:,} ratings")
        if not self.points:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, "No ratings yet")
            return
        self._band(painter, x_of, y_of)
        for index, name in enumerate(self.raters):
            self._line(painter, [(p.ratings, p.vs_rest.get(name)) for p in self.points],
                       QPen(rater_colour(index), 1.5), x_of, y_of)
        self._line(painter, [(p.ratings, p.alpha) for p in self.points],
                   QPen(ALPHA_COLOUR, 3), x_of, y_of)

    def _grid(self, painter: QPainter, plot: QRectF, y_low: float, y_high: float, y_of,
              text_pen: QPen) -> None:
        """Dotted lines every 0.2, labelled on the left."""
        grid_pen = QPen(self.palette().mid().color(), 1, Qt.PenStyle.DotLine)
        for k in range(round((y_high - y_low) / 0.2) + 1):
            value = y_low + k * 0.2
            y = y_of(value)
            painter.setPen(grid_pen)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text_pen)
            painter.drawText(QRectF(0, y - 8, LEFT - 6, 16),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"{value:.1f}")

    def _band(self, painter: QPainter, x_of, y_of) -> None:
        """The shaded 95% interval of alpha."""
        band = [p for p in self.points if p.low is not None and p.high is not None]
        if len(band) < 2:
            return
        path = QPainterPath(QPointF(x_of(band[0].ratings), y_of(band[0].high)))
        for p in band[1:]:
            path.lineTo(x_of(p.ratings), y_of(p.high))
        for p in reversed(band):
            path.lineTo(x_of(p.ratings), y_of(p.low))
        path.closeSubpath()
        shade = QColor(ALPHA_COLOUR)
        shade.setAlpha(40)
        painter.fillPath(path, shade)

    @staticmethod
    def _line(painter: QPainter, values, pen: QPen, x_of, y_of) -> None:
        path, drawing = QPainterPath(), False
        for ratings, value in values:
            if value is None or not math.isfinite(value):
                drawing = False
                continue
            point = QPointF(x_of(ratings), y_of(value))
            if drawing:
                path.lineTo(point)
            else:
                path.moveTo(point)
                drawing = True
        painter.setPen(pen)
        painter.drawPath(path)


class OverTimeSection(QWidget):
    """Title, legend and chart of agreement over time; refreshed in the background."""

    def __init__(self, watcher, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.watcher = watcher
        self.project = watcher.project
        self.runner = runner
        self.job: Job | None = None
        self.step = 0
        self.drifting: dict[str, tuple[float, float]] = {}
        self.title = section_title("Agreement over time")
        self.legend = WrappedLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.chart = OverTimeChart()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(box(self.title, self.legend))
        layout.addWidget(self.chart, 1)
        self._timer = QTimer(self, singleShot=True, interval=REFRESH_MS)
        self._timer.timeout.connect(self.start)
        watcher.updated.connect(self._timer.start)

    def start(self) -> None:
        """Work the figures out again (the job before is dropped)."""
        if self.job is not None:
            self.runner.discard(self.job)
        excluded = tuple(self.project.roster.left_out())
        path = str(self.project.path)
        self.job = self.runner.start(lambda job: read_over_time(path, excluded, job),
                                     finished=self._show, failed=self._failed)

    def _show(self, result: tuple[int, list[TimePoint]]) -> None:
        self.job = None
        self.step, points = result
        raters = list(dict.fromkeys(r for p in points for r in p.vs_rest))
        self.title.setText(f"Agreement over time, every {self.step:,} ratings")
        keys = ["<b>\u2014 \u03b1</b> (band: 95% interval)"]
        self.drifting = drifting(points)
        for index, name in enumerate(raters):
            colour = rater_colour(index).name()
            key = f"<span style='color:{colour}'>\u2014</span> {escape(name)} vs rest"
            if name in self.drifting:
                best, latest = self.drifting[name]
                key += (f" <b style='color:{WARNING_COLOUR.name()}'>falling: {best:.2f} \u2192 "
                        f"{latest:.2f}</b>")
            keys.append(key)
        self.legend.setText(" &nbsp; ".join(keys))
        self.chart.set_points(points, raters)

    def _failed(self, error) -> None:
        self.job = None
        self.legend.setText(f"Cannot work out agreement over time: {error}")

    def shutdown(self) -> None:
        """Stop refreshing (the project is closing)."""
        self._timer.stop()
        if self.job is not None:
            self.runner.discard(self.job)
            self.job = None


class AgreementView(QWidget):
    """The dashboard across the whole window, with agreement over time."""

    def __init__(self, watcher, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.over_time = OverTimeSection(watcher, runner)
        self.dashboard = Dashboard(watcher, extra={"over_time": self.over_time})
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.dashboard)
        self.setAccessibleName("Agreement view")

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Figures over time as soon as the view is shown."""
        super().showEvent(event)
        if self.over_time.job is None and not self.over_time.chart.points:
            self.over_time.start()

    def shutdown(self) -> None:
        """Stop background work (the project is closing)."""
        self.over_time.shutdown()
        self.dashboard.machine_watch.shutdown()
