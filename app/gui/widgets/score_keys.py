"""Typing a score by keyboard, the same way in the rating view (an annotator's score) and in
the adjudication queue (the organizer's verdict), as DESIGN.md asks.

Digits set the integer score, a decimal point typed after them goes on (`3`, `.`, `2`, `5`
is 3.25, read by TypedScore), and `+`/`=`/Up, `-`/Down move it by one step. What they set is
a *pending* score: a ring on the scale and a number in the pending colour, until Enter saves
it. Every key is a QAction that acts only while the keyboard focus is inside the view that
owns it, so the item list and the search box keep their own arrows and digits; the views put
the actions in a menu.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QFont, QKeySequence
from PySide6.QtWidgets import QLabel, QWidget

from simrate.core.base.scale import Scale, fmt
from simrate.gui.kit.palette import PENDING_COLOUR, colour_style
from simrate.gui.widgets.scale_widget import ScaleWidget


class KeyActions:
    """The named keyboard actions of one view, active while the focus is inside `owner`."""

    def __init__(self, owner: QWidget):
        self.owner = owner
        self.by_name: dict[str, QAction] = {}

    def add(self, name: str, text: str, keys: list[str], slot: Callable) -> QAction:
        """A menu action with these keys, calling `slot`."""
        action = QAction(text, self.owner)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.owner.addAction(action)
        self.by_name[name] = action
        return action

    def add_score_keys(self, scale: Scale, noun: str, type_key: Callable[[str], None],
                       step_by: Callable[[int], None]) -> None:
        """The ten digits and the decimal point, each handed to `type_key` as typed, and one
        step up or down; `noun` names what they set in the menu (Score, Verdict)."""
        for digit in range(10):
            point = scale.point_for(digit)
            if scale.low <= digit <= scale.high:
                label = f" \u2013 {point.label}" if point and point.value == digit else ""
                name, text = f"score_{digit}", f"{noun} {digit}{label}"
            else:  # off the scale as a whole number: only a fraction's digit
                name, text = f"digit_{digit}", f"Digit {digit} after a decimal point"
            self.add(name, text, [str(digit)], lambda _=False, k=str(digit): type_key(k))
        example = typing_example(scale)
        self.add("decimal_point", "Decimal point: the fraction follows"
                 + (f" ({example})" if example else ""), ["."], lambda: type_key("."))
        self.add("increase", f"{noun} up one step", ["+", "=", "Up"], lambda: step_by(1))
        self.add("decrease", f"{noun} down one step", ["-", "Down"], lambda: step_by(-1))


def typing_example(scale: Scale) -> str:
    """How a value with a fraction is typed on this scale (`3 . 2 5 is 3.25`); '' on a scale
    of whole numbers only."""
    written = [fmt(scale.from_code(c)) for c in range(scale.n_codes)]
    fractions = [value for value in written if "." in value]
    if not fractions:
        return ""
    # DESIGN.md's own example where the scale has it, else one three quarters up
    value = "3.25" if "3.25" in fractions else fractions[len(fractions) * 3 // 4]
    return f"{' '.join(value)} is {value}"


def stepped(base: int | None, steps: int, scale: Scale) -> int:
    """The code `steps` away from `base`, kept on the scale; from no score at all, the end
    the keys move away from (up from the bottom, down from the top)."""
    if base is None:
        return 0 if steps > 0 else scale.max_code
    return max(0, min(scale.max_code, base + steps))


def big_score_label(factor: float = 2.0) -> QLabel:
    """The large, bold, centred number that shows the score; wide enough for `4.25`."""
    label = QLabel()
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * factor)
    font.setBold(True)
    label.setFont(font)
    label.setMinimumWidth(label.fontMetrics().horizontalAdvance("4.25") + 16)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    return label


def show_score(scale_widget: ScaleWidget, score_label: QLabel, saved: int | None,
               pending: int | None, typed: str = "") -> tuple[int | None, int | None]:
    """Draw the saved score and the pending one on the scale and in the big number (the
    pending one in its colour); returns (pending, shown), pending None when it is the saved.
    `typed` is a fraction still being typed (`3.2`): shown as typed, on no grid point yet."""
    pending = pending if pending != saved else None
    shown = pending if pending is not None else saved
    scale_widget.set_codes(saved, pending)
    text = "\u2013" if shown is None else fmt(scale_widget.scale.from_code(shown))
    score_label.setText(typed or text)
    set_style(score_label, colour_style(PENDING_COLOUR) if pending is not None or typed else "")
    return pending, shown


def show_state(label: QLabel, text: str, colour: QColor) -> None:
    """The line saying whether the score is saved, pending or missing, in its colour."""
    label.setText(text)
    set_style(label, colour_style(colour, bold=True))


def set_style(widget: QWidget, style: str) -> None:
    """Set a style sheet only when it changes: restyling costs a relayout."""
    if widget.styleSheet() != style:
        widget.setStyleSheet(style)
