"""PgBouncer in transaction mode between the annotators and the hub.

Through a transaction-mode pooler, consecutive transactions of one client may run on
different server connections, and one server connection serves many clients in turn. So
nothing a client does may outlive its transaction on the server: no prepared statements
(psycopg's automatic ones fail with `prepared statement "_pg3_0" does not exist`), no
SET, no session advisory locks, no LISTEN. The annotators' whole path (join, the window's
rounds, `team sync`) goes through the pooler here; the organizer syncs and listens
directly against the server, as the administrator is told to route it, and hears every
rating live.
"""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from tests.hub.bouncer import Bouncer, bouncer_binary
from tests.hub.hubs import Hub, team


def start_bouncer(hub: Hub, **options) -> Bouncer:
    binary = bouncer_binary()
    if binary is None:
        reason = ("pgbouncer not found: install Debian's pgbouncer package "
                  "(apt-get install pgbouncer)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    bouncer = Bouncer(binary, hub.cluster, **options)
    bouncer.start()
    return bouncer


@pytest.fixture
def crowd(hub, tmp_path):
    """A published hub with three annotators and a PgBouncer (transaction mode, two server
    connections per login) in front of it; yields (bouncer, {name: login}, organizer's
    open project, connected directly)."""
    organizer, logins = team(hub, tmp_path, {"Ann": "annotator", "Ben": "annotator",
                                             "Cy": "annotator"})
    bouncer = start_bouncer(hub, pool_size=2)
    bouncer.remember(hub.passfile)
    try:
        yield bouncer, logins, organizer
    finally:
        organizer.close()
        bouncer.remove()


def through(bouncer: Bouncer, hub: Hub, login: str) -> str:
    return bouncer.url(login, hub.name)


def hub_codes(hub: Hub) -> dict[tuple[str, str], int]:
    with hub.admin() as admin:
        rows = admin.execute("SELECT item_id, annotator, code FROM simrate.ratings").fetchall()
    return {(item, who): code for item, who, code in rows}


def server_connections(hub: Hub, login_prefix: str) -> int:
    """Server connections of the hub database's annotators busy right now (running a
    statement or inside a transaction). An idle one may be on its way out: PgBouncer
    closes an idle connection of another login's pool to make room under
    max_db_connections, and the server lists it until its process has ended."""
    with hub.admin() as admin:
        return admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                             "AND usename LIKE %s AND state <> 'idle'",
                             (hub.name, login_prefix + "%")).fetchone()[0]


def local_codes(project) -> dict[tuple[str, str], int]:
    """The ratings a replica holds: {(item id, annotator): code}."""
    rows = project.team_tables.read(
        "SELECT i.id, a.name, r.code FROM ratings r JOIN items i ON i.ord = r.item_ord "
        "JOIN annotators a ON a.id = r.annotator_id")
    return {(item, who): code for item, who, code in rows}


def server_log_size(hub: Hub) -> int:
    return hub.cluster.log.stat().st_size


def assert_no_session_errors(bouncer: Bouncer, hub: Hub, since: int) -> None:
    """Neither the bouncer nor the server (since offset `since` of its log) saw a statement
    that needs a session of its own."""
    with open(hub.cluster.log, "rb") as fh:
        fh.seek(since)
        text = bouncer.log_text() + fh.read().decode("utf-8", "replace")
    for needle in ("prepared statement", "_pg3_", "does not exist", "ERROR"):
        assert needle not in text, [line for line in text.splitlines() if needle in line]


def test_annotators_sync_through_pgbouncer_while_the_organizer_listens_directly(
        hub, tmp_path, crowd):
    from simrate.hub.link.session import HubSession
    from simrate.hub.team.join import join
    from simrate.hub.team.sync import session_for, sync_round

    bouncer, logins, organizer = crowd
    log_from = server_log_size(hub)
    # the organizer: its exchange and its LISTEN go straight to the server
    assert organizer.meta("hub_url") == hub.url()
    listener = HubSession(hub.url(), "listener", True, organizer.meta("project_uuid"))
    org_session = session_for(organizer)
    replicas = {}
    try:
        assert listener.wait(0.1)  # fresh: listening from now on
        # two machines per annotator, each joined through the pooler; each keeps its
        # connection to the pooler (the hardest case: one client's transactions land on
        # whichever server connection is free)
        for name in ("Ann", "Ben", "Cy"):
            for machine in (1, 2):
                project, report = join(through(bouncer, hub, logins[name]),
                                       tmp_path / f"{name}{machine}.simrate")
                assert report.hub == "reachable" and report.pulled == 12
                session = HubSession(project.meta("hub_url"), project.meta("hub_replica"),
                                     False, project.meta("project_uuid"), linger=None)
                replicas[(name, machine)] = (project, session)
        assert all(p.meta("hub_url").endswith(f":{bouncer.port}/{hub.name}")
                   for p, _ in replicas.values())
        expected = {}
        for turn in range(8):  # rounds interleaved over the few server connections
            for (name, machine), (project, session) in replicas.items():
                item = f"d:{turn + 1 + (machine - 1) * 4}" if turn < 4 else f"d:{turn - 3}"
                value = float((turn + machine) % 6)
                if turn >= 4 and machine == 2:
                    continue  # machine 1 edits again later, machine 2 only rated
                project.rate(item, name, value)
                expected[(item, name)] = project.scale.to_code(value)
                report = sync_round(project, session)
                assert report.hub == "reachable" and report.pending == 0
            # the organizer hears of the annotators' writes on its direct LISTEN link
            heard = listener.wait(5.0)
            assert heard, f"turn {turn}: the organizer heard nothing"
            while listener.wait(0.05):
                pass
            sync_round(organizer, org_session)
        for (_name, _machine), (project, session) in replicas.items():
            sync_round(project, session)  # each machine pulls its person's other machine
        assert hub_codes(hub) == expected
        sync_round(organizer, org_session)
        assert local_codes(organizer) == expected
        for (name, _machine), (project, _session) in replicas.items():
            assert local_codes(project) == {k: v for k, v in expected.items()
                                            if k[1] == name}
    finally:
        for project, session in replicas.values():
            session.close()
            project.close()
        org_session.close()
        listener.close()
    assert_no_session_errors(bouncer, hub, log_from)


def test_team_join_and_sync_json_through_pgbouncer(hub, tmp_path, crowd):
    from simrate.core.project import Project

    bouncer, logins, organizer = crowd
    log_from = server_log_size(hub)
    local = tmp_path / "Ben.simrate"
    done = hub.simrate("team", "join", through(bouncer, hub, logins["Ben"]), local)
    assert done.returncode == 0, done.stderr
    with Project.open(local) as ben:
        for n in range(1, 7):
            ben.rate(f"d:{n}", "Ben", float(n % 6))
    done = hub.simrate("team", "sync", local, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hub"] == "reachable" and report["pushed"] == 6 and report["pending"] == 0
    again = json.loads(hub.simrate("team", "sync", local, "--json").stdout)
    assert again == {"pushed": 0, "pulled": 0, "pending": 0, "conflicts": 0,
                     "hub": "reachable", "kept_out": 0}
    # the organizer syncs directly and has them all
    done = hub.simrate("team", "sync", tmp_path / "organizer.simrate", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hub"] == "reachable"
    with Project.open(tmp_path / "organizer.simrate") as org:
        assert local_codes(org) == {(f"d:{n}", "Ben"): org.scale.to_code(float(n % 6))
                                    for n in range(1, 7)}
    assert_no_session_errors(bouncer, hub, log_from)


def test_more_annotator_machines_than_server_connections_all_reach_the_hub(hub, tmp_path):
    """Nine machines (three per person) rate and sync at once through a pooler that gives
    the whole hub database two server connections: each rating ends up on the hub."""
    from simrate.core.project import Project
    from simrate.hub.team.join import join
    from simrate.hub.team.sync import sync_once

    organizer, logins = team(hub, tmp_path, {"Ann": "annotator", "Ben": "annotator",
                                             "Cy": "annotator"}, n_items=30)
    organizer.close()
    log_from = server_log_size(hub)
    bouncer = start_bouncer(hub, pool_size=1, max_db_connections=2)
    bouncer.remember(hub.passfile)
    machines = [(name, m) for name in ("Ann", "Ben", "Cy") for m in range(3)]
    errors: list[BaseException] = []
    peak = [0]
    stop = threading.Event()

    def machine(name: str, m: int) -> None:
        try:
            path = tmp_path / f"{name}-{m}.simrate"
            project, _ = join(through(bouncer, hub, logins[name]), path)
            try:
                for k in range(10):
                    project.rate(f"d:{m * 10 + k + 1}", name, float((k + m) % 6))
                    sync_once(project)
            finally:
                project.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], server_connections(hub, hub.name + "_"))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    threads = [threading.Thread(target=machine, args=spec) for spec in machines]
    try:
        watcher.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=240)
    finally:
        stop.set()
        watcher.join()
    try:
        assert not errors, [str(e) for e in errors]
        with Project.open(tmp_path / "organizer.simrate") as org:
            to_code = org.scale.to_code
        expected = {(f"d:{m * 10 + k + 1}", name): to_code(float((k + m) % 6))
                    for name, m in machines for k in range(10)}
        assert hub_codes(hub) == expected
        # nine machines, never more than two server connections at work for all of them
        assert 1 <= peak[0] <= 2, peak[0]
        assert_no_session_errors(bouncer, hub, log_from)
    finally:
        bouncer.remove()


# ------------------------------------------------- what the pooler refuses, said plainly
def joined_through(hub: Hub, tmp_path, **options):
    """Ann's replica joined through a fresh bouncer (with `options`), with one rating
    waiting to go up; returns (bouncer, login, replica path, organizer's path)."""
    from simrate.core.project import Project
    from simrate.hub.team.join import join

    organizer, logins = team(hub, tmp_path, {"Ann": "annotator"})
    organizer.close()
    bouncer = start_bouncer(hub, **options)
    bouncer.remember(hub.passfile)
    local = tmp_path / "Ann.simrate"
    project, _ = join(through(bouncer, hub, logins["Ann"]), local)
    project.rate("d:1", "Ann", 2.0)
    project.close()
    with Project.open(local) as project:
        assert project.rating("d:1", "Ann") == 2.0
    return bouncer, logins["Ann"], local, tmp_path / "organizer.simrate"


def sync_json_refused(hub: Hub, local) -> tuple[str, str]:
    """`team sync --json` refused: the hub state it reports and the one error line; the
    rating waits."""
    from tests.hub.test_team_cli import one_line_error

    done = hub.simrate("team", "sync", local, "--json")
    line = one_line_error(done)
    report = json.loads(done.stdout)
    assert report["pending"] == 1 and report["pushed"] == 0
    return report["hub"], line


def test_a_wrong_password_at_the_pooler_says_wrong_password(hub, tmp_path):
    bouncer, login, local, _org = joined_through(hub, tmp_path)
    try:
        lines = hub.passfile.read_text().splitlines()
        hub.passfile.write_text("".join(
            (line.rsplit(":", 1)[0] + ":wrong" if line.split(":")[3] == login else line)
            + "\n" for line in lines))
        state, line = sync_json_refused(hub, local)
        assert state == "wrong_password" and "wrong password" in line, line
    finally:
        bouncer.remove()


def test_a_person_removed_says_removed_through_the_pooler(hub, tmp_path):
    from simrate.core.project import Project
    from simrate.hub.team.people import remove_person

    bouncer, _login, local, org = joined_through(hub, tmp_path)
    try:
        with Project.open(org) as organizer:
            remove_person(organizer, "Ann")
        state, line = sync_json_refused(hub, local)
        assert state == "removed" and "removed from the hub" in line, line
    finally:
        bouncer.remove()


def test_a_pooler_out_of_client_slots_says_hub_full(hub, tmp_path):
    import psycopg

    bouncer, login, local, _org = joined_through(hub, tmp_path, max_client_conn=2)
    held = []
    try:
        for _ in range(2):  # other windows take the bouncer's client slots
            held.append(psycopg.connect(through(bouncer, hub, login),
                                        password=f"pw-{login}", autocommit=True))
        state, line = sync_json_refused(hub, local)
        assert state == "full" and "hub full" in line and "max_client_conn" in line, line
        assert "unreachable" not in line
    finally:
        for conn in held:
            conn.close()
        bouncer.remove()


def test_no_server_connection_free_in_time_says_hub_full(hub, tmp_path):
    """The pool's one server connection is busy in a long transaction: the round waits
    query_wait_timeout at the pooler, and is told the hub is full, not unreachable."""
    import psycopg

    from simrate.core.project import Project
    from simrate.hub.link.connection import HubError
    from simrate.hub.team.sync import sync_once

    bouncer, login, local, _org = joined_through(hub, tmp_path, pool_size=1,
                                                 query_wait_timeout=1)
    busy = psycopg.connect(through(bouncer, hub, login), password=f"pw-{login}",
                           autocommit=True)
    try:
        busy.execute("BEGIN")
        busy.execute("SELECT 1")  # holds the pool's only server connection
        with Project.open(local) as project:
            with pytest.raises(HubError) as caught:
                sync_once(project)
            assert caught.value.kind == "full", caught.value.message
            assert "hub full" in caught.value.message
            assert "query_wait_timeout" in caught.value.message
            busy.execute("COMMIT")
            report = sync_once(project)  # room again: the rating goes up
            assert report.pushed == 1 and report.pending == 0
    finally:
        busy.close()
        bouncer.remove()


def test_an_annotators_window_syncs_through_pgbouncer(qtbot, hub, tmp_path, crowd):
    """The window's own code path: it rates, the rating reaches the hub through the
    pooler, and a rating made on the person's other machine comes back to it."""
    from simrate.hub.team.join import join
    from simrate.hub.team.sync import sync_once
    from tests.hub.test_gui_hub import open_window, status_text

    bouncer, logins, _organizer = crowd
    log_from = server_log_size(hub)
    url = through(bouncer, hub, logins["Cy"])
    join(url, tmp_path / "Cy.simrate")[0].close()
    other, _ = join(url, tmp_path / "Cy-laptop.simrate")
    window = open_window(qtbot, tmp_path, tmp_path / "Cy.simrate", "Cy")
    try:
        qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
        project = window.context.project
        for n in range(1, 7):  # more rounds than psycopg's threshold for preparing
            project.rate(f"d:{n}", "Cy", float(n % 6))
            qtbot.waitUntil(lambda n=n: hub_codes(hub).get((f"d:{n}", "Cy"))
                            == project.scale.to_code(float(n % 6)), timeout=10000)
        other.rate("d:9", "Cy", 5.0)
        sync_once(other)
        window.hub_link.sync.sync_now()
        qtbot.waitUntil(lambda: project.rating("d:9", "Cy") == 5.0, timeout=10000)
        assert "connected" in status_text(window) and window.hub_link.sync.error == ""
    finally:
        window.close()
        other.close()
    assert_no_session_errors(bouncer, hub, log_from)
