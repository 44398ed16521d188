"""The window and the hub: the status item goes offline and online; the organizer's
dashboard follows another process's push with no user action."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QSettings

from simrate.core.agreement import alpha
from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.settings import Settings
from simrate.gui.shell.main_window import MainWindow
from tests.hub.hubs import join_as, team


def open_window(qtbot, tmp_path, path, annotator: str, organizer: bool = False) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / f"settings-{annotator}.ini"),
                                  QSettings.Format.IniFormat))
    context = ApplicationContext(settings, organizer=organizer)
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    context.open_project(path, annotator)
    return window


def status_text(window: MainWindow) -> str:
    status = window.hub_link.status
    return "" if status is None else status.text()


@pytest.fixture
def joined(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator", "Bob": "annotator"})
    for name in ("Alice", "Bob"):
        join_as(hub, logins[name], tmp_path / f"{name}.simrate").close()
    organizer.close()
    return tmp_path / "organizer.simrate", logins


def test_status_goes_offline_and_online_and_nothing_is_lost(qtbot, hub, tmp_path, joined):
    _organizer, _logins = joined
    window = open_window(qtbot, tmp_path, tmp_path / "Alice.simrate", "Alice")
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    project = window.context.project
    project.rate("d:1", "Alice", 2.0)
    qtbot.waitUntil(lambda: "connected \u00b7 1 pending" in status_text(window), timeout=5000)
    rated = project.team_tables.read("SELECT max(id) FROM changes")[0][0]
    qtbot.waitUntil(lambda: window.hub_link.sync.acknowledged >= rated
                    and "connected \u00b7 0 pending" in status_text(window), timeout=10000)
    hub.cluster.stop("fast")
    try:
        project.rate("d:2", "Alice", 3.0)  # rating never waits for the network
        project.rate("d:3", "Alice", 4.0)
        qtbot.waitUntil(lambda: "offline \u00b7 2 pending" in status_text(window),
                        timeout=15000)
        assert "unreachable" in window.hub_link.status.toolTip()
    finally:
        hub.cluster.start()
    # back online within the window's backoff (its waits reach 60 s at most)
    qtbot.waitUntil(lambda: "connected \u00b7 0 pending" in status_text(window), timeout=65000)
    with hub.admin() as admin:
        rows = admin.execute("SELECT item_id, code FROM simrate.ratings WHERE annotator = "
                             "'Alice' ORDER BY item_id").fetchall()
    assert rows == [("d:1", 8), ("d:2", 12), ("d:3", 16)]
    window.close()


def test_organizer_dashboard_follows_another_process_push(qtbot, hub, tmp_path, joined):
    organizer_path, _logins = joined
    for name, score in (("Alice", 1.0), ("Bob", 1.0)):
        with Project.open(tmp_path / f"{name}.simrate") as replica:
            for i in range(1, 7):
                replica.rate(f"d:{i}", name, float((i + score) % 6))
        assert hub.simrate("team", "sync", tmp_path / f"{name}.simrate").returncode == 0
    window = open_window(qtbot, tmp_path, organizer_path, "org", organizer=True)
    dashboard = window.organizer.workspace.dashboard
    project = window.context.project

    def batch_alpha() -> str:
        table = project.ratings().pivot(index="annotator", columns="item_id", values="score")
        return f"{alpha(table.to_numpy(dtype=float)):.3f}"

    qtbot.waitUntil(lambda: len(project.ratings()) == 12, timeout=10000)
    qtbot.waitUntil(lambda: dashboard.alpha_label.text() == batch_alpha(), timeout=10000)
    before = dashboard.alpha_label.text()
    with Project.open(tmp_path / "Bob.simrate") as replica:
        replica.rate("d:1", "Bob", 5.0)  # far from Alice's 2.0: alpha drops
    started = time.monotonic()
    pushed = hub.simrate("team", "sync", tmp_path / "Bob.simrate")  # another process
    assert pushed.returncode == 0, pushed.stderr
    qtbot.waitUntil(lambda: project.rating("d:1", "Bob") == 5.0, timeout=10000)
    qtbot.waitUntil(lambda: dashboard.alpha_label.text() == batch_alpha(), timeout=5000)
    assert dashboard.alpha_label.text() != before
    assert time.monotonic() - started < 10
    assert "connected" in status_text(window)
    window.grab().save(str(tmp_path / "organizer.png"))
    window.close()


# ----------------------------------------------------------------- organizer mode on a replica
def test_an_annotators_replica_has_no_organizer_mode(qtbot, hub, tmp_path, joined,
                                                     monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    window = open_window(qtbot, tmp_path, tmp_path / "Alice.simrate", "Alice")
    action = window.organizer.mode_action
    assert not action.isEnabled()
    window.organizer.set_mode(True)  # even when asked directly
    assert not window.context.organizer and not action.isChecked()
    assert "Agreement" not in {d.windowTitle() for d in window.project_docks}
    assert "blind" in window.who_label.text()
    window.context.close_project()
    assert action.isEnabled()  # the next file may be an organizer's


def test_organizer_mode_switches_off_when_an_annotators_replica_opens(qtbot, hub, tmp_path,
                                                                      joined):
    window = open_window(qtbot, tmp_path, tmp_path / "Alice.simrate", "Alice", organizer=True)
    assert not window.context.organizer
    assert "Agreement" not in {d.windowTitle() for d in window.project_docks}
    assert "blind" in window.who_label.text()
    assert not window.organizer.mode_action.isEnabled()
    window.context.close_project()
    with Project.open(tmp_path / "Alice.simrate") as alice:
        assert not (alice.changes()["kind"] == "organizer_mode").any()


def test_an_organizers_replica_keeps_organizer_mode(qtbot, hub, tmp_path, joined):
    organizer_path, _logins = joined
    window = open_window(qtbot, tmp_path, organizer_path, "lead", organizer=True)
    assert window.context.organizer and window.organizer.mode_action.isEnabled()
    assert "Agreement" in {d.windowTitle() for d in window.project_docks}
    window.context.close_project()


def test_organizer_flag_on_an_annotators_replica_is_one_line(hub, tmp_path, joined):
    done = hub.simrate(tmp_path / "Alice.simrate", "--organizer", "--annotator", "Alice",
                       "--quit-when-shown")
    assert done.returncode == 2
    assert done.stderr.startswith("simrate: error: ") and done.stderr.count("\n") == 1
    assert "organizer mode is for organizers" in done.stderr
    assert "window shown" not in done.stdout
