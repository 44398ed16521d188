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


def pair_labels(scale_name: str, dataset: str) -> tuple[str, str]:
    """Headings for the two texts: larger/smaller for CLSS data, else first/second."""
    match = CLSS_LEVEL.match(dataset or "")
    if match:
        return f"Larger text ({match.group(1)})", f"Smaller text ({match.group(2)})"
    if scale_name == "clss":
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
        left, right = pair_labels(self.scale_name, item["dataset"] or "")
        self.left_pane.set_text(left, item["left"])
        self.right_pane.set_text(right, item["right"])

    def set_point_size(self, points: int) -> None:
        """Set the point size of both texts."""
        self.left_pane.set_point_size(points)
        self.right_pane.set_point_size(points)
