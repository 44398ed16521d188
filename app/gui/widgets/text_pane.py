"""The two texts being compared: each a TextPane under its heading, large and scrollable,
one above the other in a PairTexts, as both the rating view and the adjudication queue show
them."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QSplitter, QTextBrowser, QVBoxLayout, QWidget

#: CLSS comparison types name the larger and smaller unit: `paragraph2sentence`.
CLSS_LEVEL = re.compile(r"^(paragraph|sentence|phrase|word)2(sentence|phrase|word|sense)$")


def pair_labels(scale_name: str, dataset: str, meta: dict | None = None) -> tuple[str, str]:
    """Headings for an item's two texts.

    "Larger text" and "Smaller text" only where the data says which is larger (a CLSS
    comparison type such as `paragraph2sentence`); a pyramid ranking question's "Question" and
    "Candidate" (or the names its import gave, `left_label` and `right_label`); otherwise
    "First text" and "Second text", whatever the scale (`scale_name` is kept for callers).
    """
    match = CLSS_LEVEL.match(dataset or "")
    if match:
        return f"Larger text ({match.group(1)})", f"Smaller text ({match.group(2)})"
    meta = meta or {}
    if meta.get("left_label") and meta.get("right_label"):
        return str(meta["left_label"]), str(meta["right_label"])
    if meta.get("test") == "ranking":
        return "Question", "Candidate"
    return "First text", "Second text"


def column_labels(datasets: list[str]) -> tuple[str, str]:
    """Headings of the item list's two text columns: larger and smaller only when every
    dataset is a CLSS comparison type, else first and second."""
    named = [d for d in datasets if d]
    if named and all(CLSS_LEVEL.match(d) for d in named) and len(named) == len(datasets):
        return "Larger text", "Smaller text"
    return "First text", "Second text"


def item_place(item: dict) -> str:
    """`dataset \u00b7 genre` of an item, leaving out what it lacks."""
    return " \u00b7 ".join(x for x in (item["dataset"], item["genre"]) if x)


class TextPane(QWidget):
    """A heading and a read-only text view; long texts scroll."""

    def __init__(self, heading: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.heading = QLabel(heading)
        self.heading.setObjectName("textHeading")
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.view = QTextBrowser()
        self.view.setObjectName("pairText")
        # The rating keeps the keyboard focus: the texts are read, scrolled and selected
        # with the mouse, never typed into, so they must not swallow digits or arrows.
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view.setOpenLinks(False)
        self.view.setFrameShape(QFrame.Shape.StyledPanel)
        self.view.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.view, 1)

    def set_text(self, heading: str, text: str) -> None:
        """Show a text under a heading, scrolled to its start."""
        self.heading.setText(heading)
        self.view.setPlainText(text)
        self.view.verticalScrollBar().setValue(0)

    def text(self) -> str:
        """The text shown."""
        return self.view.toPlainText()

    def set_point_size(self, points: int) -> None:
        """Set the size of the text (not of the heading)."""
        font = QFont(self.view.font())
        font.setPointSize(points)
        self.view.setFont(font)
        self.view.document().setDefaultFont(font)


class PairTexts(QSplitter):
    """The two texts of an item, one above the other, under headings that say what they are."""

    def __init__(self, scale_name: str, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.scale_name = scale_name
        self.left_pane, self.right_pane = TextPane(""), TextPane("")
        self.addWidget(self.left_pane)
        self.addWidget(self.right_pane)
        self.setChildrenCollapsible(False)
        # CLSS: the larger text (a paragraph, often) gets more of the height.
        clss = scale_name == "clss"
        self.setStretchFactor(0, 3 if clss else 1)
        self.setStretchFactor(1, 2 if clss else 1)

    def show_item(self, item: dict) -> None:
        """Show an item's two texts (a `Project.item` record)."""
        left, right = pair_labels(self.scale_name, item["dataset"] or "", item.get("meta"))
        self.left_pane.set_text(left, item["left"])
        self.right_pane.set_text(right, item["right"])

    def set_point_size(self, points: int) -> None:
        """Set the point size of both texts."""
        self.left_pane.set_point_size(points)
        self.right_pane.set_point_size(points)
