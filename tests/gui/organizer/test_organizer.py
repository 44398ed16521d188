"""Organizer mode in the main window: docks, menus, Ctrl+J, the View menu toggle."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from simrate.gui.base.context import ApplicationContext
from simrate.gui.shell.main_window import MainWindow
from tests.core.frames import make_rated_project


def open_window(qtbot, settings, path, organizer: bool) -> MainWindow:
    context = ApplicationContext(settings, organizer=organizer)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    context.open_project(path, "org")
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow())
    return window


@pytest.fixture
def organizer_window(qtbot, settings, tmp_path):
    window = open_window(qtbot, settings, make_rated_project(tmp_path / "o.simrate", 20), True)
    yield window
    window.context.close_project()


def menu_texts(window) -> dict[str, list[str]]:
    out = {}
    for top in window.menuBar().actions():
        if top.menu() is not None and top.isVisible():
            out[top.menu().title().replace("&", "")] = [
                a.text().replace("&", "") for a in top.menu().actions() if not a.isSeparator()]
    return out


def test_organizer_docks_and_menu(organizer_window):
    window = organizer_window
    titles = [dock.windowTitle() for dock in window.project_docks]
    assert {"Agreement", "Annotators", "All ratings"} <= set(titles)
    assert "Adjudication queue" in menu_texts(window)["Organizer"]


def test_ctrl_j_then_keys_adjudicate_and_ctrl_r_goes_back(qtbot, organizer_window):
    window = organizer_window
    project = window.context.project
    first = project.flagged()["item_id"].iloc[0]
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    queue = window.organizer.workspace.queue
    assert window.stack.currentWidget() is queue
    assert queue.current_id == first
    qtbot.waitUntil(lambda: QApplication.focusWidget() is queue.scale_widget)
    for key in (Qt.Key.Key_3, Qt.Key.Key_Return):
        qtbot.keyClick(QApplication.focusWidget(), key)
    assert project.adjudications().set_index("item_id")["score"].to_dict() == {first: 3.0}
    window.actions_by_name["undo"].trigger()
    assert project.adjudications().empty
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.rating_panel


def test_every_adjudication_key_is_in_a_menu(organizer_window):
    window = organizer_window
    listed = set()
    for top in window.menuBar().actions():
        stack = [top.menu()] if top.menu() else []
        while stack:
            menu = stack.pop()
            for action in menu.actions():
                if action.menu() is not None:
                    stack.append(action.menu())
                listed.add(action)
    queue = window.organizer.workspace.queue
    assert set(queue.actions_by_name.values()) <= listed
    for name in ("queue", "rating", "export", "import"):
        assert window.organizer.actions[name] in listed


def test_all_ratings_dock_follows_the_rating_view(qtbot, organizer_window):
    window = organizer_window
    panel = window.organizer.workspace.ratings
    window.context.session.go_to_id("d:3")
    assert panel.item_id == "d:3"
    assert {m.annotator for m in panel.scale_widget.marks} == {"ann", "ben", "cat"}
    window.context.project.rate("d:3", "org", 1.0)
    assert "org" in {m.annotator for m in panel.scale_widget.marks}


def test_blind_window_shows_no_organizer_panels(qtbot, settings, tmp_path):
    window = open_window(qtbot, settings, make_rated_project(tmp_path / "b.simrate"), False)
    titles = {dock.windowTitle() for dock in window.project_docks}
    assert not titles & {"Agreement", "Annotators", "All ratings"}
    assert "Organizer" not in menu_texts(window)
    assert window.organizer.mode_action.isChecked() is False
    window.context.close_project()


def test_view_toggle_switches_organizer_mode_on_and_off(qtbot, settings, tmp_path,
                                                         monkeypatch):
    window = open_window(qtbot, settings, make_rated_project(tmp_path / "t.simrate"), False)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.organizer.mode_action.trigger()
    assert window.context.organizer
    assert "Agreement" in {d.windowTitle() for d in window.project_docks}
    assert "organizer" in window.who_label.text()
    window.organizer.mode_action.trigger()
    assert not window.context.organizer
    assert "Agreement" not in {d.windowTitle() for d in window.project_docks}
    assert "Organizer" not in menu_texts(window)
    window.context.close_project()


def test_export_and_import_actions_open_their_dialogs(qtbot, organizer_window, monkeypatch):
    from simrate.gui.dialogs import export_dialog

    seen = []
    monkeypatch.setattr(export_dialog.ExportDialog, "exec", lambda self: seen.append(self))
    organizer_window.organizer.actions["export"].trigger()
    assert len(seen) == 1 and seen[0].project_path == organizer_window.context.project.path


def test_open_watch_adjudicate_everything_by_keyboard_and_export(qtbot, organizer_window,
                                                                 tmp_path, monkeypatch):
    """The issue's 'done when': no command line from a rated project to exported gold."""
    import pandas as pd

    from simrate.gui.dialogs import export_dialog

    window = organizer_window
    project = window.context.project
    dashboard = window.organizer.workspace.dashboard
    qtbot.waitUntil(lambda: dashboard.alpha_label.text() == f"{project.live.alpha():.3f}",
                    timeout=10000)
    flagged = set(project.flagged_ids())
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    queue = window.organizer.workspace.queue
    qtbot.waitUntil(lambda: QApplication.focusWidget() is queue.scale_widget)
    for _ in range(len(flagged)):
        for key in (Qt.Key.Key_2, Qt.Key.Key_Plus, Qt.Key.Key_Return):
            qtbot.keyClick(QApplication.focusWidget(), key)
    assert project.flagged_ids() == set()
    qtbot.waitUntil(lambda: dashboard.count_labels["flagged"].text() == "0", timeout=5000)
    assert dashboard.count_labels["adjudicated"].text() == str(len(flagged))

    out = tmp_path / "gold.tsv"

    def run_dialog(dialog):
        qtbot.waitUntil(lambda: dialog.unresolved is not None, timeout=10000)
        assert not dialog.unresolved.blocking
        dialog.path_edit.setText(str(out))
        dialog.export_button.click()
        qtbot.waitUntil(lambda: dialog.report is not None, timeout=10000)

    monkeypatch.setattr(export_dialog.ExportDialog, "exec", run_dialog)
    window.organizer.actions["export"].trigger()
    gold = pd.read_csv(out, sep="\t").set_index("item_id")
    assert (gold.loc[sorted(flagged), "gold"] == 2.25).all()
    assert (gold.loc[sorted(flagged), "source"] == "adjudicated").all()
