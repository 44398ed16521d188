"""Every window closes with Esc, Ctrl+W or its Close button; the evaluation window starts
on the project's own task."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simrate.core.project import Project
from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog
from simrate.gui.dialogs.evaluation_window import EvaluationWindow
from simrate.gui.dialogs.export_dialog import ExportDialog
from simrate.gui.dialogs.join_dialog import JoinDialog
from simrate.gui.dialogs.new_project_dialog import NewProjectDialog
from simrate.gui.organizer.team_panel import AddPersonDialog
from tests.gui.organizer.test_organizer import open_window


def shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    qtbot.waitUntil(widget.isActiveWindow)
    return widget


def scale_of(path):
    with Project.open(path) as project:
        return project.scale


def press(qtbot, widget, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or widget, key, modifier)


@pytest.mark.parametrize("key, modifier", [
    (Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier),
    (Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)])
def test_the_evaluation_window_closes_by_key(qtbot, tmp_path, key, modifier):
    window = shown(qtbot, EvaluationWindow(str(tmp_path)))
    press(qtbot, window, key, modifier)
    assert not window.isVisible()


def test_the_evaluation_window_has_a_close_button(qtbot, tmp_path):
    window = shown(qtbot, EvaluationWindow(str(tmp_path)))
    assert window.close_button.text() == "Close" and window.close_button.isVisible()
    window.close_button.click()
    assert not window.isVisible()


@pytest.mark.parametrize("make", [
    lambda path: NewProjectDialog(str(path.parent)),
    lambda path: AnnotatorDialog(["ann"], "ann"),
    lambda path: JoinDialog(str(path.parent)),
    lambda path: AddPersonDialog(),
    lambda path: ExportDialog(path, scale_of(path), str(path.parent))],
    ids=["new-project", "who-is-rating", "join", "add-person", "export"])
def test_every_dialog_closes_with_ctrl_w_and_esc(qtbot, project_path, make):
    for key, modifier in ((Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier),
                          (Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier)):
        dialog = shown(qtbot, make(project_path))
        press(qtbot, dialog, key, modifier)
        assert not dialog.isVisible(), key


def test_tool_windows_close_with_their_close_button_and_start_on_the_project_task(
        qtbot, settings, tmp_path):
    path = tmp_path / "sts.simrate"
    Project.create(path, scale="sts").close()
    window = open_window(qtbot, settings, path, organizer=True)
    try:
        window.organizer.evaluate_systems()
        evaluation = window.organizer.evaluation
        assert evaluation.task_combo.currentData() == "sts"  # not CLSS on an STS project
        evaluation.close_button.click()
        assert not evaluation.isVisible()
        from simrate.gui.organizer.team_panel import open_team_window
        from simrate.gui.organizer.web_studies import open_web_studies_window

        for open_tool in (open_team_window, open_web_studies_window):
            tool = open_tool(window)
            qtbot.waitExposed(tool)
            close = next(b for b in tool.findChildren(type(evaluation.close_button))
                         if b.text().replace("&", "") == "Close")
            close.click()
            assert not tool.isVisible()
    finally:
        window.context.close_project()
