"""The window, third round: a path being typed never prints a traceback, and Esc in the
item list's search box brings the focus back to the rating view (as the README says)."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simrate.gui.dialogs.export_dialog import ExportDialog
from simrate.gui.dialogs.new_project_dialog import NewProjectDialog


@pytest.fixture
def hooked(monkeypatch):
    """Exceptions raised in slots: Qt hands them to sys.excepthook (which prints a
    traceback on the console); collect them instead, and fail on any."""
    caught = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: caught.append(info))
    return caught


def _no_traceback(hooked, capfd):
    assert [str(info[1]) for info in hooked] == []
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("typed", ["/", ".", "..", "~", "/tmp/", "a.", "//", " /"])
def test_typing_a_path_into_the_new_project_dialog(qtbot, capfd, hooked, tmp_path, typed):
    dialog = NewProjectDialog(str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.source_edit.setFocus()
    qtbot.keyClicks(dialog.source_edit, typed)
    QApplication.processEvents()
    assert dialog.source_edit.text() == typed
    _no_traceback(hooked, capfd)
    assert dialog.problem()  # nothing to create from yet, and it says so


def test_typing_then_completing_a_path_still_proposes_the_project_file(qtbot, hooked, tmp_path):
    source = tmp_path / "pairs.tsv"
    source.write_text("id\tleft\tright\n1\ta\tb\n", encoding="utf-8")
    dialog = NewProjectDialog(str(tmp_path))
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.source_edit, str(source))
    assert hooked == []
    assert dialog.project_edit.text() == str(tmp_path / "pairs.simrate")
    assert dialog.title_edit.text() == "pairs"


@pytest.mark.parametrize("typed", ["/", "."])
def test_choosing_an_export_format_with_a_folder_typed(qtbot, capfd, hooked, window, typed):
    project = window.context.project
    dialog = ExportDialog(project.path, project.scale, str(project.path.parent))
    qtbot.addWidget(dialog)
    dialog.path_edit.setText(typed)
    for index in range(dialog.format_combo.count()):
        dialog.format_combo.setCurrentIndex(index)
    QApplication.processEvents()
    _no_traceback(hooked, capfd)
    assert dialog.path_edit.text() == typed


def test_escape_in_the_search_box_returns_to_the_rating_view(qtbot, window):
    window.focus_search()  # Ctrl+F
    search = window.item_list.search_edit
    qtbot.waitUntil(lambda: QApplication.focusWidget() is search)
    qtbot.keyClicks(search, "d:3")
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    scale = window.rating_panel.scale_widget
    qtbot.waitUntil(lambda: QApplication.focusWidget() is scale, timeout=2000)
    # the keys rate again at once
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_2)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 2.0


def test_escape_in_the_item_table_returns_to_the_rating_view(qtbot, window):
    window.focus_search()
    table = window.item_list.table
    table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table)
    qtbot.keyClick(table, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.rating_panel.scale_widget,
                    timeout=2000)
