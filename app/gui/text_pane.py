"""TextPane: one of the two texts being compared, under its heading, large and scrollable."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextOption
from PySide6.QtWidgets import QFrame, QLabel, QTextBrowser, QVBoxLayout, QWidget


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
