"""Blindness on one machine: in a plain project file, organizer mode is written to the
change log under the person's name and `simrate info` shows it; the identity dialog says
what organizer mode means."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QLabel, QMessageBox

from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog
from simrate.gui.shell.main_window import MainWindow
from tests.core.frames import make_rated_project

ROOT = Path(__file__).resolve().parents[3]


def open_window(qtbot, settings, path, organizer: bool, annotator: str = "ana") -> MainWindow:
    context = ApplicationContext(settings, organizer=organizer)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    context.open_project(path, annotator)
    return window


def switches(path) -> list[tuple[str, str]]:
    with Project.open(path) as project:
        log = project.changes()
    log = log[log["kind"] == "organizer_mode"]
    return list(zip(log["who"], log["new"], strict=True))


def info(path) -> str:
    done = subprocess.run([sys.executable, "-m", "simrate", "info", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_switching_organizer_mode_is_logged_under_the_name_and_info_shows_it(
        qtbot, settings, tmp_path, monkeypatch):
    path = make_rated_project(tmp_path / "plain.simrate")
    window = open_window(qtbot, settings, path, organizer=False)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.organizer.mode_action.trigger()
    assert window.context.organizer
    window.organizer.mode_action.trigger()
    assert not window.context.organizer
    window.context.close_project()
    assert switches(path) == [("ana", True), ("ana", False)]
    text = info(path)
    assert "organizer mode switched on by ana 1x (last " in text


def test_declining_the_warning_logs_nothing(qtbot, settings, tmp_path, monkeypatch):
    path = make_rated_project(tmp_path / "plain.simrate")
    window = open_window(qtbot, settings, path, organizer=False)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    window.organizer.mode_action.trigger()
    assert not window.context.organizer
    window.context.close_project()
    assert switches(path) == []
    assert "organizer mode" not in info(path)


def test_opening_a_file_in_organizer_mode_is_logged(qtbot, settings, tmp_path):
    path = make_rated_project(tmp_path / "plain.simrate")
    window = open_window(qtbot, settings, path, organizer=True, annotator="lead")
    assert "Agreement" in {d.windowTitle() for d in window.project_docks}
    window.context.close_project()
    assert switches(path) == [("lead", True)]


def explanation(dialog: AnnotatorDialog) -> str:
    return " ".join(label.text() for label in dialog.findChildren(QLabel))


def test_the_identity_dialog_says_what_organizer_mode_means(qtbot):
    blind = AnnotatorDialog(["ana"], "ana")
    qtbot.addWidget(blind)
    assert "You see only your own ratings" in explanation(blind)
    organizer = AnnotatorDialog(["ana"], "ana", organizer=True)
    qtbot.addWidget(organizer)
    text = explanation(organizer)
    assert "only your own" not in text
    assert "Organizer mode is on" in text and "not blind" in text


def test_the_window_asks_who_is_rating_in_the_words_of_its_mode(qtbot, settings, tmp_path,
                                                                 monkeypatch):
    import simrate.gui.shell.main_window as main_window

    asked = []

    def ask(names, last, parent, organizer=False):
        asked.append(organizer)
        return "ana"

    monkeypatch.setattr(main_window, "ask_annotator", ask)
    path = make_rated_project(tmp_path / "plain.simrate")
    for organizer in (False, True):
        context = ApplicationContext(settings, organizer=organizer)
        window = MainWindow(context)
        qtbot.addWidget(window)
        assert window.open_project(str(path))
        context.close_project()
    assert asked == [False, True]
