"""Blind by default: an annotator's window never shows another annotator's score."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


def all_texts(window) -> list[str]:
    """Every text the window can show: widgets, tooltips, menus, every cell of every view."""
    texts = [window.windowTitle(), window.statusBar().currentMessage()]
    for widget in window.findChildren(QWidget):
        texts.append(widget.toolTip())
        if isinstance(widget, QLabel | QAbstractButton | QLineEdit):
            texts.append(widget.text())
        elif isinstance(widget, QTextEdit):
            texts.append(widget.toPlainText())
        elif isinstance(widget, QPlainTextEdit):
            texts.append(widget.toPlainText())
        elif isinstance(widget, QComboBox):
            texts.extend(widget.itemText(i) for i in range(widget.count()))
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            for row in range(model.rowCount()):
                for column in range(model.columnCount()):
                    index = model.index(row, column)
                    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                        value = model.data(index, role)
                        if value is not None:
                            texts.append(str(value))
    texts.extend(action.text() for action in window.findChildren(QAction))
    return texts


def test_no_other_annotators_score_anywhere(qtbot, window):
    session = window.context.session
    project = window.context.project
    # bob rated d:1..d:4 with 3.75 (the fixture); alice rates some items too.
    project.rate("d:5", "alice", 1.0)
    project.rate("d:2", "bob", 3.75)
    for row in range(5):  # visit every item bob rated, and one of alice's
        session.go_to(row)
        qtbot.wait(1)
        texts = "\n".join(all_texts(window))
        assert "3.75" not in texts
        assert "bob" not in texts
        assert "agreement" not in texts.lower()
        assert "krippendorff" not in texts.lower()
        assert window.rating_panel.scale_widget.saved_code in (None, 4)
    session.go_to(4)
    assert "1" in window.rating_panel.score_label.text()  # alice's own score is shown


def test_the_window_never_builds_the_agreement_state(window):
    # Blind mode needs no agreement: opening and rating must not build it (it is slow).
    project = window.context.project
    window.context.session.go_to(3)
    project.rate("d:4", "alice", 2.0)
    assert not project.agreement.built
