"""Every rater's score of one item: as marks on the scale, and as a table with their notes.

`RaterMarksScale` is the annotator view's ScaleWidget (click to pick, saved and pending
markers, guideline tooltips) with one coloured triangle per rater above the track.
`ItemRatingsModel` lists the raters of one item with score and note (shown in a
`ratings_table`); both read the item's ratings through `item_ratings`, which asks the
Project for each annotator's record.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QHelpEvent, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QToolTip

from simrate.core.base.scale import Scale, fmt
from simrate.core.project import Project
from simrate.gui.base.row_model import RowTableModel
from simrate.gui.kit.accessible import named
from simrate.gui.kit.palette import rater_colour
from simrate.gui.widgets.scale_widget import ScaleWidget, guideline_html

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class RaterScore:
    """One annotator's record of one item."""

    annotator: str
    colour_index: int  # the annotator's place in the project, for a stable colour
    code: int | None
    note: str
    skipped: bool
    excluded: bool


def item_ratings(project: Project, item_id: str, excluded: set[str] | None = None
                 ) -> list[RaterScore]:
    """The records of every annotator who rated, skipped or annotated this item."""
    excluded = set(project.roster.left_out()) if excluded is None else excluded
    out = []
    for index, name in enumerate(project.annotators()):
        record = project.rating_record(item_id, name)
        if record is None:
            continue
        score = record["score"]
        code = None if score is None else project.scale.to_code(score)
        out.append(RaterScore(name, index, code, record["note"] or "", bool(record["skipped"]),
                              name in excluded))
    return out


def counted_mean_code(marks: list[RaterScore]) -> float | None:
    """The mean code of the scores that count (not excluded raters, not skips), or None."""
    codes = [m.code for m in marks if m.code is not None and not m.excluded]
    return sum(codes) / len(codes) if codes else None


#: Extra height above the track where the raters' marks go.
MARK_BAND = 18


class RaterMarksScale(ScaleWidget):
    """A ScaleWidget that also marks each rater's score with a coloured triangle."""

    def __init__(self, scale: Scale, parent=None):
        super().__init__(scale, parent)
        self.marks: list[RaterScore] = []
        self.accessible_title = "Adjudicated score"
        self.setAccessibleDescription("The adjudicated score, with every rater's score marked")
        self._update_accessible()

    def set_marks(self, marks: list[RaterScore]) -> None:
        """Show these raters' scores (those without a score are left out)."""
        marks = [m for m in marks if m.code is not None]
        if marks != self.marks:
            self.marks = marks
            self.update()

    def _rows(self) -> tuple[float, float, float]:
        """The scale's rows, with the track and labels moved down to make room for marks."""
        value_y, track_y, label_y = super()._rows()
        return value_y, track_y + MARK_BAND, label_y + MARK_BAND

    def sizeHint(self) -> QSize:
        """The scale's size plus the band for the marks."""
        hint = super().sizeHint()
        return QSize(hint.width(), hint.height() + MARK_BAND)

    def minimumSizeHint(self) -> QSize:
        """Never squeezed below the labels and marks."""
        return QSize(360, self.sizeHint().height())

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        """The scale, then the raters' marks above the track."""
        super().paintEvent(event)
        if not self.marks:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        _value_y, track_y, _label_y = self._rows()
        for mark, offset in zip(self.marks, self._offsets(), strict=True):
            if mark.code is None:
                continue  # never: set_marks keeps the scored marks only
            x = self._x_of(mark.code) + offset
            colour = rater_colour(mark.colour_index)
            if mark.excluded:
                colour.setAlpha(90)
            triangle = QPolygonF([QPointF(x - 7, track_y - 22), QPointF(x + 7, track_y - 22),
                                  QPointF(x, track_y - 10)])
            painter.setPen(QPen(colour.darker(130), 1))
            painter.setBrush(colour)
            painter.drawPolygon(triangle)

    def _offsets(self) -> list[float]:
        """Horizontal nudges so that raters with the same score stay visible side by side."""
        seen: dict[int, int] = {}
        counts: dict[int, int] = {}
        codes = [m.code for m in self.marks if m.code is not None]  # every mark has one
        for code in codes:
            counts[code] = counts.get(code, 0) + 1
        offsets = []
        for code in codes:
            k = seen.get(code, 0)
            seen[code] = k + 1
            offsets.append((k - (counts[code] - 1) / 2) * 15.0)
        return offsets

    def raters_at(self, code: int) -> list[RaterScore]:
        """The raters whose score is this code."""
        return [m for m in self.marks if m.code == code]

    def event(self, event: QEvent) -> bool:
        """Tooltip: who gave the score under the pointer, then the guideline."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            code = self.code_at(event.pos().x())
            who = self.raters_at(code)
            point = self.point_near(self.scale.from_code(code))
            parts = []
            if who:
                names = ", ".join(m.annotator for m in who)
                parts.append(f"<p><b>{fmt(self.scale.from_code(code))}</b> given by {names}</p>")
            if point is not None:
                parts.append(guideline_html(point))
            if parts:
                QToolTip.showText(event.globalPos(), "".join(parts), self)
            return True
        return super().event(event)


class ItemRatingsModel(RowTableModel):
    """The raters of one item: colour and name, score, note."""

    HEADERS = ("Rater", "Score", "Note")

    def __init__(self, scale: Scale, parent=None):
        super().__init__(parent)
        self.scale = scale
        self._italic = QFont()
        self._italic.setItalic(True)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        """Name (with a colour swatch), score, note; excluded raters in italics."""
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return row.annotator + (" (excluded)" if row.excluded else "")
            if column == 1:
                if row.skipped:
                    return "skipped"
                return "" if row.code is None else fmt(self.scale.from_code(row.code))
            return row.note
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return QColor(rater_colour(row.colour_index))
        if role == Qt.ItemDataRole.FontRole and (row.excluded or row.skipped):
            return self._italic
        if role == Qt.ItemDataRole.ToolTipRole and column == 2 and row.note:
            return row.note
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None


def ratings_table(model: ItemRatingsModel) -> QTableView:
    """A compact, read-only view of an ItemRatingsModel that never takes the keyboard."""
    table = named(QTableView(), "Every rater's score")
    table.setModel(model)
    table.verticalHeader().hide()
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    return table
