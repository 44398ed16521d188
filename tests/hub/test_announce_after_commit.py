"""The hub's news of serve's writes comes after their commits (app/web/announcer.py).

A notifying transaction holds a database-wide lock over its commit's wait for the disk, so
the two calls of serve's hot path (`web_rate_show`, `sync_round`) commit quietly and serve
announces their ratings afterwards, several at once. These tests check, on a real hub,
that the quiet calls send nothing inside their transaction, that the announcement reaches
the organizers (and the person rated) after it, that no client can make its own writes
quiet, and that a whole serve process still wakes an organizer's window.
"""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from simrate.core.project import Project
from simrate.hub.team.sync import session_for, sync_once, sync_round
from simrate.hub.team.web_hub import WEB_LOGIN_KEY, web_url
from simrate.web.announcer import Announcer
from tests.hub.servicehub import join_through, service_team
from tests.hub.webhub import published_study
from tests.web.servers import Server


def heard(conn, seconds: float = 1.0) -> list[tuple[str, str]]:
    return [(n.channel, n.payload) for n in conn.notifies(timeout=seconds)]


def channel(admin, whom: str) -> str:
    return admin.execute("SELECT simrate.channel_for(%s)", (whom,)).fetchone()[0]


def web_connection(hub, path):
    with Project.open(path) as project:
        login = project.meta(WEB_LOGIN_KEY)
    return psycopg.connect(hub.url(login), autocommit=True)  # password: the password file


def test_a_web_rating_commits_quietly_and_its_announcement_comes_after(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, annotator=None)
    with hub.admin() as ear, web_connection(hub, path) as web:
        organizers = channel(ear, "*organizers")
        ear.execute(f'LISTEN "{organizers}"')
        lease = web.execute("SELECT * FROM simrate.web_lease('s', 'W1', '', '', '')").fetchone()
        cookie, token = lease[2], lease[3]
        web.execute("SELECT * FROM simrate.web_rate_show('s', %s, %s, 1, 2)",
                    (cookie, token)).fetchall()
        assert ear.execute("SELECT count(*) FROM simrate.ratings WHERE annotator = 'W1'"
                           ).fetchone() == (1,)  # stored, and the crowd rater added
        assert heard(ear, 0.5) == []  # neither the rating nor the new rater notified
        web.execute("SELECT simrate.announce_writes('{}')")
        assert heard(ear) == [(organizers, "ratings")]
        # a serve of the previous release rates through web_rate: it notifies itself
        web.execute("SELECT simrate.web_rate('s', %s, %s, 2, 3)", (cookie, token))
        assert heard(ear) == [(organizers, "ratings")]


def test_a_sync_round_commits_quietly_and_the_person_hears_of_it_after(hub, tmp_path):
    import json

    path, logins, tokens = service_team(hub, tmp_path, {"Ann": "annotator"})
    with hub.admin() as ear, web_connection(hub, path) as web:
        organizers, hers = channel(ear, "*organizers"), channel(ear, logins["Ann"])
        ear.execute(f'LISTEN "{organizers}"')
        ear.execute(f'LISTEN "{hers}"')
        item = ear.execute("SELECT min(id) FROM simrate.items").fetchone()[0]
        rating = [{"item_id": item, "code": 8, "note": "", "skipped": False,
                   "seconds": 1.0, "updated_at": time.time()}]
        answer = web.execute(
            "SELECT simrate.sync_round(%s, gen_random_uuid(), 1, %s::jsonb, '{}'::jsonb)",
            (tokens["Ann"], json.dumps(rating))).fetchone()[0]
        assert answer["pushed"] == 1 and answer["name"] == "Ann"
        assert heard(ear, 0.5) == []
        web.execute("SELECT simrate.announce_writes(%s)", (["Ann", "nobody"],))
        assert sorted(heard(ear)) == sorted([(organizers, "ratings"), (hers, "ratings")])


@pytest.mark.parametrize("who", ["Ann", "organizer"])
def test_no_setting_of_a_client_keeps_its_own_writes_unannounced(hub, tmp_path, who):
    path, logins = published_study(hub, tmp_path)
    login = logins["Ann"]
    connect = (lambda: hub.connect_as(login, f"pw-{login}")) if who == "Ann" else hub.admin
    with hub.admin() as ear, connect() as client:
        organizers = channel(ear, "*organizers")
        ear.execute(f'LISTEN "{organizers}"')
        if who == "Ann":
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                client.execute("SELECT simrate.announce_writes('{}')")
        client.execute("SET simrate.announce_later = 'on'")  # for the session, too
        with client.transaction():
            client.execute("SELECT set_config('simrate.announce_later', 'on', true)")
            client.execute("SELECT simrate.put_rating('i001', 'Ann', 2, '', false, 1.0, "
                           "extract(epoch FROM now())::float8)")
        assert heard(ear) == [(organizers, "ratings")]
        if who == "organizer":  # a verdict likewise
            client.execute("SELECT simrate.put_verdict('i001', 2, '', 'lead', "
                           "extract(epoch FROM now())::float8)")
            assert heard(ear) == [(organizers, "adjudications")]


def test_writes_noted_in_one_moment_are_announced_once(hub, tmp_path):
    from psycopg_pool import AsyncConnectionPool

    path, _logins, _tokens = service_team(hub, tmp_path, {"Ann": "annotator"})
    with Project.open(path) as project:
        url = web_url(project)

    async def noted(count: int) -> int:
        pool = AsyncConnectionPool(url, min_size=1, max_size=2, open=False,
                                   kwargs={"autocommit": True})
        await pool.open(wait=True, timeout=30)
        announcer = Announcer(pool, delay=0.2)
        announcer.start()
        for k in range(count):  # as a burst of committed ratings would
            announcer.note("Ann" if k % 2 else None)
        await asyncio.sleep(1.0)
        announcer.note(None)  # one more, left pending: stop sends it
        await announcer.stop()
        await pool.close()
        return announcer.sent

    with hub.admin() as ear:
        organizers = channel(ear, "*organizers")
        ear.execute(f'LISTEN "{organizers}"')
        assert asyncio.run(noted(50)) == 2
        assert heard(ear) == [(organizers, "ratings")] * 2


def test_a_round_through_serve_wakes_the_organizers_window(hub, tmp_path):
    path, _logins, tokens = service_team(hub, tmp_path, {"Ann": "annotator"})
    organizer = Project.open(path)
    session = session_for(organizer)
    try:
        sync_round(organizer, session)
        while session.wait(0.3):  # listening, earlier news drained
            sync_round(organizer, session)
        with Server(path) as server:
            ann = join_through(server, tokens["Ann"], tmp_path / "ann.simrate")
            try:
                item = ann.items()["item_id"].iloc[0]
                ann.rate(item, "Ann", 2.0)
                sent = time.monotonic()
                assert sync_once(ann).pushed == 1
            finally:
                ann.close()
            assert session.wait(5.0)
            took = time.monotonic() - sent
            assert server.stop()[0] == 0
        sync_round(organizer, session)
        assert len(organizer.ratings().query("annotator == 'Ann'")) == 1
        assert took < 5.0
    finally:
        session.close()
        organizer.close()
