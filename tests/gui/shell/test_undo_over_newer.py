"""The window's undo never overwrites a rating another process wrote since."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.core.test_undo_over_newer import elsewhere


def close_warning(seen: list[str]) -> None:
    """Read and close the warning the window shows (it is modal: poll until it is up)."""
    box = QApplication.activeModalWidget()
    if isinstance(box, QMessageBox):
        seen.append(box.text())
        box.close()
    else:
        QTimer.singleShot(20, lambda: close_warning(seen))


def test_window_undo_leaves_a_newer_rating_from_another_process(qtbot, window):
    project = window.context.project
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_3)
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") == 3.0
    elsewhere(project.path, "project.rate('d:1', 'alice', 1.0, note='on the laptop')")
    seen: list[str] = []
    QTimer.singleShot(0, lambda: close_warning(seen))
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert "changed elsewhere" in seen[0] and "newer value stays" in seen[0]
    record = project.rating_record("d:1", "alice")
    assert (record["score"], record["note"]) == (1.0, "on the laptop")
    stack = window.context.undo_stack
    assert stack.count() == 0 and not stack.canUndo() and not stack.canRedo()
