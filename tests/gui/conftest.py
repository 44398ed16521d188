"""GUI fixtures: temporary settings, small projects, a window on a project."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.settings import Settings
from simrate.gui.shell.main_window import MainWindow
from tests.core.frames import make_items, make_ratings


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings in a temporary INI file: tests never touch the user's settings."""
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def project_path(tmp_path):
    """A CLSS project of 10 items, where 'bob' has rated items 1-4."""
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="clss", title="Test project") as project:
        project.import_items(make_items(10), source="items.tsv")
        project.import_ratings(make_ratings(
            [(f"d:{i}", "bob", 3.75) for i in range(1, 5)]), source="bob.tsv")
    return path


@pytest.fixture
def window(qtbot, settings, project_path):
    """A shown main window on the test project, rating as 'alice'."""
    context = ApplicationContext(settings)
    main = MainWindow(context)
    qtbot.addWidget(main)
    main.resize(1366, 768)
    main.show()
    qtbot.waitExposed(main)
    context.open_project(project_path, "alice")
    main.activateWindow()
    qtbot.waitUntil(lambda: main.rating_panel is not None and main.isActiveWindow())
    main.rating_panel.focus_scale()
    yield main
    context.close_project()
