"""Every window of simrate closes the same way: Esc, Ctrl+W, or its Close button.

A QDialog's Esc already rejects it; Ctrl+W is added. A window made from a QWidget (the
evaluation window) gets both keys. The keys act while the focus is anywhere in that window,
so they never reach the main window (where Ctrl+W closes the project).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPushButton, QVBoxLayout, QWidget


def close_keys(window: QWidget) -> QAction:
    """Esc (for a window that is not a dialog) and Ctrl+W close `window`."""
    keys = ["Ctrl+W"] if isinstance(window, QDialog) else ["Escape", "Ctrl+W"]
    action = QAction("Close", window)
    action.setShortcuts([QKeySequence(k) for k in keys])
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(window.reject if isinstance(window, QDialog) else window.close)
    window.addAction(action)
    return action


def close_button(window: QWidget) -> QPushButton:
    """A Close button for `window` (with the Esc and Ctrl+W keys)."""
    close_keys(window)
    button = QPushButton("Close")
    button.setAutoDefault(False)
    button.clicked.connect(window.close)
    return button


def close_row(dialog: QDialog) -> QDialogButtonBox:
    """A button row holding only Close, for a window that asks nothing."""
    close_keys(dialog)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    return buttons


class PanelDialog(QDialog):
    """A window of its own around one panel, with a Close row under it; deleted on close.
    `panel` is the panel it holds (set by `hold`)."""

    panel: QWidget

    def __init__(self, parent: QWidget, title: str):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def hold(self, panel: QWidget) -> None:
        """Lay out `panel` (made with this dialog as its parent) above the Close row."""
        self.panel = panel
        layout = QVBoxLayout(self)
        layout.addWidget(panel)
        layout.addWidget(close_row(self))
