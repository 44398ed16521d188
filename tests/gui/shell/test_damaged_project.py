"""The window on a damaged project file: it says "damaged project" in one line, and its hook
reports damage found in the project it has open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.samples import copy_project, rated_sample


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A small sts project with three raters, all in one file (no -wal)."""
    return rated_sample(tmp_path_factory.mktemp("good"), one_file=True)


def copy(good: Path, folder: Path, name: str = "d.simrate") -> Path:
    return copy_project(good, folder, name)


def root_page(path: Path, table: str) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                            (table,)).fetchone()[0]
        return page, conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def test_the_window_says_damaged_project(qtbot, good, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import Settings
    from simrate.gui.shell.main_window import MainWindow

    path = copy(good, tmp_path)
    page, size = root_page(path, "ratings")
    data = bytearray(path.read_bytes())
    data[(page - 1) * size:page * size] = b"A" * size
    path.write_bytes(bytes(data))
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    shown: list[str] = []
    monkeypatch.setattr(window, "show_error", shown.append)
    assert not window.open_project(str(path), annotator="ana")
    assert len(shown) == 1 and "damaged project" in shown[0] and str(path) in shown[0]
    assert "simrate check" in shown[0] and "Error" not in shown[0]
    assert window.context.project is None


def test_the_window_hook_reports_damage_of_the_open_project(qtbot, good, tmp_path, monkeypatch):
    """An error escaping a view because the open file is damaged becomes the message."""
    import sys

    from PySide6.QtCore import QSettings

    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import Settings
    from simrate.gui.shell.main import install_damage_hook
    from simrate.gui.shell.main_window import MainWindow

    path = copy(good, tmp_path)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    assert window.open_project(str(path), annotator="ana")
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE items RENAME COLUMN left TO lft")
    conn.commit()
    conn.close()
    shown: list[str] = []
    monkeypatch.setattr(window, "show_error", shown.append)
    passed_on: list = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: passed_on.append(a))
    install_damage_hook(window)
    try:
        window.context.project._conn.execute("SELECT left FROM items").fetchall()
    except sqlite3.OperationalError:
        sys.excepthook(*sys.exc_info())
    assert len(shown) == 1 and "damaged project" in shown[0] and str(path) in shown[0]
    assert "table items has no column left" in shown[0]
    assert passed_on == []
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE items RENAME COLUMN lft TO left")
    conn.commit()
    conn.close()
    sys.excepthook(ValueError, ValueError("a bug"), None)  # on a sound file: as before
    assert len(passed_on) == 1
    window.context.close_project()
