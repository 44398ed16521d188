"""VerdictView: the widgets of one item under adjudication, laid out; no logic of its own.

From top to bottom: the item id and its review state, the two texts, the scale with every
rater's mark (and the pending and saved verdict), the raters' scores and notes, the
verdict in large type with what Enter will do, and the note with the buttons. The
AdjudicationQueue fills it and reacts to it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.scale import Scale
from simrate.gui.kit.accessible import named
from simrate.gui.organizer.rater_marks import ItemRatingsModel, RaterMarksScale, ratings_table
from simrate.gui.widgets.score_keys import big_score_label
from simrate.gui.widgets.text_pane import PairTexts

#: Rows of the raters' table shown before it scrolls.
MAX_RATER_ROWS = 6


class VerdictView(QWidget):
    """Texts, raters' marks and notes, verdict and note of the item being adjudicated."""

    def __init__(self, scale: Scale, parent: QWidget | None = None):
        super().__init__(parent)
        self.item_label = QLabel()
        self.item_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_label = QLabel()
        header = QHBoxLayout()
        header.addWidget(self.item_label, 1)
        header.addWidget(self.status_label)
        self.texts = PairTexts(scale.name)
        self.scale_widget = RaterMarksScale(scale)
        self.ratings_model = ItemRatingsModel(scale, self)
        self.ratings_table = ratings_table(self.ratings_model)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.texts, 1)
        layout.addWidget(self.scale_widget)
        layout.addWidget(self.ratings_table)
        layout.addLayout(self._verdict_row())
        layout.addLayout(self._note_row())
        self.setFocusProxy(self.scale_widget)

    def _verdict_row(self) -> QHBoxLayout:
        self.score_label = big_score_label(2.0)
        self.state_label = QLabel()
        self.state_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.score_label)
        row.addWidget(self.state_label, 1)
        return row

    def _note_row(self) -> QHBoxLayout:
        self.note_edit = named(QLineEdit(), "Adjudication note")
        self.note_edit.setPlaceholderText("Why this score (saved with Enter)")
        self.note_edit.setClearButtonEnabled(True)
        self.save_button = QPushButton("Save and next")
        self.withdraw_button = QPushButton("Withdraw verdict")
        for button in (self.save_button, self.withdraw_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row = QHBoxLayout()
        row.addWidget(QLabel("Note:"))
        row.addWidget(self.note_edit, 1)
        row.addWidget(self.withdraw_button)
        row.addWidget(self.save_button)
        return row

    def fit_ratings_table(self, rows: int) -> None:
        """Make the raters' table as tall as its rows (up to MAX_RATER_ROWS), so the texts
        get the rest of the height."""
        table = self.ratings_table
        shown = min(max(rows, 1), MAX_RATER_ROWS)
        table.setFixedHeight(table.horizontalHeader().sizeHint().height()
                             + shown * table.verticalHeader().defaultSectionSize() + 4)

    def set_text_size(self, points: int) -> None:
        """Set the point size of the two texts."""
        self.texts.set_point_size(points)
