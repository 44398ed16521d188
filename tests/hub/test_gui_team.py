"""Joining from the start page, and the organizer's team panel (publish, people)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from simrate.gui.dialogs.join_dialog import JoinDialog
from simrate.gui.organizer.team_panel import AddPersonDialog, open_team_window
from tests.hub.hubs import make_project, team
from tests.hub.test_gui_hub import open_window, status_text


def test_join_from_the_start_page_opens_the_replica_as_the_person(qtbot, hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    organizer.close()
    window = open_window(qtbot, tmp_path, tmp_path / "organizer.simrate", "org")
    window.context.close_project()
    assert window.start_page.join_button.isVisible()
    dialog = JoinDialog(str(tmp_path), window)
    qtbot.addWidget(dialog)
    dialog.joined.connect(window._open_joined)
    dialog.url_edit.setText(hub.url(logins["Alice"]))
    dialog.path_edit.setText(str(tmp_path / "mine.simrate"))
    dialog.password_edit.setText("not her password")
    dialog.join()
    qtbot.waitUntil(lambda: "wrong password" in dialog.error_label.text(), timeout=10000)
    assert len(dialog.error_label.text().splitlines()) == 1
    assert not (tmp_path / "mine.simrate").exists()
    dialog.password_edit.setText(f"pw-{logins['Alice']}")
    dialog.join()
    qtbot.waitUntil(lambda: window.context.project is not None, timeout=15000)
    assert window.context.annotator == "Alice"
    assert window.context.project.n_items == 12
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    window.close()


def test_team_panel_publishes_adds_people_and_shows_who_is_connected(qtbot, hub, tmp_path):
    make_project(tmp_path / "new.simrate").close()
    window = open_window(qtbot, tmp_path, tmp_path / "new.simrate", "org", organizer=True)
    assert window.hub_link.sync is None
    team_window = open_team_window(window)
    panel = team_window.panel
    assert not panel.add_button.isEnabled()
    panel.url_edit.setText(hub.url())
    panel.publish()
    qtbot.waitUntil(lambda: window.hub_link.sync is not None, timeout=20000)
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    assert panel.add_button.isEnabled()
    assert "simrate team harden" in panel.message.text()  # published by no superuser

    def fill() -> None:
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, AddPersonDialog) and w.isVisible())
        dialog.name_edit.setText("Carol")
        dialog.password_edit.setText("carol-pw")
        dialog.again_edit.setText("carol-pw")
        dialog._check()

    QTimer.singleShot(200, fill)
    panel.add_person()
    qtbot.waitUntil(lambda: any(p.name == "Carol" for p in panel.model.people), timeout=10000)
    login = next(p.login for p in panel.model.people if p.name == "Carol")
    assert "Added Carol" in panel.message.text()
    with hub.connect_as(login, "carol-pw") as carol:
        carol.execute("SELECT 1")
        panel.refresh()
        qtbot.waitUntil(lambda: panel.model.people[0].connected, timeout=10000)
        row = panel.model.index(0, 3)
        assert panel.model.data(row) == "yes"
    team_window.grab().save(str(tmp_path / "team.png"))
    team_window.close()
    window.close()


def test_team_panel_gives_a_sync_link_when_the_file_names_a_service(qtbot, hub, tmp_path):
    """After `team add --service URL`, the panel's Add gives an annotator a sync link at
    that address, a live token on the hub for her login."""
    import re

    organizer, _logins = team(hub, tmp_path, {})
    path = organizer.path
    organizer.close()
    service = "http://rate.example:8001"
    done = hub.simrate("team", "add", path, "Ann", "--role", "annotator", "--login",
                       f"{hub.name}_ann", "--service", service)
    assert done.returncode == 0, done.stderr
    window = open_window(qtbot, tmp_path, path, "org", organizer=True)
    panel = open_team_window(window).panel

    def fill() -> None:
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, AddPersonDialog) and w.isVisible())
        dialog.name_edit.setText(f"Dora{hub.name}")  # logins are the cluster's
        dialog._check()

    QTimer.singleShot(200, fill)
    panel.add_person()
    qtbot.waitUntil(lambda: "sync link" in panel.message.text(), timeout=15000)
    token = re.search(re.escape(service) + r"/team/([A-Za-z0-9_-]+)", panel.message.text())
    assert token is not None, panel.message.text()
    with hub.admin() as conn:
        held = conn.execute(
            "SELECT p.annotator FROM simrate.sync_tokens t JOIN simrate.people p "
            "ON p.login = t.login WHERE t.revoked_at IS NULL AND t.token_hash = "
            "encode(sha256(convert_to(%s, 'UTF8')), 'hex')", (token.group(1),)).fetchall()
    assert held == [(f"Dora{hub.name}",)]
    window.close()


def test_adding_an_existing_person_in_another_spelling_keeps_her_password(qtbot, hub,
                                                                          tmp_path):
    """`ＡＮＮ` (fullwidth) typed for the hub's `Ann`: the dialog says she exists, OK keeps
    her password; only the ticked reset gives her the one typed (team add --reset-password)."""
    import psycopg

    organizer, logins = team(hub, tmp_path, {"Ann": "annotator"})
    path = organizer.path
    organizer.close()
    window = open_window(qtbot, tmp_path, path, "org", organizer=True)
    panel = open_team_window(window).panel
    qtbot.waitUntil(lambda: [p.name for p in panel.model.people] == ["Ann"], timeout=10000)
    seen = []

    def fill(reset: bool) -> None:
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, AddPersonDialog) and w.isVisible())
        dialog.name_edit.setText("\uff21\uff2e\uff2e")
        seen.append(dialog.exists_label.text())
        dialog.reset_box.setChecked(reset)
        dialog.password_edit.setText("new-pw" if reset else "")
        dialog.again_edit.setText("new-pw" if reset else "")
        dialog._check()

    QTimer.singleShot(200, lambda: fill(False))
    panel.add_person()
    qtbot.waitUntil(lambda: "unchanged" in panel.message.text(), timeout=10000)
    assert seen[0].startswith("\uff21\uff2e\uff2e is the same name as Ann, and she is already")
    with hub.connect_as(logins["Ann"], f"pw-{logins['Ann']}") as ann:
        ann.execute("SELECT 1")
    QTimer.singleShot(200, lambda: fill(True))
    panel.add_person()
    qtbot.waitUntil(lambda: "password is now" in panel.message.text(), timeout=10000)
    with hub.connect_as(logins["Ann"], "new-pw") as ann:
        ann.execute("SELECT 1")
    with pytest.raises(psycopg.OperationalError):
        hub.connect_as(logins["Ann"], f"pw-{logins['Ann']}").close()
    assert [p.name for p in panel.model.people] == ["Ann"]
    window.close()
