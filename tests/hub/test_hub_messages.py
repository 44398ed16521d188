"""Which it is, when the hub cannot be used: unreachable, full, wrong password, no such
database, removed. One line and exit 2 from every command, the same word in
`team sync --json` and in the window, and nothing lost locally."""

from __future__ import annotations

import json
import time

import pytest

from simrate.core.project import Project
from simrate.hub.link.connection import HubError, connect, explain
from tests.hub.hubs import join_as, team
from tests.hub.test_team_cli import add, one_line_error, published


def _rate_one(path, annotator):
    with Project.open(path) as project:
        project.rate(project.item_ids()[0], annotator, 2.0)
        return len(project.ratings())


def _sync_json(hub, path):
    done = hub.simrate("team", "sync", path, "--json")
    line = one_line_error(done)
    report = json.loads(done.stdout)
    assert set(report) >= {"pushed", "pulled", "pending", "conflicts", "hub"}
    assert report["pending"] == 1 and report["pushed"] == 0  # the rating waits, not lost
    return report["hub"], line


def _other_database(url):
    """The same server and login, database `nosuchhub`."""
    return url[:url.rindex("/")] + "/nosuchhub"


def _joined(hub, tmp_path, role="annotator"):
    project = published(hub, tmp_path)
    login, _ = add(hub, project, "Ann", role=role, password="right")
    local = tmp_path / "ann.simrate"
    done = hub.simrate("team", "join", hub.url(login), local)
    assert done.returncode == 0, done.stderr
    return project, login, local


def test_wrong_password_on_sync(hub, tmp_path):
    _project, _login, local = _joined(hub, tmp_path)
    _rate_one(local, "Ann")
    hub.passfile.write_text(hub.passfile.read_text().replace(":right\n", ":wrong\n"))
    state, line = _sync_json(hub, local)
    assert state == "wrong_password"
    assert "wrong password" in line and "nothing is lost" in line
    with Project.open(local) as project:
        assert len(project.ratings()) == 1


def test_removed_person_on_sync(hub, tmp_path):
    project, _login, local = _joined(hub, tmp_path)
    _rate_one(local, "Ann")
    done = hub.simrate("team", "remove", project, "Ann")
    assert done.returncode == 0, done.stderr
    state, line = _sync_json(hub, local)
    assert state == "removed"
    assert "removed from the hub" in line and "unreachable" not in line


def test_wrong_database_name_is_not_called_unreachable(hub, tmp_path):
    _project, login, local = _joined(hub, tmp_path)
    _rate_one(local, "Ann")
    # passwords for any database on that server (a password file line with `*`), so the
    # server gets as far as looking for the database (it checks the password first)
    port = hub.cluster.port
    with open(hub.passfile, "a", encoding="utf-8") as fh:
        fh.write(f"127.0.0.1:{port}:*:{login}:right\n127.0.0.1:{port}:*:{hub.organizer}:"
                 "org-secret\n")
    with Project.open(local) as opened, opened.team_tables.transaction() as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'hub_url'",
                     (_other_database(hub.url(login)),))
    state, line = _sync_json(hub, local)
    assert state == "no_database"
    assert "no such database 'nosuchhub'" in line and "unreachable" not in line
    # join and publish say the same
    url = _other_database(hub.url())
    line = one_line_error(hub.simrate("team", "join", url, tmp_path / "x.simrate"))
    assert "no such database 'nosuchhub'" in line
    assert not (tmp_path / "x.simrate").exists()
    line = one_line_error(hub.simrate("team", "publish", _project, url))
    assert "no such database 'nosuchhub'" in line


@pytest.mark.parametrize("limit", ["ROLE", "DATABASE"])
def test_full_hub_on_sync(hub, tmp_path, limit):
    _project, login, local = _joined(hub, tmp_path)
    _rate_one(local, "Ann")
    target = login if limit == "ROLE" else hub.name
    with hub.admin() as admin:
        admin.execute(f"ALTER {limit} {target} CONNECTION LIMIT 0")
    try:
        state, line = _sync_json(hub, local)
    finally:
        with hub.admin() as admin:
            admin.execute(f"ALTER {limit} {target} CONNECTION LIMIT -1")
    assert state == "full"
    assert "hub full" in line and "too many connections" in line
    assert ("login's connection limit" if limit == "ROLE" else "database's connection limit") \
        in line
    done = hub.simrate("team", "sync", local, "--json")  # room again: the rating goes out
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pushed"] == 1


def test_unreachable_stays_unreachable(hub, tmp_path):
    _project, _login, local = _joined(hub, tmp_path)
    _rate_one(local, "Ann")
    with Project.open(local) as opened, opened.team_tables.transaction() as conn:
        conn.execute("UPDATE meta SET value = replace(value, ?, '1') WHERE key = 'hub_url'",
                     (str(hub.cluster.port),))
    state, line = _sync_json(hub, local)
    assert state == "unreachable" and "hub unreachable" in line


def test_classification_of_real_server_errors(hub, pg):
    """The one place that tells the failures apart, fed by a real server."""
    import psycopg

    from simrate.hub.link.connection import classify

    def failure(url, password):
        with pytest.raises(psycopg.Error) as caught:
            psycopg.connect(url, password=password, connect_timeout=5).close()
        return caught.value

    pg.sql(f"CREATE ROLE {hub.name}_gone NOLOGIN PASSWORD 'x'")
    cases = {
        "password": failure(hub.url(), "not-the-password"),
        "database": failure(pg.url(hub.organizer, "nosuchdb"), "org-secret"),
        "removed": failure(pg.url(f"{hub.name}_gone", hub.name), "x"),
        "unreachable": failure(f"postgresql://a@127.0.0.1:1/{hub.name}", "x"),
    }
    for kind, exc in cases.items():
        assert classify(exc) == kind, (kind, str(exc))
        error = explain(exc, hub.url())
        assert error.kind == kind and "\n" not in error.message


def test_join_hint_for_an_organizer_names_organizer_mode(hub, tmp_path):
    project = published(hub, tmp_path)
    login, _ = add(hub, project, "Olga", role="organizer")
    done = hub.simrate("team", "join", hub.url(login), tmp_path / "olga.simrate")
    assert done.returncode == 0, done.stderr
    hint = [line for line in done.stdout.splitlines() if line.startswith("open it with")]
    assert hint == [f"open it with: simrate {tmp_path / 'olga.simrate'} --organizer"]
    login, _ = add(hub, project, "Ann")
    done = hub.simrate("team", "join", hub.url(login), tmp_path / "ann.simrate")
    assert f"open it with: simrate {tmp_path / 'ann.simrate'} --annotator 'Ann'" in done.stdout


def test_last_sync_follows_every_round_not_only_pushes(hub, tmp_path):
    """The team panel's "Last sync": a round that only pulls counts too."""
    from simrate.hub.team.people import list_people
    from simrate.hub.team.sync import sync_once

    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    replica = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    try:
        replica.rate("d:1", "Alice", 2.0)
        sync_once(replica)  # a push
        first = _last_seen(list_people(organizer), "Alice")
        time.sleep(1.1)
        report = sync_once(replica)  # nothing to push: a pull only
        assert report.pushed == 0
        later = _last_seen(list_people(organizer), "Alice")
        assert later is not None and first is not None and later > first + 1.0
    finally:
        replica.close()
        organizer.close()


def _last_seen(people, name):
    return next(p.last_seen for p in people if p.name == name)


def test_a_session_reports_the_kind_too(hub, tmp_path):
    """The window's connection (HubSession) goes through the same classification."""
    from simrate.hub.link.session import HubSession

    _project, login, local = _joined(hub, tmp_path)
    with open(hub.passfile, "a", encoding="utf-8") as fh:
        fh.write(f"127.0.0.1:{hub.cluster.port}:*:{login}:right\n")
    with Project.open(local) as project:
        uuid = project.meta("project_uuid")
        replica = project.meta("hub_replica") or "r"
    url = _other_database(hub.url(login))
    session = HubSession(url, replica, False, uuid)
    from simrate.hub.link.exchange import Outbox

    with pytest.raises(HubError) as caught:
        session.round(Outbox(0, 0), {})
    assert caught.value.kind == "database" and caught.value.state == "no_database", caught.value.message
    session.close()
    with pytest.raises(HubError) as caught:
        connect(url)
    assert "no such database" in caught.value.message


def test_the_window_says_which_it_is(qtbot, hub, tmp_path):
    """The status bar item names the failure (the tooltip holds the one line)."""
    from tests.hub.test_gui_hub import open_window, status_text

    project, login, local = _joined(hub, tmp_path)
    assert hub.simrate("team", "remove", project, "Ann").returncode == 0
    window = open_window(qtbot, tmp_path, local, "Ann")
    try:
        qtbot.waitUntil(lambda: "offline (removed from the hub)" in status_text(window),
                        timeout=15000)
        assert "removed from the hub" in window.hub_link.status.toolTip()
        assert window.hub_link.sync.error_kind == "removed"
    finally:
        window.close()


def test_a_server_with_every_slot_taken_is_full(hub, pg):
    """max_connections reached: the server's own words, classified as full."""
    import psycopg

    from simrate.hub.link.connection import classify

    held = []
    try:
        with pytest.raises(psycopg.OperationalError) as caught:
            for _ in range(200):  # the test server allows 120
                held.append(psycopg.connect(hub.url(), password="org-secret",
                                            connect_timeout=5))
    finally:
        for conn in held:
            conn.close()
    assert classify(caught.value) == "full", str(caught.value)
    error = explain(caught.value, hub.url())
    assert error.state == "full" and "max_connections" in error.message
