"""ItemRatingsPanel: in organizer mode, every annotator's rating of the item in the rating view.

It follows the rating view's current item and any change to that item: each rater's score
as a mark on the scale, their notes, and the item's review state (flagged, second look,
adjudicated). Read-only: verdicts are given in the adjudication queue.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from simrate.core.base.events import Event
from simrate.core.base.scale import fmt
from simrate.core.review.index import AdjudicationRecords, ReviewIndex
from simrate.gui.organizer.rater_marks import (
    ItemRatingsModel,
    RaterMarksScale,
    item_ratings,
    ratings_table,
)


class ItemRatingsPanel(QWidget):
    """All raters' scores and notes for the current item."""

    def __init__(self, context, records: AdjudicationRecords | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.project = context.project
        self.review = ReviewIndex(self.project)
        self.records = records or AdjudicationRecords(self.project)
        self.item_id: str | None = None
        self.state_label = QLabel()
        self.state_label.setWordWrap(True)
        self.scale_widget = RaterMarksScale(self.project.scale)
        # A picture here, not a control: verdicts are set in the adjudication queue.
        self.scale_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scale_widget.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.model = ItemRatingsModel(self.project.scale, self)
        self.table = ratings_table(self.model)
        self.table.setMaximumHeight(self.scale_widget.sizeHint().height())
        # Side by side, so that the panel stays low under the rating view.
        row = QHBoxLayout()
        row.addWidget(self.scale_widget, 3)
        row.addWidget(self.table, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addWidget(self.state_label)
        layout.addLayout(row, 1)
        session = context.session
        if session is not None:
            session.current_changed.connect(lambda row: self.show_item(session.current_id()))
        context.bridge.changed.connect(self._on_change)
        if session is not None and session.current_id():
            self.show_item(session.current_id())

    def show_item(self, item_id: str | None) -> None:
        """Show every rater's record of one item."""
        self.item_id = item_id
        if item_id is None:
            return
        marks = item_ratings(self.project, item_id)
        self.scale_widget.set_marks(marks)
        self.model.set_rows(marks)
        status = self.review.status(item_id)
        verdict = self.records.get(item_id)
        saved = None if verdict is None else self.project.scale.to_code(verdict["score"])
        self.scale_widget.set_codes(saved, None)
        spread = fmt(status.disagreement * self.project.scale.step)
        if status.second_look:
            state = f"<b>Second look</b>: a later rating differs from the verdict by {spread}"
        elif status.flagged:
            state = f"<b>Flagged</b>: ratings {spread} apart (Ctrl+J to adjudicate)"
        elif verdict is not None:
            state = f"Adjudicated: <b>{fmt(verdict['score'])}</b>"
        else:
            state = f"{len(marks)} rating{'s' * (len(marks) != 1)}, not flagged"
        self.state_label.setText(f"{item_id}: {state}")

    def _on_change(self, event: Event) -> None:
        self.records.on_event(event)
        if self.item_id is not None and (event.is_bulk or event.item_id == self.item_id):
            if self.project.has_item(self.item_id):
                self.show_item(self.item_id)
