"""Undo and redo of rating changes, through the project and its change log."""

from __future__ import annotations

from PySide6.QtCore import Qt


def press(qtbot, window, key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window.rating_panel.scale_widget, key, modifiers)


CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_undo_and_redo_a_new_rating(qtbot, window):
    project = window.context.project
    press(qtbot, window, Qt.Key.Key_3)
    press(qtbot, window, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") == 3.0
    assert window.context.session.current_id() == "d:2"
    press(qtbot, window, Qt.Key.Key_Z, CTRL)
    assert project.rating("d:1", "alice") is None
    # Undo shows the item it changed.
    assert window.context.session.current_id() == "d:1"
    press(qtbot, window, Qt.Key.Key_Z, CTRL_SHIFT)
    assert project.rating("d:1", "alice") == 3.0


def test_undo_restores_the_previous_score_and_note(qtbot, window):
    project = window.context.project
    project.rate("d:1", "alice", 1.5, note="first look")
    window.context.session.go_to(0)
    panel = window.rating_panel
    assert panel.note_edit.text() == "first look"
    press(qtbot, window, Qt.Key.Key_4)
    press(qtbot, window, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") == 4.0
    window.context.undo_stack.undo()
    record = project.rating_record("d:1", "alice")
    assert (record["score"], record["note"]) == (1.5, "first look")


def test_undo_is_a_logged_change(qtbot, window):
    project = window.context.project
    press(qtbot, window, Qt.Key.Key_2)
    press(qtbot, window, Qt.Key.Key_Return)
    window.context.undo_stack.undo()
    window.context.undo_stack.redo()
    log = project.changes()
    mine = log[(log["kind"] == "rating") & (log["annotator"] == "alice")]
    assert [(r.old, r.new) for r in mine.itertuples()] == [(None, 2.0), (2.0, None), (None, 2.0)]


def test_several_steps_undo_in_reverse_order(qtbot, window):
    project = window.context.project
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):
        press(qtbot, window, key)
        press(qtbot, window, Qt.Key.Key_Return)
    assert [project.rating(f"d:{i}", "alice") for i in (1, 2, 3)] == [1.0, 2.0, 3.0]
    stack = window.context.undo_stack
    stack.undo()
    stack.undo()
    assert [project.rating(f"d:{i}", "alice") for i in (1, 2, 3)] == [1.0, None, None]
    assert window.context.session.current_id() == "d:2"
    stack.redo()
    assert project.rating("d:2", "alice") == 2.0


def test_clear_and_skip_are_undoable(qtbot, window):
    project = window.context.project
    project.rate("d:1", "alice", 2.5)
    window.context.session.go_to(0)
    press(qtbot, window, Qt.Key.Key_Delete)
    assert project.rating("d:1", "alice") is None
    window.context.undo_stack.undo()
    assert project.rating("d:1", "alice") == 2.5
    window.rating_panel.skip_current("garbled text")
    record = project.rating_record("d:1", "alice")
    assert record["skipped"] and record["note"] == "garbled text"
    window.context.undo_stack.undo()
    record = project.rating_record("d:1", "alice")
    assert (record["score"], record["skipped"]) == (2.5, False)


def test_enter_without_a_change_adds_no_undo_step(qtbot, window):
    project = window.context.project
    project.rate("d:1", "alice", 2.0)
    window.context.session.go_to(0)
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.context.undo_stack.count() == 0
    assert window.context.session.current_id() != "d:1"


def test_undo_menu_names_the_change(qtbot, window):
    press(qtbot, window, Qt.Key.Key_3)
    press(qtbot, window, Qt.Key.Key_Plus)
    press(qtbot, window, Qt.Key.Key_Return)
    assert "3.25" in window.actions_by_name["undo"].text()


def test_the_status_bar_says_what_was_undone(qtbot, window):
    press(qtbot, window, Qt.Key.Key_2)
    press(qtbot, window, Qt.Key.Key_Return)
    press(qtbot, window, Qt.Key.Key_Z, CTRL)
    assert window.statusBar().currentMessage() == "Undid \u201cd:1: nothing \u2192 2\u201d"
    press(qtbot, window, Qt.Key.Key_Z, CTRL_SHIFT)
    assert window.statusBar().currentMessage() == "Redid \u201cd:1: nothing \u2192 2\u201d"
