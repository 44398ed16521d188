"""Widgets that keep their whole text on screen, whatever the layout around them does.

Qt's layouts give a word-wrapped label the height of its text wrapped at its size hint's
width, not at the width it ends up with, so a long line wrapped to three lines in a narrow
column loses its last lines; and a combo box may be squeezed below the width of its longest
choice. These helpers make the layouts ask for what the text needs.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QWidget


class WrappedLabel(QLabel):
    """A word-wrapped label whose minimum height is what its text needs at its width."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        """Set the text, and the height it needs at the present width."""
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """A new width: a new height for the wrapped text."""
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        need = self.heightForWidth(max(1, self.width())) if self.text() else 0
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)


def fit_choices(combo: QComboBox) -> QComboBox:
    """Never narrower than its longest choice (call once its choices are in)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setMinimumWidth(combo.sizeHint().width())
    return combo
