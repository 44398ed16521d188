"""The hub's connection slots at scale: annotators' windows hold none between rounds,
refusals back off, organizers are never locked out, and nothing needs a session of its
own on the server (prepared statements), so a transaction-mode pooler can sit between."""

from __future__ import annotations

import random
import time
from itertools import pairwise

import psycopg
import pytest

from simrate.hub.link.backoff import Backoff
from simrate.hub.link.connection import HubError, connect
from simrate.hub.schema import ANNOTATOR_CONNECTION_LIMIT
from tests.hub.cluster import Cluster, server_bindir
from tests.hub.hubs import Hub, join_as, team
from tests.hub.test_gui_hub import open_window, status_text
from tests.hub.test_team_cli import one_line_error


def connections_of(hub: Hub, login: str) -> int:
    """How many server connections `login` holds right now (seen by the superuser)."""
    with hub.admin() as admin:
        return admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s",
                             (login,)).fetchone()[0]


def hub_rating(hub: Hub, item_id: str, annotator: str):
    with hub.admin() as admin:
        row = admin.execute("SELECT code FROM simrate.ratings WHERE item_id = %s AND "
                            "annotator = %s", (item_id, annotator)).fetchone()
    return None if row is None else row[0]


def hold(hub: Hub, login: str, password: str, count: int) -> list:
    """`count` open connections as `login`: another machine of the same person."""
    return [hub.connect_as(login, password) for _ in range(count)]


@pytest.fixture
def crew(hub, tmp_path):
    """A published hub with the annotator Alice (joined) and an organizer's replica."""
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    join_as(hub, logins["Alice"], tmp_path / "Alice.simrate").close()
    organizer.close()
    return logins


# ----------------------------------------------------------------- 1. no idle connection
def test_an_annotators_window_holds_no_connection_between_rounds(qtbot, hub, tmp_path,
                                                                 crew):
    login = crew["Alice"]
    window = open_window(qtbot, tmp_path, tmp_path / "Alice.simrate", "Alice")
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    project = window.context.project
    project.rate("d:1", "Alice", 2.0)
    rated = project.team_tables.read("SELECT max(id) FROM changes")[0][0]
    qtbot.waitUntil(lambda: window.hub_link.sync.acknowledged >= rated
                    and "connected \u00b7 0 pending" in status_text(window), timeout=10000)
    assert hub_rating(hub, "d:1", "Alice") == 8  # the rating is on the hub
    # the round is over: the window lets go of its connection, yet still shows connected
    deadline = time.monotonic() + 3
    while connections_of(hub, login) and time.monotonic() < deadline:
        qtbot.wait(100)
    assert connections_of(hub, login) == 0
    qtbot.wait(1500)  # and takes none while the person does nothing
    assert connections_of(hub, login) == 0
    assert "connected" in status_text(window) and window.hub_link.sync.online
    project.rate("d:2", "Alice", 3.0)  # the next rating connects again, and goes up
    qtbot.waitUntil(lambda: hub_rating(hub, "d:2", "Alice") == 12, timeout=10000)
    qtbot.waitUntil(lambda: connections_of(hub, login) == 0, timeout=3000)
    window.close()


def test_an_annotator_who_synced_lately_counts_as_connected(hub, tmp_path, crew):
    """The organizer's team list: no connection held, yet a round a moment ago."""
    from simrate.core.project import Project
    from simrate.hub.team.people import list_people
    from simrate.hub.team.sync import sync_once

    with Project.open(tmp_path / "organizer.simrate") as organizer:
        from simrate.hub.team.people import add_person

        add_person(organizer, "Bob", "annotator", None, login=f"{hub.name}_bob")
        with Project.open(tmp_path / "Alice.simrate") as alice:
            sync_once(alice)
        assert connections_of(hub, crew["Alice"]) == 0
        found = {p.name: p for p in list_people(organizer)}
        assert found["Alice"].connected and not found["Bob"].connected
        with hub.admin() as admin:  # a minute and more later: no longer
            admin.execute("UPDATE simrate.replicas SET last_seen = now() - interval '2 min'")
        found = {p.name: p for p in list_people(organizer)}
        assert not found["Alice"].connected


def test_an_organizers_window_keeps_its_live_link(qtbot, hub, tmp_path, crew):
    window = open_window(qtbot, tmp_path, tmp_path / "organizer.simrate", "org",
                         organizer=True)
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    qtbot.wait(2500)
    # its exchange connection and its listening one (LISTEN, to see agreement live)
    assert connections_of(hub, hub.organizer) == 2
    window.close()


# ----------------------------------------------------------------- 2. refusals back off
def test_team_sync_tries_a_full_hub_again_then_says_hub_full(hub, tmp_path, crew):
    login = crew["Alice"]
    from simrate.core.project import Project

    with Project.open(tmp_path / "Alice.simrate") as replica:
        replica.rate("d:1", "Alice", 2.0)
    held = hold(hub, login, f"pw-{login}", ANNOTATOR_CONNECTION_LIMIT)  # her other machine
    try:
        env_wait = 4
        started = time.monotonic()
        done = hub.simrate("team", "sync", tmp_path / "Alice.simrate", "--wait", env_wait)
        took = time.monotonic() - started
    finally:
        for conn in held:
            conn.close()
    line = one_line_error(done)
    assert "hub full" in line and "login's connection limit is reached" in line
    assert "unreachable" not in line and "nothing is lost" in line
    tries = int(line.split("tried ")[1].split(" times")[0])
    assert tries >= 2 and took >= env_wait  # it waited, trying more than once
    done = hub.simrate("team", "sync", tmp_path / "Alice.simrate")  # room again
    assert done.returncode == 0, done.stderr
    assert hub_rating(hub, "d:1", "Alice") == 8


def test_team_sync_waits_for_room_and_then_succeeds(hub, tmp_path, crew):
    """The total wait comes from SIMRATE_HUB_WAIT; a slot freed meanwhile is taken."""
    import os
    import subprocess
    import sys

    from simrate.core.project import Project
    from tests.hub.hubs import ROOT

    login = crew["Alice"]
    with Project.open(tmp_path / "Alice.simrate") as replica:
        replica.rate("d:1", "Alice", 2.0)
    held = hold(hub, login, f"pw-{login}", ANNOTATOR_CONNECTION_LIMIT)
    env = dict(hub.env(), SIMRATE_HUB_WAIT="60")
    sync = subprocess.Popen([sys.executable, "-m", "simrate", "team", "sync",
                             str(tmp_path / "Alice.simrate")], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.5)
        assert sync.poll() is None  # still trying
        held.pop().close()  # a slot comes free
        out, err = sync.communicate(timeout=90)
    finally:
        for conn in held:
            conn.close()
        if sync.poll() is None:
            sync.kill()
    assert sync.returncode == 0, err
    assert "pushed 1" in out and os.path.exists(tmp_path / "Alice.simrate")
    assert hub_rating(hub, "d:1", "Alice") == 8


def test_the_windows_retries_back_off_and_ratings_do_not_bring_them_forward(qtbot, hub,
                                                                           tmp_path, crew):
    from simrate.core.project import Project
    from simrate.gui.shell.hub_sync import HubSync

    login = crew["Alice"]
    held = hold(hub, login, f"pw-{login}", ANNOTATOR_CONNECTION_LIMIT)
    project = Project.open(tmp_path / "Alice.simrate")
    seed = 11
    sync = HubSync(project, backoff=Backoff(base=0.2, cap=5.0, rng=random.Random(seed)))
    failures: list[float] = []

    def note():
        if len(sync.retry_delays) > len(failures):
            failures.append(time.monotonic())

    sync.status_changed.connect(note)
    try:
        qtbot.waitUntil(lambda: len(sync.retry_delays) >= 1, timeout=10000)
        assert sync.error_kind == "full" and "hub full" in sync.error
        for i in range(3, 9):  # rating while refused: no extra try per rating
            project.rate(f"d:{i}", "Alice", 1.0)
            qtbot.wait(150)
        qtbot.waitUntil(lambda: len(sync.retry_delays) >= 6, timeout=30000)
    finally:
        sync.stop()
        for conn in held:
            conn.close()
    expected = Backoff(base=0.2, cap=5.0, rng=random.Random(seed))
    delays = list(sync.retry_delays)
    assert delays[:6] == [expected.next_delay() for _ in range(6)]
    # the ceilings grow (0.2, 0.4, 0.8, 1.6, 3.2 s), and each try waited its delay out
    gaps = [b - a for a, b in pairwise(failures)]
    # strict=False: the last delay drawn may still be running (more delays than gaps)
    for gap, delay in zip(gaps, delays, strict=False):
        assert gap >= delay - 0.05, (gaps, delays)
    assert sum(gaps[3:5]) > sum(gaps[0:2])
    project.close()


def test_the_organizers_listener_backs_off_when_refused(hub, crew):
    """The listening connection of an organizer's window, refused: a few tries, not one
    every fifth of a second."""
    from simrate.hub.link.session import HubSession

    with hub.admin() as admin:
        uuid = admin.execute("SELECT value FROM simrate.hub WHERE key = 'project_uuid'"
                             ).fetchone()[0]
        admin.execute(f"ALTER ROLE {hub.organizer} CONNECTION LIMIT 0")
    session = HubSession(hub.url(), "r", True, uuid)
    calls = 0
    try:
        started = time.monotonic()
        while time.monotonic() - started < 3.0:
            assert session.wait(0.05) is False
            calls += 1
    finally:
        with hub.admin() as admin:
            admin.execute(f"ALTER ROLE {hub.organizer} CONNECTION LIMIT -1")
    tries = session.listen_backoff.attempts
    assert calls >= 40 and 2 <= tries <= 6, (calls, tries)
    session._listen_retry_at = 0.0  # room again: the next call connects and says so
    assert session.wait(0.05) is True and session.listen_backoff.attempts == 0
    session.close()


# ----------------------------------------------------------------- 3. organizers get in
@pytest.fixture
def small_hub(tmp_path, monkeypatch):
    """A hub on a cluster of its own with 8 slots (one kept for the superuser)."""
    bindir = server_bindir()
    assert bindir is not None, "PostgreSQL server binaries not found"
    cluster = Cluster(bindir, max_connections=8, reserved=1)
    cluster.init()
    cluster.start()
    hub = Hub(cluster, "small", tmp_path)
    monkeypatch.setenv("PGPASSFILE", str(hub.passfile))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("SIMRATE_HUB_WAIT", "0")
    try:
        yield hub
    finally:
        cluster.remove()


def test_annotators_at_their_limit_leave_room_for_the_organizers(small_hub, tmp_path):
    hub = small_hub
    organizer, logins = team(hub, tmp_path, {"A": "annotator", "B": "annotator",
                                             "C": "annotator", "Lead": "organizer"})
    organizer.close()
    held, refusals = [], []
    try:
        for name in ("A", "B", "C"):  # each annotator's machines grab all they can
            login = logins[name]
            for _ in range(3):
                try:
                    held.append(connect(hub.url(login)))
                except HubError as exc:
                    refusals.append(exc)
        assert len(held) == 3 * ANNOTATOR_CONNECTION_LIMIT
        assert all(e.kind == "full" and "login's connection limit" in e.message
                   for e in refusals), [e.message for e in refusals]
        # six of the seven slots are the annotators'; the organizers still get in
        lead = connect(hub.url(logins["Lead"]))
        assert lead.execute("SELECT simrate.my_kind()").fetchone()[0] == "organizer"
        lead.close()
        publisher = connect(hub.url())
        publisher.close()
    finally:
        for conn in held:
            conn.close()
    with hub.admin() as admin:
        limits = dict(admin.execute("SELECT rolname, rolconnlimit FROM pg_roles WHERE "
                                    "rolname LIKE 'small%'").fetchall())
    assert {limits[logins[n]] for n in "ABC"} == {ANNOTATOR_CONNECTION_LIMIT}
    assert limits[logins["Lead"]] == -1


def test_an_organizer_made_annotator_gets_the_limit_and_back(hub, tmp_path):
    from simrate.hub.team.people import add_person

    organizer, logins = team(hub, tmp_path, {"Pat": "organizer"})
    try:
        def limit():
            with hub.admin() as admin:
                return admin.execute("SELECT rolconnlimit FROM pg_roles WHERE rolname = %s",
                                     (logins["Pat"],)).fetchone()[0]

        assert limit() == -1
        add_person(organizer, "Pat", "annotator", None, login=logins["Pat"])
        assert limit() == ANNOTATOR_CONNECTION_LIMIT
        add_person(organizer, "Pat", "organizer", None, login=logins["Pat"])
        assert limit() == -1
    finally:
        organizer.close()


def test_publishing_again_limits_annotators_added_by_an_older_simrate(hub, tmp_path, crew):
    from simrate.core.project import Project
    from simrate.hub.team.publish import publish

    login = crew["Alice"]
    with hub.admin() as admin:  # as an older simrate left her
        admin.execute(f"ALTER ROLE {login} CONNECTION LIMIT -1")
        admin.execute(f"ALTER ROLE {hub.organizer} CONNECTION LIMIT 50")  # set by hand
    with Project.open(tmp_path / "organizer.simrate") as organizer:
        publish(organizer, hub.url())
    with hub.admin() as admin:
        limits = dict(admin.execute("SELECT rolname, rolconnlimit FROM pg_roles WHERE rolname "
                                    "IN (%s, %s)", (login, hub.organizer)).fetchall())
        admin.execute(f"ALTER ROLE {hub.organizer} CONNECTION LIMIT -1")
    assert limits == {login: ANNOTATOR_CONNECTION_LIMIT, hub.organizer: 50}


# ----------------------------------------------------------------- 4. a pooler may sit between
def test_hub_connections_prepare_no_statements_on_the_server(hub, crew):
    conn = connect(hub.url())
    try:
        assert conn.prepare_threshold is None
        for _ in range(8):  # psycopg would prepare a statement run 5 times
            conn.execute("SELECT simrate.my_kind()").fetchone()
        assert conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0] == 0
    finally:
        conn.close()
    with pytest.raises(psycopg.Error):  # the connection really was a server's session
        conn.execute("SELECT 1")
