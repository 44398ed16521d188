"""The "Who is rating?" dialog: typing replaces the offered name, and a new name says so."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer

from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog


def shown(qtbot, names, last):
    dialog = AnnotatorDialog(names, last)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_typing_replaces_the_offered_name_and_a_new_name_says_so(qtbot):
    dialog = shown(qtbot, ["lead", "ann"], "lead")
    assert dialog.name() == "lead" and not dialog.new_note.isVisible()
    qtbot.keyClicks(dialog.name_box.lineEdit(), "zoe")
    assert dialog.name() == "zoe"  # not "leadzoe"
    assert dialog.new_note.isVisible() and "zoe" in dialog.new_note.text()
    assert "new annotator" in dialog.new_note.text().lower()
    qtbot.keyClick(dialog.name_box.lineEdit(), Qt.Key.Key_Return)
    assert dialog.result() == AnnotatorDialog.DialogCode.Accepted and dialog.name() == "zoe"


def test_choosing_a_known_name_shows_no_note(qtbot):
    dialog = shown(qtbot, ["lead", "ann"], "lead")
    qtbot.keyClicks(dialog.name_box.lineEdit(), "bo")
    assert dialog.name() == "bo" and dialog.new_note.isVisible()  # "bo" is nobody yet
    dialog.name_box.lineEdit().selectAll()
    qtbot.keyClicks(dialog.name_box.lineEdit(), "ann")
    assert dialog.name() == "ann" and not dialog.new_note.isVisible()


def test_a_last_name_from_another_project_is_new_here(qtbot):
    dialog = shown(qtbot, ["ann"], "lead")
    assert dialog.name() == "lead" and dialog.new_note.isVisible()


def test_the_window_never_rates_under_a_machine_rater(qtbot, settings, project_path):
    import pytest

    from simrate.core.base.errors import SimrateError
    from simrate.core.project import Project
    from simrate.gui.base.context import ApplicationContext

    with Project.open(project_path) as project:
        project.roster.add_machine("gpt")
    context = ApplicationContext(settings)
    with pytest.raises(SimrateError, match="'gpt' is a machine rater"):
        context.open_project(project_path, "gpt")
    assert context.project is None
    context.open_project(project_path, "zoe")  # a person, new or not, may rate
    assert context.session.annotator == "zoe"
    context.close_project()


def test_opening_a_project_as_a_new_person_after_another(qtbot, settings, project_path):
    """The reported case, through the window: "lead" rated last; zoe types her name."""
    from PySide6.QtWidgets import QApplication

    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import LAST_ANNOTATOR
    from simrate.gui.shell.main_window import MainWindow

    settings.set(LAST_ANNOTATOR, "lead")
    context = ApplicationContext(settings)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    seen = []

    def type_name() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, AnnotatorDialog):
            QTimer.singleShot(20, type_name)
            return
        try:
            seen.append(dialog.name())
            qtbot.keyClicks(dialog.name_box.lineEdit(), "zoe")
            note = getattr(dialog, "new_note", None)
            seen.append(note.text() if note is not None and note.isVisible() else "")
        finally:  # the dialog is modal: whatever happened, OK closes it
            qtbot.keyClick(dialog.name_box.lineEdit(), Qt.Key.Key_Return)

    QTimer.singleShot(0, type_name)
    assert window.open_project(str(project_path))
    assert context.annotator == "zoe"  # not "leadzoe"
    assert seen[0] == "lead" and "new annotator" in seen[1].lower() and "zoe" in seen[1]
    context.close_project()
