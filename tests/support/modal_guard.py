"""A modal dialog that nobody answers holds a test for ever: offscreen, nobody clicks.

`ModalGuard` looks at the application's modal widget every half second. One that has
stayed up for `limit` seconds is closed (rejected), and its kind, title and text are kept,
so that the test fails naming the question it was stuck on instead of hanging the suite.
Tests that answer a dialog on purpose do so within moments, far below the limit.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

#: Seconds a modal dialog may stay up before the guard closes it and fails the test.
LIMIT = 30.0


def describe(widget: QWidget) -> str:
    """The dialog's kind, title and, for a message box, its text."""
    text = widget.text() if isinstance(widget, QMessageBox) else ""
    return f"{type(widget).__name__} {widget.windowTitle()!r}" + (f": {text}" if text else "")


class ModalGuard:
    """Closes a modal dialog left up for `limit` seconds; `seen` names each one."""

    def __init__(self, limit: float = LIMIT, every_ms: int = 500):
        self.limit = limit
        self.seen: list[str] = []
        self._up: tuple[int, float] | None = None  # (id of the modal widget, since when)
        self._timer = QTimer()
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(self._look)
        self._timer.start()

    def _look(self) -> None:
        modal = QApplication.activeModalWidget()
        if modal is None:
            self._up = None
            return
        if self._up is None or self._up[0] != id(modal):
            self._up = (id(modal), time.monotonic())
            return
        if time.monotonic() - self._up[1] < self.limit:
            return
        self.seen.append(describe(modal))
        self._up = None
        if isinstance(modal, QDialog):
            modal.reject()
        else:
            modal.close()

    def stop(self) -> None:
        self._timer.stop()
        self._timer.deleteLater()
