"""The keyboard contract of DESIGN.md, driven through real key events."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simrate.core.project import Project


def keys(qtbot, window, *sequence):
    """Type keys into the widget that has the focus, as a user would."""
    for key in sequence:
        target = QApplication.focusWidget() or window.rating_panel.scale_widget
        qtbot.keyClick(target, key)


def current_id(window) -> str:
    return window.context.session.current_id()


def test_digit_plus_enter_saves_and_moves_to_next_unrated(qtbot, window, project_path):
    assert current_id(window) == "d:1"
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Plus)
    project = window.context.project
    # Pending only: shown, not yet stored.
    assert window.rating_panel.score_label.text() == "3.25"
    assert project.rating("d:1", "alice") is None
    keys(qtbot, window, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") == 3.25
    assert current_id(window) == "d:2"
    # Stored in the file, not just in this connection: another connection sees it.
    with Project.open(project_path) as other:
        assert other.rating("d:1", "alice") == 3.25


def test_enter_skips_items_already_rated(qtbot, window):
    project = window.context.project
    project.rate("d:2", "alice", 1.0)
    project.rate("d:3", "alice", 2.0)
    keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_Enter)
    assert project.rating("d:1", "alice") == 2.0
    assert current_id(window) == "d:4"


def test_minus_and_arrows_step_by_a_quarter(qtbot, window):
    keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_Minus, Qt.Key.Key_Minus, Qt.Key.Key_Up,
         Qt.Key.Key_Down, Qt.Key.Key_Down)
    assert window.rating_panel.score_label.text() == "1.25"
    keys(qtbot, window, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 1.25


def test_steps_stop_at_the_ends_of_the_scale(qtbot, window):
    keys(qtbot, window, Qt.Key.Key_4, Qt.Key.Key_Plus, Qt.Key.Key_Plus, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 4.0


def test_digit_beyond_the_scale_is_refused_with_a_line(qtbot, window):
    assert "score_5" not in window.rating_panel.actions_by_name  # CLSS ends at 4
    lines = []
    window.rating_panel.message.connect(lines.append)
    keys(qtbot, window, Qt.Key.Key_5, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") is None
    assert current_id(window) == "d:1"  # nothing to save: Enter does not move on
    assert "score 5 is outside scale clss" in lines[0]


def test_typed_fraction_is_the_score_saved(qtbot, window):
    """`3`, `.`, `2`, `5` is 3.25: the score the annotator typed, not the last digit."""
    panel = window.rating_panel
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Period, Qt.Key.Key_2)
    assert panel.score_label.text() == "3.2"  # shown as typed, not yet a score
    assert "not a score on this scale yet" in panel.state_label.text()
    keys(qtbot, window, Qt.Key.Key_5)
    assert panel.score_label.text() == "3.25"
    assert panel.scale_widget.pending_code == panel.scale.to_code(3.25)
    keys(qtbot, window, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 3.25
    # On the next item: a leading point is 0., and `.5` then `0` is still 0.5.
    keys(qtbot, window, Qt.Key.Key_Period, Qt.Key.Key_5, Qt.Key.Key_0, Qt.Key.Key_Return)
    assert window.context.project.rating("d:2", "alice") == 0.5


def test_after_a_point_digits_go_on_and_never_start_another_number(qtbot, window):
    """`1.75` then `2` is 1.752, refused: not a quiet 2. The next digit starts afresh."""
    lines = []
    window.rating_panel.message.connect(lines.append)
    keys(qtbot, window, Qt.Key.Key_1, Qt.Key.Key_Period, Qt.Key.Key_7, Qt.Key.Key_5,
         Qt.Key.Key_2)
    assert lines[-1].startswith("score 1.752 is not on the grid of scale clss")
    assert window.rating_panel.pending_code is None
    keys(qtbot, window, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") is None
    keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 2.0


def test_a_fraction_off_the_grid_is_refused_never_rounded(qtbot, window):
    panel = window.rating_panel
    project = window.context.project
    lines = []
    panel.message.connect(lines.append)
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Period, Qt.Key.Key_3)
    assert lines == ["score 3.3 is not on the grid of scale clss (0-4, step 0.25): not taken, "
                     "type the score again"]
    keys(qtbot, window, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") is None and current_id(window) == "d:1"
    # Enter on an unfinished fraction refuses it too: 3.2 is neither 3 nor 3.25.
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Period, Qt.Key.Key_2, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") is None and current_id(window) == "d:1"
    assert lines[-1].startswith("score 3.2 is not on the grid of scale clss")
    # A point past the end of the scale: 4.5 is refused, not made 4.
    keys(qtbot, window, Qt.Key.Key_4, Qt.Key.Key_Period, Qt.Key.Key_5, Qt.Key.Key_Return)
    assert project.rating("d:1", "alice") is None
    assert lines[-2].startswith("score 4.5 is outside scale clss")  # then "Type a score first"


def test_steps_go_on_from_a_typed_fraction(qtbot, window):
    keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_Period, Qt.Key.Key_5, Qt.Key.Key_Plus,
         Qt.Key.Key_5)  # the step ends the typing: 5 is a new whole number, refused
    assert window.rating_panel.pending_code is None
    keys(qtbot, window, Qt.Key.Key_2, Qt.Key.Key_Period, Qt.Key.Key_5, Qt.Key.Key_Plus,
         Qt.Key.Key_Return)
    assert window.context.project.rating("d:1", "alice") == 2.75


def test_left_right_move_without_changing_anything(qtbot, window):
    project = window.context.project
    before = len(project.changes())
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Right)
    assert current_id(window) == "d:2"
    keys(qtbot, window, Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Left)
    assert current_id(window) == "d:1"
    keys(qtbot, window, Qt.Key.Key_Left)  # the first item has no previous: stays
    assert current_id(window) == "d:1"
    assert project.rating("d:1", "alice") is None
    assert len(project.changes()) == before
    # The pending 3 was dropped when leaving the item.
    assert window.rating_panel.score_label.text() != "3"


def test_delete_clears_my_rating(qtbot, window):
    project = window.context.project
    keys(qtbot, window, Qt.Key.Key_3, Qt.Key.Key_Return, Qt.Key.Key_Left)
    assert project.rating("d:1", "alice") == 3.0
    keys(qtbot, window, Qt.Key.Key_Delete)
    assert project.rating("d:1", "alice") is None
    assert project.rating("d:1", "bob") == 3.75  # only this annotator's rating


def test_typing_in_the_note_does_not_rate(qtbot, window):
    project = window.context.project
    panel = window.rating_panel
    keys(qtbot, window, Qt.Key.Key_2)
    panel.actions_by_name["note"].trigger()
    assert QApplication.focusWidget() is panel.note_edit
    qtbot.keyClicks(panel.note_edit, "4 words")
    assert panel.score_label.text() == "2"  # the digit went into the note
    keys(qtbot, window, Qt.Key.Key_Return)
    assert project.rating_record("d:1", "alice")["note"] == "4 words"
    assert project.rating("d:1", "alice") == 2.0
    assert QApplication.focusWidget() is panel.scale_widget


def test_every_contract_key_is_in_a_menu(window):
    shown = set()
    for top in window.menuBar().actions():
        stack = [top.menu()]
        while stack:
            menu = stack.pop()
            for action in menu.actions():
                if action.menu():
                    stack.append(action.menu())
                for key in action.shortcuts():
                    shown.add(key.toString())
    for key in ("0", "1", "2", "3", "4", "5", "9", ".", "+", "-", "Up", "Down", "Return",
                "Enter", "Left", "Right", "Del", "Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Q"):
        assert key in shown, key


def test_ctrl_q_closes_the_window(qtbot, window):
    keys(qtbot, window, Qt.Key.Key_3)
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_Q,
                   Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()
    assert window.context.project is None
