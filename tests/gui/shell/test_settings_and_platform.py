"""Declared settings, and the check for the libraries Qt's xcb plugin needs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QByteArray, QSettings

from simrate.gui.base.settings import (
    LAST_ANNOTATOR,
    MAX_RECENT,
    RECENT_PROJECTS,
    TEXT_SIZE,
    TEXT_SIZE_RANGE,
    WINDOW_GEOMETRY,
    Settings,
)
from simrate.gui.shell import main as gui_main


def reopen(settings: Settings) -> Settings:
    """The same INI file read afresh, as on the next start of the app."""
    settings.sync()
    return Settings(QSettings(settings.store.fileName(), QSettings.Format.IniFormat))


def test_defaults_when_nothing_is_stored(settings):
    assert settings.get(TEXT_SIZE) == 15
    assert settings.get(RECENT_PROJECTS) == []
    assert settings.get(LAST_ANNOTATOR) == ""
    assert settings.get(WINDOW_GEOMETRY).isEmpty()


def test_values_come_back_with_their_types(settings):
    settings.set(TEXT_SIZE, 18)
    settings.set(LAST_ANNOTATOR, "alice")
    settings.set(WINDOW_GEOMETRY, QByteArray(b"\x01\x02"))
    settings.add_recent_project("/only/one.simrate")
    again = reopen(settings)
    assert again.get(TEXT_SIZE) == 18  # an int, not the string INI files hold
    assert again.get(LAST_ANNOTATOR) == "alice"
    assert bytes(again.get(WINDOW_GEOMETRY)) == b"\x01\x02"
    assert again.get(RECENT_PROJECTS) == ["/only/one.simrate"]  # a list of one, not a str


def test_recent_projects_most_recent_first_without_duplicates(settings):
    for i in range(MAX_RECENT + 3):
        settings.add_recent_project(f"/p/{i}.simrate")
    settings.add_recent_project("/p/5.simrate")
    recent = settings.recent_projects()
    assert recent[0] == "/p/5.simrate"
    assert len(recent) == MAX_RECENT and len(set(recent)) == MAX_RECENT


def test_garbage_falls_back_to_the_default(settings):
    settings.store.setValue(TEXT_SIZE.key, "large")
    assert settings.get(TEXT_SIZE) == 15
    settings.store.setValue(TEXT_SIZE.key, 500)
    assert settings.text_size() == TEXT_SIZE_RANGE[1]


def test_tests_do_not_touch_the_user_settings(settings, tmp_path):
    assert settings.store.fileName().startswith(str(tmp_path))


def test_platform_check_names_missing_libraries(monkeypatch):
    monkeypatch.setattr(gui_main, "missing_libraries",
                        lambda: [("libxcb-cursor.so.0", "libxcb-cursor0")])
    problem = gui_main.platform_problem({"DISPLAY": ":0"}, "linux")
    assert "libxcb-cursor.so.0" in problem and "apt-get install libxcb-cursor0" in problem


def test_platform_check_leaves_other_platforms_alone(monkeypatch):
    monkeypatch.setattr(gui_main, "missing_libraries", lambda: [("libX.so", "x")])
    assert gui_main.platform_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert gui_main.platform_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert gui_main.platform_problem({}, "darwin") is None
    assert gui_main.platform_problem({}, "win32") is None
    assert "DISPLAY" in gui_main.platform_problem({}, "linux")


def test_unreachable_display_is_named_instead_of_letting_qt_abort(monkeypatch):
    import ctypes.util

    if ctypes.util.find_library("xcb") is None:
        pytest.skip("libxcb is not installed here")
    monkeypatch.setattr(gui_main, "missing_libraries", lambda: [])
    problem = gui_main.platform_problem({"DISPLAY": ":877"}, "linux")  # nothing listens there
    assert "cannot connect to the X display ':877'" in problem


def test_missing_libraries_really_asks_the_loader():
    found = gui_main.missing_libraries([("libc.so.6", "libc6"),
                                        ("libsimrate-does-not-exist.so.9", "nothing")])
    assert found == [("libsimrate-does-not-exist.so.9", "nothing")]


def test_launch_refuses_early_without_a_display(monkeypatch, capsys):
    monkeypatch.setattr(gui_main, "platform_problem", lambda: "no display to open a window on")
    assert gui_main.launch(None) == 1
    assert "simrate: error: no display" in capsys.readouterr().err


def test_launch_opens_a_project_straight_into_rating(qapp, monkeypatch, tmp_path, settings):
    import simrate.gui.base.sample as sample_module

    if not sample_module.SAMPLE_PAIRS.is_file():
        import pytest

        pytest.skip("sample_data/pairs.tsv is absent")
    monkeypatch.setattr(gui_main, "platform_problem", lambda: None)
    monkeypatch.setattr(sample_module, "sample_folder", lambda: tmp_path)

    class EventLoopThatReturnsAtOnce:
        def exec(self) -> int:
            return 0

    monkeypatch.setattr(gui_main, "create_application", EventLoopThatReturnsAtOnce)
    windows = []
    real_build = gui_main.build_window

    def build(organizer=False):
        windows.append(real_build(organizer, settings))
        return windows[-1]

    monkeypatch.setattr(gui_main, "build_window", build)
    assert gui_main.launch(None, annotator="eve", sample=True) == 0
    window = windows[0]
    assert window.isVisible() and window.context.annotator == "eve"
    assert window.stack.currentWidget() is window.rating_panel
    assert window.context.project.n_items == 20
    window.close()


def test_launch_with_a_bad_project_is_a_one_line_error(monkeypatch, tmp_path):
    import pytest

    from simrate.core.base.errors import SimrateError

    monkeypatch.setattr(gui_main, "platform_problem", lambda: None)
    with pytest.raises(SimrateError, match="no such project file"):
        gui_main.launch(str(tmp_path / "nothing.simrate"), annotator="eve")
