"""RatingPanel: the two texts, the scale and this annotator's score, driven by the keyboard.

Keys (DESIGN.md): digits set the integer score, a decimal point typed after them goes on
(`3`, `.`, `2`, `5` is 3.25) and `+`/`-` (Up/Down) move it by a step;
these set a *pending* score, drawn as an orange ring and labelled "not saved". Enter
saves it (one committed transaction, one undo step) and moves to the next item this
annotator has not rated. Left/Right move without changing anything: a pending score is
dropped. Delete clears the saved rating at once. The panel keeps only that pending score;
everything saved is read back from the project.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from simrate.core.actions import SetRating
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingState
from simrate.core.base.scale import fmt
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.session import SKIPPED
from simrate.gui.base.undo import push_action
from simrate.gui.kit.palette import PENDING_COLOUR, SAVED_COLOUR
from simrate.gui.widgets.scale_widget import ScaleWidget
from simrate.gui.widgets.score_keys import (
    KeyActions,
    big_score_label,
    show_score,
    show_state,
    stepped,
    typing_example,
)
from simrate.gui.widgets.text_pane import PairTexts, item_place
from simrate.gui.widgets.typed_score import TypedScore

SKIP_REASONS = (
    "Cannot judge: a text is unreadable or garbled",
    "Cannot judge: unknown language or jargon",
    "Cannot judge: the texts are identical or empty",
    "Other (say why)",
)


class RatingPanel(QWidget):
    """The central rating view of the current item."""

    #: A one-line message for the status bar.
    message = Signal(str)
    #: A write failed: the message to show in a dialog.
    failed = Signal(str)

    def __init__(self, context: ApplicationContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.project, self.session = context.opened()
        self.scale = self.project.scale
        self.pending_code: int | None = None
        self.typing = TypedScore(self.scale)
        self._record = RatingState()
        self._build_widgets()
        self.keys = KeyActions(self)
        self.actions_by_name = self.keys.by_name
        self._create_actions()
        self.set_text_size(context.settings.text_size())
        self.session.current_changed.connect(self._show_row)
        self.session.row_changed.connect(self._on_row_changed)
        self.session.reset.connect(lambda: self._show_row(self.session.current_row))

    # ----------------------------------------------------------- widgets
    def _build_widgets(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(self._build_header())
        self.texts = PairTexts(self.scale.name)
        self.left_pane, self.right_pane = self.texts.left_pane, self.texts.right_pane
        layout.addWidget(self.texts, 1)
        self.scale_widget = ScaleWidget(self.scale)
        self.scale_widget.code_picked.connect(self.set_pending_code)
        layout.addWidget(self.scale_widget)
        layout.addLayout(self._build_score_row())
        layout.addLayout(self._build_note_row())
        self.setFocusProxy(self.scale_widget)

    def _build_header(self) -> QHBoxLayout:
        self.position_label = QLabel()
        self.position_label.setObjectName("itemPosition")
        self.position_label.setFont(_bold(self.position_label.font()))
        self.item_label = QLabel()
        self.item_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.item_label.setObjectName("itemId")
        header = QHBoxLayout()
        header.addWidget(self.position_label)
        header.addSpacing(12)
        header.addWidget(self.item_label, 1)
        return header

    def _build_score_row(self) -> QHBoxLayout:
        self.score_label = big_score_label(2.2)
        self.score_label.setObjectName("scoreValue")
        self.point_label = QLabel()
        self.point_label.setFont(_bold(self.point_label.font()))
        self.state_label = QLabel()
        self.state_label.setObjectName("saveState")
        self.guideline_label = QLabel()
        self.guideline_label.setWordWrap(True)
        self.guideline_label.setObjectName("guideline")
        self.guideline_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # Room for two lines always: the scale above must not jump from item to item.
        self.guideline_label.setFixedHeight(
            self.guideline_label.fontMetrics().lineSpacing() * 2 + 4)
        self.guideline_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        top = QHBoxLayout()
        top.addWidget(self.point_label)
        top.addStretch(1)
        top.addWidget(self.state_label)
        words = QVBoxLayout()
        words.setSpacing(2)
        words.addLayout(top)
        words.addWidget(self.guideline_label)
        row = QHBoxLayout()
        row.addWidget(self.score_label)
        row.addLayout(words, 1)
        return row

    def _build_note_row(self) -> QHBoxLayout:
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText(
            "optional; saved with the score when you press Enter (Ctrl+E)")
        self.note_edit.setClearButtonEnabled(True)
        self.skip_button = QPushButton("Skip\u2026")
        self.clear_button = QPushButton("Clear")
        self.save_button = QPushButton("Save and next")
        for button in (self.skip_button, self.clear_button, self.save_button):
            # Buttons are for the mouse: the keyboard stays with the score.
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.skip_button.clicked.connect(self.ask_skip)
        self.clear_button.clicked.connect(self.clear_rating)
        self.save_button.clicked.connect(self.save_and_next)
        note_label = QLabel("Note:")
        note_label.setBuddy(self.note_edit)
        row = QHBoxLayout()
        row.addWidget(note_label)
        row.addWidget(self.note_edit, 1)
        row.addWidget(self.skip_button)
        row.addWidget(self.clear_button)
        row.addWidget(self.save_button)
        return row

    # ----------------------------------------------------------- actions (the keyboard contract)
    def _create_actions(self) -> None:
        add = self.keys.add
        self.keys.add_score_keys(self.scale, "Score", self.type_key, self.step_by)
        add("save_next", "Save and go to next unrated", ["Return", "Enter"], self.save_and_next)
        add("previous", "Previous item", ["Left"], self.session.go_previous)
        add("next", "Next item", ["Right"], self.session.go_next)
        add("clear", "Clear my rating", ["Delete"], self.clear_rating)
        add("skip", "Skip: cannot judge\u2026", ["Ctrl+K"], self.ask_skip)
        add("note", "Edit note", ["Ctrl+E"], self.focus_note)
        add("focus_scale", "Back to the score", ["Escape"], self.focus_scale)
        add("first_unrated", "First unrated item", ["Ctrl+U"], self.session.go_first_unrated)

    # ----------------------------------------------------------- showing an item
    def _show_row(self, row: int) -> None:
        session = self.session
        if not 0 <= row < session.n:
            return
        item_id = session.ids[row]
        item = self.project.item(item_id)
        self.texts.show_item(item)
        self.position_label.setText(f"Item {row + 1:,} of {session.n:,}")
        where = item_place(item)
        self.item_label.setText(f"{item_id}" + (f"   ({where})" if where else ""))
        self.pending_code = None
        self.typing.reset()
        self._load_record()

    def _on_row_changed(self, row: int) -> None:
        if row == self.session.current_row:
            latest = self.session.latest_state(row)  # from the event: no read back
            if latest is None:
                self._load_record()
            else:
                self._record = latest
                self.note_edit.setText(latest.note)
                self._refresh_score()

    def _load_record(self) -> None:
        item_id = self.session.current_id()
        if item_id is None:
            return
        self._record = self.project.rating_state(item_id, self.session.annotator)
        self.note_edit.setText(self._record.note)
        self._refresh_score()

    def saved_code(self) -> int | None:
        """The code of this annotator's saved score for the current item, or None."""
        row = self.session.current_row
        code = int(self.session.codes[row]) if 0 <= row < self.session.n else -1
        return None if code < 0 else code

    def _refresh_score(self) -> None:
        saved = self.saved_code()
        typed = self.typing.unfinished
        pending, shown = show_score(self.scale_widget, self.score_label, saved, self.pending_code,
                                    typed)
        skipped = self.session.state[self.session.current_row] == SKIPPED
        label, guideline = self._describe(shown)
        if shown is None:
            label = "Skipped: you cannot judge this pair" if skipped else "No score yet"
        self.point_label.setText(label)
        self.guideline_label.setText(guideline)
        if typed:
            text, colour = f"Typing {typed}\u2026 not a score on this scale yet", PENDING_COLOUR
        elif pending is not None:
            text, colour = "Not saved \u2013 press Enter to save", PENDING_COLOUR
        elif saved is not None:
            text, colour = "\u2713 Saved", SAVED_COLOUR
        elif skipped:
            reason = self._record.note or "no reason given"
            text, colour = f"Skipped: {reason}", PENDING_COLOUR.darker(150)
        else:
            text, colour = "Not rated yet", self.palette().color(self.palette().ColorRole.Mid)
        show_state(self.state_label, text, colour)

    def _describe(self, code: int | None) -> tuple[str, str]:
        """The label and guideline text for a score: its point's, or the two it lies between."""
        if code is None or not self.scale.points:
            return "", self._hint()
        value = self.scale.from_code(code)
        points = sorted(self.scale.points, key=lambda p: p.value)
        below = [p for p in points if p.value <= value + 1e-9]
        above = [p for p in points if p.value >= value - 1e-9]
        if below and above and below[-1] is not above[0]:
            low, high = below[-1], above[0]
            nearest = low if value - low.value <= high.value - value else high
            label = (f"Between {fmt(low.value)} {low.label.lower()} and {fmt(high.value)} "
                     f"{high.label.lower()}")
            return label, nearest.guideline
        point = below[-1] if below else above[0]
        return point.label, point.guideline

    def _hint(self) -> str:
        low, high = fmt(self.scale.low), fmt(self.scale.high)
        example = typing_example(self.scale)
        return (f"Type a score from {low} to {high}" + (f" ({example})" if example else "")
                + f"; + and \u2212 move it by {fmt(self.scale.step)}; Enter saves and moves on. "
                "Hover the scale or press F1 for the guidelines.")

    # ----------------------------------------------------------- editing the pending score
    def set_pending_code(self, code: int) -> None:
        """Make `code` the pending score (not saved until Enter); what was typed is over."""
        self.typing.reset()
        self.pending_code = max(0, min(self.scale.max_code, int(code)))
        self._refresh_score()

    def type_key(self, key: str) -> None:
        """A digit or the decimal point typed: the pending score is what was typed so far;
        a value off the scale or its grid is refused with a line, never rounded."""
        typed = self.typing.key(key)
        if typed.refusal:
            self.message.emit(typed.refusal)
        self.pending_code = typed.code
        self._refresh_score()

    def step_by(self, steps: int) -> None:
        """Move the pending score by whole steps; from nothing, start at the end moved from."""
        base = self.pending_code if self.pending_code is not None else self.saved_code()
        self.set_pending_code(stepped(base, steps, self.scale))

    def focus_note(self) -> None:
        """Put the keyboard in the note field."""
        self.note_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.note_edit.selectAll()

    def focus_scale(self) -> None:
        """Give the keyboard back to the score."""
        self.scale_widget.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # ----------------------------------------------------------- saving
    def _write(self, new: RatingState) -> bool:
        item_id = self.session.current_id()
        if item_id is None:
            return False
        try:
            push_action(self.context.undo_stack, self.project,
                        SetRating(item_id, self.session.annotator, new), item_id,
                        on_applied=self.context.show_item,
                        on_error=lambda exc: self.failed.emit(str(exc)))
        except SimrateError as exc:
            self.failed.emit(str(exc))
            return False
        return True

    def save_and_next(self) -> None:
        """Save the pending score (and note) and move to the next item not yet rated."""
        note = self.note_edit.text().strip()
        saved = self.saved_code()
        skipped = self.session.state[self.session.current_row] == SKIPPED
        if self.typing.unfinished:
            self.message.emit(self.typing.refuse_unfinished())
            self._refresh_score()
            return
        if self.pending_code is not None:
            seconds = round(self.session.elapsed(), 3)
            new = RatingState(self.pending_code, note, False, seconds)
            if not self._write(new):
                return
            self.session.note_rated(seconds)
            score = fmt(self.scale.from_code(self.pending_code))
            self.message.emit(f"Saved {score} for {self.session.current_id()}")
        elif saved is not None or skipped:
            old = self._record
            new = RatingState(old.code, note, skipped, old.seconds)
            if not self._write(new):
                return
        else:
            self.message.emit(f"Type a score first ({fmt(self.scale.low)}\u2013"
                              f"{fmt(self.scale.high)}), or skip the item with Ctrl+K")
            return
        self.pending_code = None
        self.typing.reset()
        self.go_next_unrated()

    def go_next_unrated(self) -> None:
        """Move to the next item this annotator has not rated or skipped."""
        row = self.session.next_unrated(self.session.current_row)
        if row is None:
            self._refresh_score()
            self.message.emit("Every item is rated or skipped: well done!")
            return
        self.session.go_to(row)
        self.focus_scale()

    def clear_rating(self) -> None:
        """Delete: clear this annotator's score or skip for the item (the note stays)."""
        self.pending_code = None
        self.typing.reset()
        if self.saved_code() is None and self.session.state[self.session.current_row] != SKIPPED:
            self._refresh_score()
            return
        note = self._record.note
        if self.session.state[self.session.current_row] == SKIPPED:
            note = ""  # a skip's note is its reason: it goes with the skip
        if self._write(RatingState(None, note, False, None)):
            self.message.emit(f"Cleared your rating of {self.session.current_id()}")

    def ask_skip(self) -> None:
        """Ask why the item cannot be judged, then skip it."""
        reason, ok = QInputDialog.getItem(self, "Skip this item",
                                          "Why can you not judge this pair?", SKIP_REASONS, 0,
                                          True)
        if ok:
            self.skip_current(reason.strip())

    def skip_current(self, reason: str) -> None:
        """Mark the current item as one this annotator cannot judge, and move on."""
        if self._write(RatingState(None, reason, True, None)):
            self.message.emit(f"Skipped {self.session.current_id()}")
            self.go_next_unrated()

    def set_text_size(self, points: int) -> None:
        """Set the point size of the two texts."""
        self.texts.set_point_size(points)


def _bold(font: QFont) -> QFont:
    """A bold copy of a font."""
    bold = QFont(font)
    bold.setBold(True)
    return bold
