"""The team window's Add-a-person dialog: a name that is already a person of the hub, in
any spelling, is said at once, and her password changes only with the reset box ticked."""

from __future__ import annotations

from simrate.gui.organizer.team_panel import AddPersonDialog, same_person
from simrate.hub.team.people import Person

PEOPLE = [Person("ann", "hub_ann", "annotator", True, False, 3, None),
          Person("coe", "hub_coe", "organizer", True, False, 0, None),
          Person("gone", "hub_gone", "annotator", False, False, 0, None)]


def test_lookalike_and_fullwidth_names_are_the_person_the_hub_holds():
    assert same_person("ＡＮＮ", PEOPLE).name == "ann"  # fullwidth
    assert same_person(" Ann ", PEOPLE).name == "ann"
    assert same_person("\u0441\u043e\u0435", PEOPLE).name == "coe"  # Cyrillic lookalike
    assert same_person("anna", PEOPLE) is None
    assert same_person("gone", PEOPLE) is None  # removed: adding her again is a new login
    assert same_person("", PEOPLE) is None


def test_an_existing_name_is_said_and_needs_the_box_for_a_new_password(qtbot):
    dialog = AddPersonDialog(people=PEOPLE)
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.reset_box.isVisible() and dialog.password_edit.isEnabled()
    dialog.name_edit.setText("ＡＮＮ")
    assert dialog.reset_box.isVisible() and not dialog.reset_box.isChecked()
    assert dialog.exists_label.text() == (
        "ＡＮＮ is the same name as ann, and she is already a person of this hub (login "
        "hub_ann, annotator). Adding her again keeps her password unless you tick the reset "
        "below.")
    assert not dialog.password_edit.isEnabled() and not dialog.again_edit.isEnabled()
    dialog._check()
    assert dialog.result() == AddPersonDialog.DialogCode.Accepted and not dialog.reset
    assert dialog.password_edit.text() == ""  # nothing to send: her password stays


def test_the_reset_box_asks_for_the_new_password_twice(qtbot):
    dialog = AddPersonDialog(people=PEOPLE)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name_edit.setText("ann")
    dialog.reset_box.setChecked(True)
    assert dialog.password_edit.isEnabled()
    dialog._check()
    assert dialog.error_label.text() == "Type her new password twice, or untick the reset."
    dialog.password_edit.setText("new-pw")
    dialog.again_edit.setText("new-pw")
    dialog._check()
    assert dialog.result() == AddPersonDialog.DialogCode.Accepted and dialog.reset
    dialog.name_edit.setText("bea")  # a new person: the box goes, with its tick
    assert not dialog.reset_box.isVisible() and not dialog.reset


def test_the_team_panels_refresh_runs_only_while_it_is_shown(qtbot, window):
    """Like the web studies panel: a team panel hidden or never shown polls nothing."""
    from PySide6.QtWidgets import QDialog

    from simrate.gui.organizer.team_panel import TeamPanel

    holder = QDialog()
    qtbot.addWidget(holder)
    panel = TeamPanel(window, holder)
    assert not panel._timer.isActive()
    holder.show()
    qtbot.waitExposed(holder)
    assert panel._timer.isActive()
    holder.hide()
    assert not panel._timer.isActive()
