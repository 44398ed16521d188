"""Every view and dialog at 1366x768, offscreen: no label, button or combo box is narrower or
shorter than its size hint, and none has its text cut off; every control has an accessible
name (what a screen reader says for it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QComboBox,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QWidget,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from render_views import VIEWS, render_all  # noqa: E402


def plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def clipped(widget: QWidget) -> str:
    """What is wrong with one widget's size, or ''."""
    hint, size = widget.sizeHint(), widget.size()
    if isinstance(widget, QLabel):
        if not widget.text() or widget.pixmap() is not None and not widget.pixmap().isNull():
            return ""
        if widget.wordWrap():
            need = widget.heightForWidth(widget.width())
            if need > size.height():
                return f"wrapped text needs {need} px of height, has {size.height()}"
            return ""
        if size.width() < hint.width() or size.height() < hint.height():
            return f"{size.width()}x{size.height()} < hint {hint.width()}x{hint.height()}"
        return ""
    if isinstance(widget, QComboBox):
        option = QStyleOptionComboBox()
        widget.initStyleOption(option)
        field = widget.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                              QStyle.SubControl.SC_ComboBoxEditField, widget)
        text = widget.fontMetrics().horizontalAdvance(widget.currentText())
        if text > field.width():
            return f"current text needs {text} px, the field has {field.width()}"
        if size.width() < hint.width() or size.height() < hint.height():
            return f"{size.width()}x{size.height()} < hint {hint.width()}x{hint.height()}"
        return ""
    if isinstance(widget, QAbstractButton) and widget.text():
        if size.width() < hint.width() or size.height() < hint.height():
            return f"{size.width()}x{size.height()} < hint {hint.width()}x{hint.height()}"
    return ""


def in_scroll_area(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return True
        parent = parent.parentWidget()
    return False


def cut_by_parent(widget: QWidget) -> str:
    """'' when the whole widget is on screen; else how much of it its parents cut off
    (in a scroll area, scrolling shows the rest: not counted)."""
    if in_scroll_area(widget):
        return ""
    shown = widget.visibleRegion().boundingRect()
    whole = widget.rect()
    if shown.width() < whole.width() or shown.height() < whole.height():
        return (f"only {shown.width()}x{shown.height()} of {whole.width()}x{whole.height()} "
                "inside its window")
    return ""


def problems_in(windows) -> list[str]:
    found, done = [], set()
    for window in windows:
        for widget in window.findChildren(QWidget):
            if id(widget) in done:
                continue  # a dialog is also a child of the window
            done.add(id(widget))
            if not widget.isVisible() or widget.visibleRegion().isEmpty():
                continue  # hidden, or in a dock tab behind another (moved off the window)
            if not isinstance(widget, (QLabel, QComboBox, QAbstractButton)):
                continue
            problem = clipped(widget) or cut_by_parent(widget)
            if problem:
                text = (widget.currentText() if isinstance(widget, QComboBox)
                        else plain(widget.text()))
                found.append(f"{type(widget).__name__} {text[:50]!r}: {problem}")
    return found


#: Containers and frames that take no input of their own.
NOT_CONTROLS = ("QWidget", "QFrame", "QScrollArea", "QStackedWidget", "QSplitter",
                "QMainWindow", "MainWindow", "QDockWidget", "QMenuBar", "QScrollBar")


def unnamed_in(windows) -> list[str]:
    """Controls (what takes the keyboard, and buttons) without an accessible name."""
    found, done = [], set()
    for window in windows:
        for widget in [window, *window.findChildren(QWidget)]:
            if id(widget) in done:
                continue
            done.add(id(widget))
            if not widget.isVisible() or widget.visibleRegion().isEmpty():
                continue
            takes_keys = widget.focusPolicy() != Qt.FocusPolicy.NoFocus
            if not (takes_keys or isinstance(widget, QAbstractButton)):
                continue
            if type(widget).__name__ in NOT_CONTROLS or widget.isWindow():
                continue
            if widget.objectName() == "qt_spinbox_lineedit":
                widget = widget.parentWidget()  # Qt's own part: the spin box speaks for it
            interface = QAccessible.queryAccessibleInterface(widget)
            if interface is None or not interface.text(QAccessible.Text.Name).strip():
                found.append(f"{type(widget).__name__} in {type(widget.parentWidget()).__name__}")
    return found


def test_nothing_is_clipped_and_every_control_is_named_at_1366x768():
    seen, problems, unnamed = [], [], []

    def look(name, size, windows):
        seen.append(name)
        problems.extend(f"{name}: {p}" for p in problems_in(windows))
        unnamed.extend(f"{name}: {p}" for p in unnamed_in(windows))

    render_all(None, sizes=((1366, 768),), observer=look)
    assert sorted(seen) == sorted(VIEWS)
    assert problems == [], "\n".join(problems)
    assert unnamed == [], "\n".join(unnamed)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=["1366x768", "1920x1080"])
def test_every_dialog_state_fits(size):
    """The dialogs again after they change: a note shown for a new name, long names and
    paths, an error line (tools/render_states.py). Nothing clipped, overlapping or unnamed."""
    from render_states import STATES, render_states

    seen, problems, unnamed = [], [], []

    def look(name, windows):
        seen.append(name)
        problems.extend(f"{name}: {p}" for p in problems_in(windows))
        unnamed.extend(f"{name}: {p}" for p in unnamed_in(windows))

    render_states(None, size, observer=look)
    assert seen == list(STATES)
    assert problems == [], "\n".join(problems)
    assert unnamed == [], "\n".join(unnamed)
