"""GUI fixtures: temporary settings, small projects, a window on a project."""

from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import QSettings

from app.core.project import Project
from app.formats.base import item_frame, rating_frame
from app.gui.context import ApplicationContext
from app.gui.main_window import MainWindow
from app.gui.settings import Settings


def make_items(n: int, datasets: tuple[str, ...] = ("alpha", "beta")) -> pd.DataFrame:
    """n pairs with ids d:1..n, alternating datasets, searchable words in the texts."""
    return item_frame({
        "item_id": [f"d:{i}" for i in range(1, n + 1)],
        "left": [f"left text number {i} about {'cats' if i % 3 == 0 else 'dogs'}"
                 for i in range(1, n + 1)],
        "right": [f"right text number {i}" for i in range(1, n + 1)],
        "dataset": [datasets[i % len(datasets)] for i in range(n)],
        "genre": ["news" if i % 2 else "forum" for i in range(n)],
        "reference": [float("nan")] * n,
        "meta": [{}] * n,
        "line": list(range(1, n + 1)),
    })


def make_ratings(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A ratings table from (item_id, annotator, score) rows."""
    return rating_frame({
        "item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
        "score": [r[2] for r in rows], "note": [""] * len(rows),
        "line": list(range(2, len(rows) + 2)),
    })


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
