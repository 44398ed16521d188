"""The suite's guard against a modal dialog that nobody answers (tests/support/modal_guard.py)."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.support.modal_guard import ModalGuard


def test_an_unanswered_warning_is_closed_and_named():
    guard = ModalGuard(limit=0.5, every_ms=50)
    try:
        started = time.monotonic()
        QMessageBox.warning(None, "simrate", "the project is busy")  # nobody clicks
        waited = time.monotonic() - started
    finally:
        guard.stop()
    assert guard.seen == ["QMessageBox 'simrate': the project is busy"]
    assert 0.5 <= waited < 10
    assert QApplication.activeModalWidget() is None


def test_a_dialog_answered_in_time_is_left_alone(qtbot):
    guard = ModalGuard(limit=5.0, every_ms=50)
    try:
        box = QMessageBox(QMessageBox.Icon.Question, "Organizer mode", "Switch?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        qtbot.addWidget(box)
        QTimer.singleShot(200, box.button(QMessageBox.StandardButton.Yes).click)
        answer = box.exec()
    finally:
        guard.stop()
    assert guard.seen == []
    assert answer == QMessageBox.StandardButton.Yes
