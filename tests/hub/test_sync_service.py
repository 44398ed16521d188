"""Annotators sync through `simrate serve` (issue 33): joining by a sync link, rounds both
ways, the command line's lines and JSON, tokens forged and revoked, and the stamps the hub
writes for the person, not for the server's login.

Real PostgreSQL (tests/hub/cluster.py) and a real `simrate serve` process.
"""

from __future__ import annotations

import json

import pytest

from simrate.core.project import Project
from simrate.hub.link.connection import HubError
from simrate.hub.team.people import remove_person
from simrate.hub.team.sync import sync_once
from tests.hub.hubs import join_as
from tests.hub.servicehub import join_through, link, service_team
from tests.web.servers import Server


@pytest.fixture
def served(hub, tmp_path):
    """Alice and Bob, annotators with sync tokens, and `simrate serve` on the organizer's
    replica: (organizer's path, server, {name: login}, {name: token})."""
    path, logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator",
                                                        "Bob": "annotator"})
    with Server(path) as server:
        yield path, server, logins, tokens
        server.stop()


def hub_rows(hub, sql: str, params: tuple = ()) -> list[tuple]:
    with hub.admin() as conn:
        return conn.execute(sql, params).fetchall()


def test_an_annotator_joins_through_the_service_and_ratings_travel_both_ways(
        hub, served, tmp_path):
    path, server, logins, tokens = served
    alice = join_through(server, tokens["Alice"], tmp_path / "alice.simrate")
    assert alice.mode.name == "Alice" and alice.mode.annotator
    assert alice.mode.service == server.url and alice.mode.token == tokens["Alice"]
    assert alice.n_items == 12
    alice.rate("d:1", "Alice", 4.0, note="through the service")
    report = sync_once(alice)
    assert (report.pushed, report.pending, report.hub) == (1, 0, "reachable")
    # the hub stamps the person's login, not the server's
    assert hub_rows(hub, "SELECT item_id, note, login FROM simrate.ratings WHERE "
                    "annotator = 'Alice'") == [("d:1", "through the service", logins["Alice"])]
    assert hub_rows(hub, "SELECT DISTINCT login FROM simrate.changes WHERE kind = 'ratings' "
                    "AND annotator = 'Alice'") == [(logins["Alice"],)]
    with Project.open(path) as organizer:
        sync_once(organizer)
        assert organizer.ratings().query("annotator == 'Alice'")["score"].tolist() == [4.0]
    # Alice's other machine connects direct; the replica of the service pulls its edit
    laptop = join_as(hub, logins["Alice"], tmp_path / "laptop.simrate")
    laptop.rate("d:2", "Alice", 1.0)
    laptop.rate("d:1", "Alice", 5.0)  # a later edit of the same rating
    sync_once(laptop)
    pulled = sync_once(alice)
    assert pulled.pulled >= 2
    mine = alice.ratings().set_index("item_id")["score"].to_dict()
    assert mine == {"d:1": 5.0, "d:2": 1.0}
    for project in (alice, laptop):
        project.close()


def test_team_join_and_sync_on_the_command_line_answer_as_direct(hub, served, tmp_path):
    _path, server, logins, tokens = served
    answers = {}
    for how, url in (("service", link(server, tokens["Bob"])), ("direct", hub.url(logins["Bob"]))):
        target = tmp_path / f"bob-{how}.simrate"
        done = hub.simrate("team", "join", url, target)
        assert done.returncode == 0, done.stderr
        assert "joined as Bob (annotator): 12 items" in done.stdout
        with Project.open(target) as bob:
            bob.rate("d:3" if how == "service" else "d:4", "Bob", 2.0)
        done = hub.simrate("team", "sync", target, "--json")
        assert done.returncode == 0, done.stderr
        answers[how] = json.loads(done.stdout)
    assert answers["service"] == answers["direct"]
    assert answers["service"]["pushed"] == 1 and answers["service"]["pending"] == 0
    assert hub_rows(hub, "SELECT item_id, annotator FROM simrate.ratings ORDER BY 1") == \
        [("d:3", "Bob"), ("d:4", "Bob")]


def test_a_forged_token_is_refused_and_nothing_is_written(hub, served, tmp_path):
    _path, server, _logins, tokens = served
    forged = tokens["Alice"][:-4] + ("AAAA" if not tokens["Alice"].endswith("AAAA") else "BBBB")
    target = tmp_path / "mallory.simrate"
    done = hub.simrate("team", "join", link(server, forged), target)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "removed from the hub" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and not target.exists()


def test_team_remove_revokes_the_link_with_one_line_and_exit_2(hub, served, tmp_path):
    path, server, _logins, tokens = served
    target = tmp_path / "alice.simrate"
    alice = join_through(server, tokens["Alice"], target)
    alice.rate("d:1", "Alice", 3.0)
    alice.close()
    with Project.open(path) as organizer:
        remove_person(organizer, "Alice")
    assert hub_rows(hub, "SELECT count(*) FROM simrate.sync_tokens "
                    "WHERE revoked_at IS NULL") == [(1,)]  # Bob's only
    done = hub.simrate("team", "sync", target, "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["hub"] == "removed"
    assert json.loads(done.stdout)["pending"] == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simrate: error: ") and \
        "removed from the hub" in lines[0], done.stderr
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings") == [(0,)]


def test_a_stopped_server_is_unreachable_and_the_changes_stay_pending(hub, served, tmp_path):
    _path, server, _logins, tokens = served
    alice = join_through(server, tokens["Alice"], tmp_path / "alice.simrate")
    alice.rate("d:1", "Alice", 3.0)
    server.stop()
    with pytest.raises(HubError) as refused:
        sync_once(alice)
    assert refused.value.state == "unreachable"
    assert "\n" not in str(refused.value)
    from simrate.hub.team.sync import pending_count

    assert pending_count(alice) == 1
    alice.close()


def test_many_items_and_ratings_travel_in_pages_and_chunks(hub, tmp_path):
    from simrate.hub.link.client import CHUNK
    from simrate.hub.schema.service import SYNC_PAGE

    n_items = SYNC_PAGE + 700
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator"}, n_items)
    with Server(path) as server:
        alice = join_through(server, tokens["Alice"], tmp_path / "alice.simrate")
        assert alice.n_items == n_items
        rated = [f"d:{i}" for i in range(1, 2 * CHUNK + 200)]
        for item in rated:
            alice.rate(item, "Alice", 1.0)
        report = sync_once(alice)
        assert (report.pushed, report.pending) == (len(rated), 0)
        alice.close()
        again = join_through(server, tokens["Alice"], tmp_path / "again.simrate")
        assert again.n_items == n_items and len(again.ratings()) == len(rated)
        again.close()
        server.stop()
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings") == [(len(rated),)]


def test_a_service_without_a_free_hub_connection_says_full_in_one_line(hub, served, tmp_path):
    path, server, _logins, tokens = served
    target = tmp_path / "alice.simrate"
    join_through(server, tokens["Alice"], target).close()
    with Project.open(path) as organizer:
        web_login = organizer.meta("hub_web_login")
    with hub.admin() as conn:  # the service's login may hold no connection now
        conn.execute(f'ALTER ROLE "{web_login}" CONNECTION LIMIT 0')
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE usename = %s", (web_login,))
    done = hub.simrate("team", "sync", target, "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["hub"] == "full"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "hub full" in lines[0], done.stderr


def test_team_token_prints_a_link_that_joins_and_refuses_a_non_annotator(hub, served, tmp_path):
    path, server, _logins, _tokens = served
    done = hub.simrate("team", "token", path, "Bob", "--base-url", server.url + "/")
    assert done.returncode == 0, done.stderr
    made = done.stdout.strip()
    assert made.startswith(server.url + "/team/") and "\n" not in made
    joined = hub.simrate("team", "join", made, tmp_path / "bob.simrate")
    assert joined.returncode == 0 and "joined as Bob" in joined.stdout, joined.stderr
    for name in ("Nobody", "Bea"):
        refused = hub.simrate("team", "token", path, name)
        assert refused.returncode == 2 and refused.stdout == ""
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "not an annotator of this hub" in lines[0], refused.stderr
    bad = hub.simrate("team", "token", path, "Bob", "--base-url", "ftp://x")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_two_serve_processes_share_the_hub(hub, served, tmp_path):
    path, first, _logins, tokens = served
    with Server(path) as second:
        alice = join_through(first, tokens["Alice"], tmp_path / "alice.simrate")
        bob = join_through(second, tokens["Bob"], tmp_path / "bob.simrate")
        alice.rate("d:1", "Alice", 1.0)
        bob.rate("d:1", "Bob", 2.0)
        assert sync_once(alice).pushed == sync_once(bob).pushed == 1
        assert [len(p.ratings()) for p in (alice, bob)] == [1, 1]  # each their own only
        for project in (alice, bob):
            project.close()
        second.stop()
    with Project.open(path) as organizer:
        sync_once(organizer)
        assert sorted(organizer.ratings()["annotator"]) == ["Alice", "Bob"]
