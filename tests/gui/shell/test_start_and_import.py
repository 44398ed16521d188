"""The start page, opening projects, the sample, imports with progress and errors."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import simrate.gui.base.sample as sample_module
import simrate.gui.shell.main_window as main_window_module
from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.settings import LAST_ANNOTATOR
from simrate.gui.dialogs.import_dialog import ImportErrorDialog
from simrate.gui.shell.main_window import MainWindow
from simrate.gui.shell.start_page import MissingRole
from simrate.services.imports.file_import import ImportRequest

SAMPLE_PAIRS = Path(__file__).resolve().parents[3] / "sample_data" / "pairs.tsv"


@pytest.fixture
def start_window(qtbot, settings, monkeypatch):
    """A window on the start page; 'who is rating?' answers 'carol'."""
    asked = []

    def fake_ask(names, last="", parent=None, organizer=False):
        asked.append((list(names), last))
        return "carol"

    monkeypatch.setattr(main_window_module, "ask_annotator", fake_ask)
    context = ApplicationContext(settings)
    window = MainWindow(context)
    window.asked = asked
    qtbot.addWidget(window)
    window.show()
    yield window
    context.close_project()


def test_start_page_lists_recent_projects(qtbot, settings, project_path, tmp_path):
    settings.add_recent_project(str(tmp_path / "gone.simrate"))
    settings.add_recent_project(str(project_path))
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    page = window.start_page
    assert window.stack.currentWidget() is page
    items = [page.recent_list.item(i) for i in range(page.recent_list.count())]
    assert [i.text() for i in items] == ["p", "gone"]
    assert [i.data(MissingRole) for i in items] == [False, True]
    assert not items[1].flags() & items[1].flags().ItemIsEnabled
    assert window.menus["rating"].isEnabled() is False


def test_opening_a_recent_project_asks_who_is_rating_and_remembers(start_window, settings,
                                                                   project_path):
    settings.set(LAST_ANNOTATOR, "dave")
    start_window.start_page.refresh()
    start_window.start_page.open_path.emit(str(project_path))
    assert start_window.asked == [(["bob"], "dave")]
    assert start_window.context.annotator == "carol"
    assert settings.get(LAST_ANNOTATOR) == "carol"
    assert start_window.stack.currentWidget() is start_window.rating_panel
    assert settings.recent_projects()[0] == str(project_path.resolve())


def test_open_with_annotator_given_does_not_ask(start_window, project_path):
    assert start_window.open_project(str(project_path), annotator="erin")
    assert start_window.asked == []
    assert start_window.context.session.annotator == "erin"


def test_not_a_project_is_refused_with_a_message(start_window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(start_window, "show_error", shown.append)
    bogus = tmp_path / "notes.simrate"
    bogus.write_text("hello")
    assert not start_window.open_project(str(bogus), annotator="x")
    assert shown and "not a simrate project" in shown[0] and str(bogus) in shown[0]
    assert start_window.context.project is None


@pytest.mark.skipif(not SAMPLE_PAIRS.is_file(), reason="sample_data/pairs.tsv is absent")
def test_open_the_sample(start_window, tmp_path, monkeypatch):
    monkeypatch.setattr(sample_module, "sample_folder", lambda: tmp_path / "data")
    start_window.start_page.sample_button.click()
    project = start_window.context.project
    assert project is not None and project.n_items == 20
    assert project.scale.name == "sts"
    assert start_window.context.annotator == "carol"
    # The second time the same file is reused, ratings and all.
    project.rate(project.item_ids()[0], "carol", 4.0)
    start_window.close_project()
    start_window.open_sample()
    assert start_window.context.project.rating(project.item_ids()[0], "carol") == 4.0


def test_import_error_dialog_names_file_line_and_problem(qtbot, start_window, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tsentence1\tsentence2\na\tone\ttwo\nb\tonly one text\n")
    target = tmp_path / "new.simrate"
    controller = start_window.imports
    with qtbot.waitSignal(controller.failed, timeout=10000):
        controller.start(ImportRequest(source=bad, project_path=target, new_scale="clss"))
    dialog = start_window.findChild(ImportErrorDialog)
    assert dialog is not None and dialog.isVisible()
    assert (dialog.file, dialog.line) == (str(bad), 3)
    assert "column" in dialog.problem
    assert dialog.text().startswith(f"{bad}:3: ")
    assert not target.exists()  # nothing half-made is left behind
    dialog.accept()


def test_new_project_from_a_file_imports_in_the_background(qtbot, start_window, tmp_path):
    source = tmp_path / "pairs.tsv"
    rows = "".join(f"p{i}\tleft {i}\tright {i}\n" for i in range(1, 31))
    source.write_text("id\tsentence1\tsentence2\n" + rows)
    target = tmp_path / "fresh.simrate"
    controller = start_window.imports
    with qtbot.waitSignal(controller.finished, timeout=10000):
        controller.start(ImportRequest(source=source, project_path=target, new_scale="sts",
                                       title="Fresh"))
    project = start_window.context.project
    assert project is not None and project.n_items == 30 and project.title == "Fresh"
    assert start_window.context.session.current_id() == "p1"


def test_import_into_the_open_project_updates_the_list(qtbot, start_window, project_path,
                                                       tmp_path):
    start_window.open_project(str(project_path), annotator="carol")
    source = tmp_path / "more.tsv"
    source.write_text("id\tsentence1\tsentence2\nm1\tmore left\tmore right\n")
    with qtbot.waitSignal(start_window.imports.finished, timeout=10000):
        start_window.start_import(source)
    assert start_window.context.session.n == 11
    assert start_window.item_list.model.rowCount() == 11
    assert "1 item added" in start_window.statusBar().currentMessage()


def test_cancel_before_writing_leaves_the_project_unchanged(qtbot, start_window, project_path,
                                                            tmp_path, monkeypatch):
    import simrate.gui.dialogs.import_dialog as dialog_module

    start_window.open_project(str(project_path), annotator="carol")
    real_read = dialog_module.read_source
    reading, go_on = threading.Event(), threading.Event()

    def slow_read(request):
        reading.set()
        go_on.wait(10)
        return real_read(request)

    monkeypatch.setattr(dialog_module, "read_source", slow_read)
    source = tmp_path / "more.tsv"
    source.write_text("id\tsentence1\tsentence2\nm1\tmore left\tmore right\n")
    imports = start_window.imports
    with qtbot.waitSignal(imports.cancelled, timeout=10000):
        start_window.start_import(source)
        assert reading.wait(10)
        imports.progress.reject()  # the user presses Cancel while the file is being read
        go_on.set()
    with Project.open(project_path) as other:
        assert other.n_items == 10


@pytest.mark.skipif(not SAMPLE_PAIRS.is_file(), reason="sample_data/pairs.tsv is absent")
def test_enter_on_a_first_start_opens_the_sample(qtbot, start_window, tmp_path, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    monkeypatch.setattr(sample_module, "sample_folder", lambda: tmp_path / "data")
    start_window.activateWindow()
    button = start_window.start_page.sample_button
    qtbot.waitUntil(lambda: QApplication.focusWidget() is button)
    qtbot.keyClick(button, Qt.Key.Key_Return)
    assert start_window.context.project is not None
    assert start_window.context.session.current_id() == start_window.context.project.item_ids()[0]


def test_cancel_once_writing_has_begun_lets_the_import_finish(qtbot, start_window,
                                                                project_path, tmp_path,
                                                                monkeypatch):
    import simrate.gui.dialogs.import_dialog as dialog_module

    start_window.open_project(str(project_path), annotator="carol")
    real_write = dialog_module.write_source
    writing, go_on = threading.Event(), threading.Event()

    def slow_write(*args, **kwargs):
        writing.set()
        go_on.wait(10)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(dialog_module, "write_source", slow_write)
    source = tmp_path / "more.tsv"
    source.write_text("id\tsentence1\tsentence2\nm1\tmore left\tmore right\n")
    imports = start_window.imports
    with qtbot.waitSignal(imports.finished, timeout=10000):
        start_window.start_import(source)
        assert writing.wait(10)
        imports.progress.reject()  # Cancel pressed while writing: all or nothing means all
        assert imports.progress.isVisible()  # the dialog stays until the write has ended
        go_on.set()
    with Project.open(project_path) as other:
        assert other.n_items == 11


def test_a_created_project_opens_as_the_name_given_and_is_in_recent_projects(
        qtbot, start_window, settings, tmp_path, monkeypatch):
    """The New project dialog asks who is rating: the project opens as that person with no
    second question (nothing to cancel), and Recent projects lists it."""
    from simrate.gui.dialogs.new_project_dialog import NewProjectDialog

    source = tmp_path / "data" / "pairs.tsv"
    source.parent.mkdir()
    source.write_text("id\tsentence1\tsentence2\np1\tleft\tright\np2\tup\tdown\n")
    settings.set(LAST_ANNOTATOR, "dave")
    seen = {}

    def fill_in(dialog):
        dialog.source_edit.setText(str(source))
        seen["name"] = dialog.name_edit.text()
        seen["target"] = dialog.project_edit.text()
        dialog.project_edit.setText(str(tmp_path / "made.simrate"))
        dialog.name_edit.setText("erin")
        assert dialog.problem() == ""
        return NewProjectDialog.DialogCode.Accepted

    monkeypatch.setattr(NewProjectDialog, "exec", fill_in)
    with qtbot.waitSignal(start_window.imports.finished, timeout=10000):
        start_window.new_project_from_file()
    assert seen["name"] == "dave"  # the last name offered
    assert Path(seen["target"]).parent != source.parent  # not beside the input by default
    context = start_window.context
    assert context.project is not None and context.annotator == "erin"
    assert start_window.asked == []  # no "Who is rating?" after the dialog
    assert settings.recent_projects()[0] == str((tmp_path / "made.simrate").resolve())


def test_the_new_project_dialog_needs_a_name_and_proposes_a_sensible_folder(qtbot, tmp_path,
                                                                            monkeypatch):
    from simrate.gui.dialogs.new_project_dialog import NewProjectDialog, project_folder

    monkeypatch.setattr(sample_module, "sample_folder", lambda: tmp_path / "appdata")
    (tmp_path / "appdata").mkdir()
    assert project_folder(str(tmp_path)) == tmp_path  # the last project's folder
    assert project_folder(str(tmp_path / "appdata")) != tmp_path / "appdata"  # not the sample's
    assert project_folder("").is_dir()  # Documents, else home
    source = tmp_path / "pairs.tsv"
    source.write_text("id\tsentence1\tsentence2\np1\tleft\tright\n")
    dialog = NewProjectDialog(str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.source_edit.setText(str(source))
    assert dialog.problem().startswith("Type your name")
    dialog.name_edit.setText("zoe\u200b")
    assert "invisible" in dialog.problem()
    dialog.name_edit.setText("zoe")
    assert dialog.problem() == ""
