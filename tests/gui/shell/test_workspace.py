"""The window between projects: docks of a closed project never come back, and the start
page's menus say what is there."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget

from simrate.gui.base.context import ApplicationContext
from simrate.gui.shell.main_window import MainWindow


def make_window(qtbot, settings):
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_opening_a_project_over_another_restores_only_the_new_docks(qtbot, settings,
                                                                     project_path):
    """The closed project's docks are deleted later; restoreState (which finds docks by
    name) must not lay them out again beside the new ones."""
    window = make_window(qtbot, settings)
    assert window.open_project(str(project_path), annotator="alice")
    qtbot.wait(50)  # the docks are laid out
    window.close_project()  # no event loop from here on: the old docks still exist
    window.organizer.set_mode(True)
    assert window.open_project(str(project_path), annotator="bob")
    laid_out = [d for d in window.findChildren(QDockWidget) if not d.isHidden()]
    assert laid_out and all(d in window.project_docks for d in laid_out)
    items = window.project_docks[0]
    assert len(window.tabifiedDockWidgets(items)) == len(
        {d.objectName() for d in window.tabifiedDockWidgets(items)})
    window.context.close_project()


def test_the_rating_menu_is_disabled_once_the_project_is_closed(qtbot, settings, project_path):
    window = make_window(qtbot, settings)
    assert window.open_project(str(project_path), annotator="alice")
    assert window.menus["rating"].isEnabled() and window.menus["rating"].actions()
    window.close_project()
    assert window.menus["rating"].actions() == []
    assert not window.menus["rating"].isEnabled()
    for name in ("import", "close", "find"):
        assert not window.actions_by_name[name].isEnabled()


def dock_named(window, name: str) -> QDockWidget:
    return next(d for d in window.project_docks if d.objectName() == name)


def test_organizer_docks_show_after_a_blind_session_saved_the_layout(qtbot, settings,
                                                                     project_path):
    """Rate the sample, then open it as organizer: the saved layout knows no organizer
    docks, and they must show all the same."""
    window = make_window(qtbot, settings)
    assert window.open_project(str(project_path), annotator="alice")
    qtbot.wait(20)
    window.close_project()
    qtbot.wait(20)
    window.organizer.set_mode(True)
    assert window.open_project(str(project_path), annotator="lead")
    qtbot.wait(20)
    for name in ("dock_agreement", "dock_annotators", "dock_all_ratings"):
        assert dock_named(window, name).isVisibleTo(window), name
