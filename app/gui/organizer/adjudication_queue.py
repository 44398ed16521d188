"""AdjudicationQueue: work through the flagged items by keyboard.

Left, the queue (largest disagreement first, second-look items marked). Right, the item:
its two texts, every rater's score as a mark on the scale, their notes, and the verdict.
The keys are the rating view's (DESIGN.md): digits set the adjudicated score, a decimal
point typed after them goes on (`3`, `.`, `2`, `5` is 3.25), `+`/`-` (Up/Down) move it by a
step, Enter saves it with the note and moves to the next item of the queue; Left/Right move
along the queue without saving; Delete withdraws a verdict.
Each verdict is one undoable command. Everything shown is read back from the project.
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from simrate.core.actions import Adjudicate
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import Event, Verdict
from simrate.core.base.scale import fmt
from simrate.core.review.index import FLAGGED, AdjudicationRecords, ReviewIndex
from simrate.gui.base.undo import push_action
from simrate.gui.kit.accessible import named
from simrate.gui.kit.palette import PENDING_COLOUR, SAVED_COLOUR, SECOND_LOOK_COLOUR
from simrate.gui.organizer.flag_rule_box import FlagRuleBox, empty_queue_text
from simrate.gui.organizer.queue_model import QueueModel
from simrate.gui.organizer.rater_marks import RaterScore, counted_mean_code, item_ratings
from simrate.gui.organizer.verdict_view import VerdictView
from simrate.gui.widgets.score_keys import (
    KeyActions,
    show_score,
    show_state,
    stepped,
    typing_example,
)
from simrate.gui.widgets.text_pane import item_place
from simrate.gui.widgets.typed_score import TypedScore


class AdjudicationQueue(QWidget):
    """The queue of flagged items and the verdict editor."""

    #: A one-line message for the status bar.
    message = Signal(str)
    #: A write failed: the message to show in a dialog.
    failed = Signal(str)

    def __init__(self, context, records: AdjudicationRecords | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.project = context.project
        self.scale = self.project.scale
        self.review = ReviewIndex(self.project)
        self.records = records or AdjudicationRecords(self.project)
        self.current_id: str | None = None
        self.pending_code: int | None = None
        self.typing = TypedScore(self.scale)
        self.marks: list[RaterScore] = []  # every rater's record of the current item
        self._excluded = set(self.project.roster.left_out())
        self.model = QueueModel(self.project, self.review, self)
        self._build()
        # Only while the focus is in the item view: the queue list keeps its arrow keys.
        self.keys = KeyActions(self.view)
        self.actions_by_name = self.keys.by_name
        self._create_actions()
        self._counts_timer = QTimer(self, singleShot=True, interval=0)
        self._counts_timer.timeout.connect(self.refresh_counts)
        context.bridge.changed.connect(self._on_change)
        self.refresh_counts()
        self._show_placeholder_if_empty()

    # ------------------------------------------------------------------ widgets
    def _build(self) -> None:
        self.counts_label = QLabel()
        self.counts_label.setObjectName("queueCounts")
        self.counts_label.setWordWrap(True)
        self.table = self._queue_table()
        self.rule_box = FlagRuleBox(self.project, self.context.bridge)
        self.rule_box.failed.connect(self.failed)
        self.rule_box.rule_set.connect(self._on_rule_set)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(8, 8, 4, 8)
        left_layout.addWidget(self.rule_box)
        left_layout.addWidget(self.counts_label)
        left_layout.addWidget(self.table, 1)
        self.view = VerdictView(self.scale)
        self._adopt_view_widgets()
        self.set_text_size(self.context.settings.text_size())
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.right = QStackedWidget()
        self.right.addWidget(self.placeholder)
        self.right.addWidget(self.view)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([290, 900])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    def _queue_table(self) -> QTableView:
        table = named(QTableView(), "Flagged items")
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        table.verticalHeader().hide()
        # Fixed widths: sizing columns to their contents would scan every row of the queue.
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        metrics = table.fontMetrics()
        table.setColumnWidth(1, metrics.horizontalAdvance("Spread") + 20)
        table.setColumnWidth(2, metrics.horizontalAdvance("second look") + 20)
        table.selectionModel().currentRowChanged.connect(self._on_row_chosen)
        return table

    def _adopt_view_widgets(self) -> None:
        """Name the view's widgets here too, and connect the ones that act."""
        view = self.view
        self.item_label, self.status_label = view.item_label, view.status_label
        self.scale_widget, self.ratings_model = view.scale_widget, view.ratings_model
        self.score_label, self.state_label = view.score_label, view.state_label
        self.note_edit = view.note_edit
        self.save_button, self.withdraw_button = view.save_button, view.withdraw_button
        self.scale_widget.code_picked.connect(self.set_pending_code)
        self.save_button.clicked.connect(self.save_and_next)
        self.withdraw_button.clicked.connect(self.withdraw)

    def set_text_size(self, points: int) -> None:
        """Set the point size of the two texts (the View menu's Larger/Smaller text)."""
        self.view.set_text_size(points)

    # ------------------------------------------------------------------ keys
    def _create_actions(self) -> None:
        add = self.keys.add
        self.keys.add_score_keys(self.scale, "Verdict", self.type_key, self.step_by)
        add("save_next", "Save verdict and go to next flagged item", ["Return", "Enter"],
            self.save_and_next)
        add("previous", "Previous item in the queue", ["Left"], lambda: self.move_by(-1))
        add("next", "Next item in the queue", ["Right"], lambda: self.move_by(1))
        add("withdraw", "Withdraw the verdict", ["Delete"], self.withdraw)
        add("note", "Edit the verdict's note", ["Ctrl+E"], self.focus_note)
        add("focus_scale", "Back to the verdict", ["Escape"], self.focus_scale)

    # ------------------------------------------------------------------ navigation
    def open_first_flagged(self) -> None:
        """Show the first flagged item (else the first of the queue) and take the keys."""
        row = self.model.first_row_of_kind(FLAGGED)
        if row < 0 and self.model.rowCount():
            row = 0
        if row >= 0:
            self.show_item(self.model.item_at(row))
        self._show_placeholder_if_empty()
        self.focus_scale()

    def move_by(self, steps: int) -> None:
        """Show the item `steps` rows away in the queue (without saving)."""
        row = self.model.row_of(self.current_id) if self.current_id else -1
        entry = self.model.entry(max(0, row + steps) if row >= 0 else 0)
        if entry is not None:
            self.show_item(entry.item_id)

    def _on_row_chosen(self, current, _previous) -> None:
        entry = self.model.entry(current.row())
        if entry is not None and entry.item_id != self.current_id:
            self.show_item(entry.item_id)

    def _select_row_of(self, item_id: str) -> None:
        row = self.model.row_of(item_id)
        selection = self.table.selectionModel()
        selection.blockSignals(True)
        if row >= 0:
            index = self.model.index(row, 0)
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                      | QItemSelectionModel.SelectionFlag.Rows)
            self.table.scrollTo(index)
        else:
            selection.clearSelection()
        selection.blockSignals(False)

    def focus_note(self) -> None:
        """Put the keyboard in the note field."""
        self.note_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.note_edit.selectAll()

    def focus_scale(self) -> None:
        """Give the keyboard to the verdict."""
        self.scale_widget.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # ------------------------------------------------------------------ showing an item
    def show_item(self, item_id: str) -> None:
        """Show one item: texts, raters' marks and notes, the verdict so far."""
        item = self.project.item(item_id)
        self.current_id = item_id
        self.pending_code = None
        self.typing.reset()
        self.view.texts.show_item(item)
        where = item_place(item)
        self.item_label.setText(f"<b>{item_id}</b>" + (f" &nbsp; ({where})" if where else ""))
        verdict = self.records.get(item_id)
        self.note_edit.setText(verdict["note"] if verdict else "")
        self._load_ratings(item_id)
        self._select_row_of(item_id)
        self.right.setCurrentWidget(self.view)

    def _load_ratings(self, item_id: str) -> None:
        self.marks = item_ratings(self.project, item_id, self._excluded)
        self.scale_widget.set_marks(self.marks)
        self.ratings_model.set_rows(self.marks)
        self.view.fit_ratings_table(len(self.marks))
        self._refresh_verdict(item_id)

    def _refresh_verdict(self, item_id: str) -> None:
        status = self.review.status(item_id)
        spread = fmt(status.disagreement * self.scale.step)
        mean_code = counted_mean_code(self.marks)
        mean = ("" if mean_code is None else
                f" \u00b7 mean {self.scale.low + self.scale.step * mean_code:.2f}")
        self.status_label.setText((
            f"<span style='color:{SECOND_LOOK_COLOUR.name()}'><b>second look</b></span>: a later rating differs "
            f"by {spread}" if status.second_look else
            f"<b>flagged</b>: ratings {spread} apart" if status.flagged else
            "adjudicated" if status.adjudicated else "not flagged") + mean)
        verdict = self.records.get(item_id)
        saved = None if verdict is None else self.scale.to_code(verdict["score"])
        typed = self.typing.unfinished
        pending, _shown = show_score(self.scale_widget, self.score_label, saved, self.pending_code,
                                     typed)
        if typed:
            text, colour = f"Typing {typed}\u2026 not a score on this scale yet", PENDING_COLOUR
        elif pending is not None:
            text, colour = "Not saved \u2013 Enter saves the verdict and moves on", PENDING_COLOUR
        elif verdict is not None:
            by = f" by {verdict['by']}" if verdict["by"] else ""
            text, colour = f"\u2713 Adjudicated{by}", SAVED_COLOUR
        else:
            example = typing_example(self.scale)
            text = ("Type the adjudicated score" + (f" ({example})" if example else "")
                    + ", or step with + and \u2212; then Enter")
            colour = self.palette().color(self.palette().ColorRole.Mid).darker(150)
        show_state(self.state_label, text, colour)
        self.withdraw_button.setEnabled(verdict is not None)

    def _show_placeholder_if_empty(self) -> None:
        if self.model.rowCount() == 0 and self.current_id is None:
            self.placeholder.setText(empty_queue_text(self.project.flag_rule,
                                                      self.review.counts()["adjudicated"]))
            self.right.setCurrentWidget(self.placeholder)

    def _on_rule_set(self, rule) -> None:
        self.message.emit(f"Flag rule {rule.describe()}: "
                          f"{self.review.counts()['flagged']:,} items flagged")

    def refresh_counts(self) -> None:
        """The queue's counts line."""
        counts = self.review.counts()
        self.counts_label.setText(
            f"<b>{counts['flagged']:,}</b> flagged \u00b7 <b>{counts['second_look']:,}</b> "
            f"second look \u00b7 {counts['adjudicated']:,} adjudicated")

    # ------------------------------------------------------------------ the verdict
    def set_pending_code(self, code: int) -> None:
        """Make `code` the pending verdict (saved with Enter)."""
        if self.current_id is None:
            return
        self.typing.reset()
        self.pending_code = max(0, min(self.scale.max_code, int(code)))
        self._refresh_verdict(self.current_id)

    def type_key(self, key: str) -> None:
        """A digit or the decimal point typed: the pending verdict is what was typed so far;
        a value off the scale or its grid is refused with a line, never rounded."""
        if self.current_id is None:
            return
        typed = self.typing.key(key)
        if typed.refusal:
            self.message.emit(typed.refusal)
        self.pending_code = typed.code
        self._refresh_verdict(self.current_id)

    def step_by(self, steps: int) -> None:
        """Move the pending verdict by whole steps, starting from the saved one or the mean."""
        if self.current_id is None:
            return
        base = self.pending_code
        if base is None:
            verdict = self.records.get(self.current_id)
            mean_code = counted_mean_code(self.marks)
            base = (self.scale.to_code(verdict["score"]) if verdict else
                    None if mean_code is None else round(mean_code))
        self.set_pending_code(stepped(base, steps, self.scale))

    def _next_after(self, item_id: str) -> str | None:
        row = self.model.row_of(item_id)
        entry = self.model.entry(row + 1) if row >= 0 else self.model.entry(0)
        if entry is None and row > 0:
            entry = self.model.entry(0)  # wrap around to the top
        return entry.item_id if entry is not None and entry.item_id != item_id else None

    def save_and_next(self) -> None:
        """Save the pending verdict (and note), then show the next item of the queue."""
        item_id = self.current_id
        if item_id is None:
            return
        if self.typing.unfinished:
            self.message.emit(self.typing.refuse_unfinished())
            self._refresh_verdict(item_id)
            return
        note = self.note_edit.text().strip()
        verdict = self.records.get(item_id)
        if self.pending_code is not None:
            new = Verdict(self.pending_code, note)
        elif verdict is not None:
            new = Verdict(self.scale.to_code(verdict["score"]), note)
        else:
            self.message.emit(f"Type the adjudicated score first ({fmt(self.scale.low)}"
                              f"\u2013{fmt(self.scale.high)})")
            return
        row = self.model.row_of(item_id)
        following = self._next_after(item_id)
        if not self._write(item_id, new):
            return
        self.message.emit(f"Adjudicated {item_id}: {fmt(self.scale.from_code(new.code))}")
        self._go_on(following, row)

    def _go_on(self, following: str | None, row: int) -> None:
        if following is not None and self.model.row_of(following) >= 0:
            self.show_item(following)
        elif self.model.rowCount():
            self.show_item(self.model.item_at(min(max(row, 0), self.model.rowCount() - 1)))
        else:
            self.current_id = None
            self._show_placeholder_if_empty()
            self.message.emit("The queue is empty: every flagged item is adjudicated")
        self.focus_scale()

    def withdraw(self) -> None:
        """Delete: withdraw the current item's verdict (it returns to the queue if flagged)."""
        if self.current_id is None or self.records.get(self.current_id) is None:
            return
        if self._write(self.current_id, Verdict()):
            self.message.emit(f"Verdict on {self.current_id} withdrawn")

    def _write(self, item_id: str, new: Verdict) -> bool:
        try:
            push_action(self.context.undo_stack, self.project,
                        Adjudicate(item_id, new, self.context.annotator or ""), item_id,
                        on_applied=self.show_item,
                        on_error=lambda exc: self.failed.emit(str(exc)))
        except SimrateError as exc:
            self.failed.emit(str(exc))
            return False
        self.pending_code = None
        self.typing.reset()
        return True

    # ------------------------------------------------------------------ following the project
    def _on_change(self, event: Event) -> None:
        self.records.on_event(event)
        if event.is_bulk:
            self._excluded = set(self.project.roster.left_out())
            self.model.rebuild()
            if self.current_id is None and self.model.rowCount():
                self.show_item(self.model.item_at(0))  # a new rule filled the queue
            elif self.current_id is not None and self.project.has_item(self.current_id):
                pending = self.pending_code
                self.show_item(self.current_id)
                self.pending_code = pending
                self._refresh_verdict(self.current_id)
            self._show_placeholder_if_empty()
        elif event.item_id is not None:
            self.model.refresh_item(event.item_id)
            if event.item_id == self.current_id:
                self._load_ratings(event.item_id)
                self._select_row_of(event.item_id)
        else:
            return
        self._counts_timer.start()
