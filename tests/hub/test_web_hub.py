"""`simrate serve` on an organizer's hub replica: the page talks to PostgreSQL as the hub's
web login, leases with SKIP LOCKED (50 workers on two servers: no slot twice, no item
overfilled), and the ratings reach the organizer's replica, never an annotator's.

Real PostgreSQL (tests/hub/cluster.py) and real server processes; in CI a missing server
fails these tests (tests/hub/conftest.py).
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter

import httpx
import psycopg
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.hub.team.sync import session_for, sync_once, sync_round
from simrate.hub.team.web_hub import WEB_LOGIN_KEY, set_study
from tests.hub.hubs import join_as
from tests.hub.webhub import published_study
from tests.web.client import form_of, start, whole_task
from tests.web.servers import Server


def web_login(path) -> str:
    with Project.open(path) as project:
        return project.meta(WEB_LOGIN_KEY)


def hub_rows(hub, sql: str, params: tuple = ()) -> list[tuple]:
    with hub.admin() as conn:
        return conn.execute(sql, params).fetchall()


def test_a_whole_task_on_the_hub_reaches_the_organizers_replica_with_task_slot_seconds(
        hub, tmp_path, capsys):
    path, _ = published_study(hub, tmp_path, items=20, checks=3, per_task=4, n_checks=1)
    with Server(path) as server:
        client = httpx.Client(base_url=server.url, timeout=10)
        code, seen = whole_task(client, "s", "W1", score="3")
        assert len(seen) == 5
        # a reload after the end: the code again
        again = client.get("/study/s/task", follow_redirects=True)
        assert 'id="completion-code"' in again.text
        assert server.stop()[0] == 0
    with Project.open(path) as project:
        assert code == web.get_study(project, "s").code
        assert project.ratings().query("annotator == 'W1'").empty  # not pulled yet
        sync_once(project)
        mine = project.ratings().query("annotator == 'W1'")
        assert len(mine) == 5 and (mine["score"] == 3.0).all()
        assert mine["seconds"].notna().all()
        assert project.roster.kinds()["W1"] == "crowd"
    from simrate.cli import main

    assert main(["crowd", "status", str(path), "--json"]) == 0
    status = __import__("json").loads(capsys.readouterr().out)["studies"]["s"]
    assert status["tasks"]["done"] == 1 and status["workers"] == {
        "W1": {"tasks_done": 1, "ratings": 5}}
    with Project.open(path) as project:  # the task and slot of each rating, in the file
        slots = project.team_tables.read(
            "SELECT t.task, s.slot, i.id, s.seconds, s.is_check FROM web_slots s JOIN "
            "web_tasks t ON t.study = s.study AND t.task = s.task JOIN items i "
            "ON i.ord = s.item_ord WHERE t.worker = 'W1' ORDER BY s.slot")
    assert [r[1] for r in slots] == [1, 2, 3, 4, 5]
    assert sorted(r[2] for r in slots) == sorted(mine["item_id"])
    assert sum(r[4] for r in slots) == 1 and all(r[3] is not None for r in slots)


def test_fifty_workers_on_two_hub_servers_never_get_a_slot_twice_nor_overfill(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=200, checks=3, per_task=2, n_checks=1,
                              per_item=1, annotator=None)
    errors: list[str] = []
    with Server(path) as one, Server(path) as two:
        barrier = threading.Barrier(50)

        def worker(number: int) -> int:
            base = (one, two)[number % 2].url
            done = 0
            with httpx.Client(base_url=base, timeout=60) as client:
                barrier.wait()
                while True:  # one task per worker id: a new id for each further task
                    landing = client.get(f"/study/s?worker=W{number}-{done}")
                    answer = client.post("/study/s/start", data=form_of(landing.text))
                    if answer.status_code == 410:
                        return done
                    if answer.status_code == 429:
                        time.sleep(0.5)
                        continue
                    if answer.status_code != 303:
                        errors.append(str(answer.status_code) + answer.text[-300:])
                        return done
                    while True:
                        page = client.get("/study/s/task", follow_redirects=True)
                        if 'id="completion-code"' in page.text:
                            break
                        rated = client.post("/study/s/rate",
                                            data={**form_of(page.text), "score": "2"})
                        if rated.status_code != 200:
                            errors.append(str(rated.status_code) + rated.text[-300:])
                            return done
                    done += 1

        threads = []
        results: list[int] = []
        for number in range(50):
            thread = threading.Thread(target=lambda n=number: results.append(worker(n)))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join(300)
        assert one.stop()[0] == 0 and two.stop()[0] == 0
    assert not errors, errors[:3]
    assert sum(results) == 100  # 200 items, 2 a task, each once
    slots = hub_rows(hub, "SELECT s.item_id, t.worker FROM simrate.web_slots s JOIN "
                          "simrate.web_tasks t USING (study, task) WHERE NOT s.is_check")
    per_item = Counter(item for item, _ in slots)
    assert len(per_item) == 200 and max(per_item.values()) == 1  # no slot twice, no overfill
    ratings = hub_rows(hub, "SELECT r.item_id, count(*) FROM simrate.ratings r JOIN "
                            "simrate.annotators a ON a.name = r.annotator WHERE a.kind = "
                            "'crowd' AND r.item_id LIKE 'i%%' GROUP BY 1")
    assert len(ratings) == 200 and {n for _, n in ratings} == {1}
    pool = hub_rows(hub, "SELECT max(used), min(used) FROM simrate.web_pool "
                         "WHERE NOT is_check")
    assert pool == [(1, 1)]


def test_the_web_login_may_only_lease_and_rate_through_its_functions(hub, tmp_path):
    path, logins = published_study(hub, tmp_path)
    login = web_login(path)
    with Server(path) as server:  # a task of W1, through the page
        client = httpx.Client(base_url=server.url, timeout=10)
        assert start(client, "s", "W1").status_code == 303
        page = client.get("/study/s/task", follow_redirects=True)
        form = form_of(page.text)
        cookie = client.cookies.get("simrate_task")
        assert server.stop()[0] == 0
    conn = psycopg.connect(hub.url(login), autocommit=True)  # password: the password file
    try:
        for statement in ("SELECT * FROM simrate.ratings", "SELECT * FROM simrate.web_tasks",
                          "SELECT * FROM simrate.items", "SELECT * FROM simrate.people",
                          "SELECT * FROM simrate.web_pool",
                          "UPDATE simrate.web_pool SET used = 0",
                          "UPDATE simrate.web_tasks SET state = 'leased'",
                          "INSERT INTO simrate.ratings (item_id, annotator, code, updated_at) "
                          "VALUES ('i002', 'Ann', 1, 0)",
                          "INSERT INTO simrate.annotators (name) VALUES ('X')",
                          "SELECT simrate.web_set_study('t', 1, 0, 1, 1, '', true, '{}', "
                          "'c', 's', '{}')",
                          "SELECT simrate.web_login('x')",
                          "SELECT simrate.web_expire('s', NULL, 1e12)",
                          "SELECT simrate.web_release('s', '{w000001}', true)",
                          "SELECT simrate.add_person('X', 'x', 'organizer', NULL)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # a rating needs the task's cookie and its token: another's token is refused
        other = conn.execute("SELECT token FROM simrate.web_lease('s', 'W2', '', '', '')"
                             ).fetchone()[0]
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT simrate.web_rate('s', %s, %s, %s, 1)",
                         (cookie, other, int(form["slot"])))
        assert refused.value.sqlstate == "SR403"
        # a person of the team, or a rater of the project, is no crowd worker
        for name in ("Ann", "alice"):
            with pytest.raises(psycopg.Error) as person:
                conn.execute("SELECT * FROM simrate.web_lease('s', %s, '', '', '')", (name,))
            assert person.value.sqlstate == "SR403"
        assert conn.execute("SELECT simrate.web_rate('s', %s, %s, %s, 1)",
                            (cookie, form["token"], int(form["slot"]))).fetchone() == (
            str(int(form["slot"]) + 1),)  # saved: the next slot to rate
    finally:
        conn.close()
    written = hub_rows(hub, "SELECT annotator, login FROM simrate.ratings WHERE login = %s",
                       (login,))
    assert written == [("W1", login)]
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings WHERE annotator IN "
                         "('Ann', 'alice') AND login = %s", (login,)) == [(0,)]


def test_an_annotators_replica_never_receives_web_ratings(hub, tmp_path):
    path, logins = published_study(hub, tmp_path, items=12, checks=2, per_task=3)
    ann = join_as(hub, logins["Ann"], tmp_path / "ann.simrate")
    try:
        ann.rate("i003", "Ann", 2.0)
        sync_once(ann)
        session = session_for(ann)
        while session.wait(0.3):  # LISTEN set up, earlier notes drained
            pass
        with Server(path) as server:
            client = httpx.Client(base_url=server.url, timeout=10)
            whole_task(client, "s", "W1")
            assert server.stop()[0] == 0
        woken = session.wait(2.0)  # the web ratings are announced to organizers only
        session.close()
        sync_once(ann)
        ratings = ann.ratings()
        assert set(ratings["annotator"]) == {"Ann"}
        assert "W1" not in ann.roster.names()
        assert not woken
    finally:
        ann.close()
    with hub.connect_as(logins["Ann"], f"pw-{logins['Ann']}") as conn:
        seen = conn.execute("SELECT DISTINCT annotator FROM simrate.ratings").fetchall()
        assert seen == [("Ann",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM simrate.web_slots")
    with Project.open(path) as project:  # the organizer's replica has them
        sync_once(project)
        assert len(project.ratings().query("annotator == 'W1'")) == 4


def test_a_lease_not_finished_in_time_goes_back_to_the_pool(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=4, checks=1, per_task=4, n_checks=0,
                              per_item=1, lease_minutes=0.02, annotator=None)
    with Server(path) as server:
        first = httpx.Client(base_url=server.url, timeout=10)
        second = httpx.Client(base_url=server.url, timeout=10)
        assert start(first, "s", "W1").status_code == 303
        page = first.get("/study/s/task", follow_redirects=True)
        assert first.post("/study/s/rate", data={**form_of(page.text), "score": "2"}
                          ).status_code == 200
        assert start(second, "s", "W2").status_code == 410  # every item is leased
        time.sleep(1.5)
        late = first.get("/study/s/task", follow_redirects=True)
        # the time ran out after one rating: the code for the work done, with a line saying so
        assert late.status_code == 200 and 'id="completion-code"' in late.text
        assert "ran out before every pair was rated" in late.text
        assert start(second, "s", "W2").status_code == 303  # the three unrated came back
        assert second.get("/study/s/task", follow_redirects=True).text.count("Pair 1 of 3")
        stale = first.post("/study/s/rate", data={**form_of(page.text), "score": "2"})
        assert stale.status_code == 409
        assert server.stop()[0] == 0
    assert hub_rows(hub, "SELECT state, count(*) FROM simrate.web_tasks GROUP BY 1 "
                         "ORDER BY 1") == [("expired", 1), ("leased", 1)]


def test_sigterm_stops_a_hub_server_cleanly_and_loses_no_acknowledged_rating(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=150, checks=1, per_task=150, n_checks=0,
                              annotator=None)
    acknowledged: list[str] = []
    with Server(path) as server:
        client = httpx.Client(base_url=server.url, timeout=10)
        assert start(client, "s", "W1").status_code == 303
        stop = threading.Event()

        def rate_on():
            try:
                while not stop.is_set():
                    form = form_of(client.get("/study/s/task", follow_redirects=True).text)
                    if client.post("/study/s/rate", data={**form, "score": "3"}
                                   ).status_code == 200:
                        acknowledged.append(form["slot"])
            except httpx.HTTPError:
                pass

        rater = threading.Thread(target=rate_on)
        rater.start()
        while len(acknowledged) < 20:
            time.sleep(0.01)
        server.process.send_signal(signal.SIGTERM)
        status, _out, err = server.stop()
        stop.set()
        rater.join(30)
    assert status == 0, err
    assert "Traceback" not in err
    rated = {str(s) for (s,) in hub_rows(
        hub, "SELECT slot FROM simrate.web_slots WHERE rated_at IS NOT NULL")}
    assert rated >= set(acknowledged)
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings WHERE annotator = 'W1'"
                    ) == [(len(rated),)]


def test_web_ratings_reach_the_organizers_replica_live(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, annotator=None)
    project = Project.open(path)
    session = session_for(project)
    try:
        sync_round(project, session)
        while session.wait(0.3):
            sync_round(project, session)
        with Server(path) as server:
            client = httpx.Client(base_url=server.url, timeout=10)
            assert start(client, "s", "W1").status_code == 303
            page = client.get("/study/s/task", follow_redirects=True)
            sent = time.monotonic()
            assert client.post("/study/s/rate", data={**form_of(page.text), "score": "1"}
                               ).status_code == 200
            assert session.wait(5.0)  # the organizers' channel woke the replica
            sync_round(project, session)
            took = time.monotonic() - sent
            assert server.stop()[0] == 0
        assert len(project.ratings().query("annotator == 'W1'")) == 1
        assert took < 5.0
    finally:
        session.close()
        project.close()


def test_crowd_study_and_serve_on_the_command_line_of_an_organizers_replica(hub, tmp_path):
    path, logins = published_study(hub, tmp_path, annotator="Ann")
    changed = hub.simrate("crowd", "study", path, "s", "--per-item", 3)
    assert changed.returncode == 0, changed.stderr
    assert "on the hub" in changed.stdout and web_login(path) in changed.stdout
    assert hub_rows(hub, "SELECT per_item, open FROM simrate.web_studies") == [(3, True)]
    closed = hub.simrate("crowd", "study", path, "s", "--close")
    assert closed.returncode == 0, closed.stderr
    assert hub_rows(hub, "SELECT open FROM simrate.web_studies") == [(False,)]
    with Server(path) as server:
        assert httpx.get(server.url + "/study/s?worker=W1").status_code == 410
        assert server.stop()[0] == 0
    ann = join_as(hub, logins["Ann"], tmp_path / "ann.simrate")
    ann.close()
    refused = hub.simrate("crowd", "study", tmp_path / "ann.simrate", "t", "--per-task", 2)
    assert refused.returncode == 2 and "annotator's replica" in refused.stderr
    assert refused.stderr.count("\n") == 1
    served = hub.simrate("serve", tmp_path / "ann.simrate", "--port", 0)
    assert served.returncode == 2 and "annotator's replica" in served.stderr
    assert served.stderr.count("\n") == 1


def hub_state(hub) -> list:
    return [hub_rows(hub, f"SELECT * FROM simrate.{table} ORDER BY 1, 2")
            for table in ("ratings", "web_tasks", "web_slots")]


def test_random_bodies_to_every_endpoint_on_the_hub_get_short_4xx_and_store_nothing(
        hub, tmp_path):
    import random

    from starlette.testclient import TestClient

    from simrate.web.hub_backend import HubBackend
    from simrate.web.pages import create_app
    from tests.web.client import send_hostile_requests

    path, _ = published_study(hub, tmp_path, annotator=None)
    rng = random.Random(24)
    app = create_app(path, backend=HubBackend(path))
    with TestClient(app, raise_server_exceptions=False) as client:
        start(client, "s", "W1")
        client.get("/study/s/task", follow_redirects=True)
        before = hub_state(hub)
        send_hostile_requests(client, rng, 300)
    assert hub_state(hub) == before


def test_a_failing_hub_answers_a_short_503_without_detail(hub, tmp_path):
    import re

    from starlette.testclient import TestClient

    from simrate.hub.schema import web_role_names
    from simrate.web.hub_backend import HubBackend
    from simrate.web.pages import create_app

    path, _ = published_study(hub, tmp_path, annotator=None)
    with TestClient(create_app(path, backend=HubBackend(path)),
                    raise_server_exceptions=False) as client:
        start(client, "s", "W1")
        page = client.get("/study/s/task", follow_redirects=True)
        owner = hub_rows(hub, "SELECT value FROM simrate.hub WHERE key = 'role_owner'")[0][0]
        group = web_role_names({"owner": owner})["web"]
        with hub.admin() as conn:  # the hub takes the web login's rights away meanwhile
            conn.execute(f'REVOKE EXECUTE ON FUNCTION simrate.web_rate(text, text, text, '
                         f'integer, integer), simrate.web_rate_show(text, text, text, '
                         f'integer, integer), simrate.web_task(text, text) FROM "{group}"')
        answers = [client.get("/study/s/task", follow_redirects=True),
                   client.post("/study/s/rate", data={**form_of(page.text), "score": "2"})]
    for answer in answers:
        assert answer.status_code == 503
        text = answer.text + str(answer.headers)
        for detail in ("Traceback", "psycopg", "permission", "web_rate", "simrate.",
                       str(path), "postgres"):
            assert detail.lower() not in text.lower(), (detail, text)
        assert len(re.sub(r"<[^>]+>", "", answer.text).strip()) < 400


def test_exclude_careless_drops_a_careless_web_worker_after_the_hub_sync(hub, tmp_path,
                                                                          capsys):
    """The check-item rule on web ratings that came through the hub: seconds, kind crowd
    and the check items' scores reach the organizer's replica."""
    import json
    import re

    from simrate.cli import main

    path, _ = published_study(hub, tmp_path, items=12, checks=3, per_task=4, n_checks=3,
                              annotator=None)
    known = {"c1": "1", "c2": "2", "c3": "3"}
    with Server(path) as server:
        for worker, careful in (("careful", True), ("careless", False)):
            client = httpx.Client(base_url=server.url, timeout=10)
            assert start(client, "s", worker).status_code == 303
            while True:
                page = client.get("/study/s/task", follow_redirects=True)
                if 'id="completion-code"' in page.text:
                    break
                item = re.search(r'id="left">left text ([^<]*)<', page.text).group(1)
                score = known.get(item, "2") if careful else "4"
                assert client.post("/study/s/rate", data={**form_of(page.text),
                                                          "score": score}).status_code == 200
        assert server.stop()[0] == 0
    with Project.open(path) as project:
        sync_once(project)
    assert main(["annotators", str(path), "--exclude-careless", "--by", "me"]) == 0
    capsys.readouterr()
    with Project.open(path) as project:
        assert project.excluded_annotators() == ["careless"]
    assert main(["annotators", str(path), "--json"]) == 0
    report = {r["annotator"]: r for r in json.loads(capsys.readouterr().out)}
    assert report["careless"]["checks"] == 3 and report["careless"]["flagged"]
    assert report["careful"]["check_pearson"] == 1.0
    assert report["careful"]["seconds_per_item"] is not None


def test_an_acknowledged_web_rating_is_on_the_hubs_disk_before_the_page_says_saved(
        hub, tmp_path):
    """A web rating's commit does not wait for the disk under the hub's write lock (every
    other writer would wait on the flush); the POST still answers only once the rating is
    on disk. The server's log writer is made slow, and the server crashes right after the
    answers: every acknowledged rating is on the hub when it comes back."""
    path, _ = published_study(hub, tmp_path, items=20, checks=1, per_task=6, n_checks=0,
                              annotator=None)
    cluster = hub.cluster
    acknowledged: list[str] = []
    with Server(path) as server:
        client = httpx.Client(base_url=server.url, timeout=10)
        assert start(client, "s", "W1").status_code == 303
        cluster.sql("ALTER SYSTEM SET wal_writer_delay = '10s'")
        cluster.sql("SELECT pg_reload_conf()")
        try:
            for _ in range(3):
                form = form_of(client.get("/study/s/task", follow_redirects=True).text)
                answer = client.post("/study/s/rate", data={**form, "score": "4"},
                                     follow_redirects=False)
                assert answer.status_code == 200, answer.text
                acknowledged.append(form["slot"])
            cluster.stop("immediate")  # a crash: what was not written out is gone
        finally:
            if not cluster.running():
                cluster.start()
            cluster.sql("ALTER SYSTEM RESET wal_writer_delay")
            cluster.sql("SELECT pg_reload_conf()")
        server.stop()
    assert hub_rows(hub, "SELECT count(*) FROM simrate.ratings WHERE annotator = 'W1'"
                    ) == [(3,)]
    rated = {str(s) for (s,) in hub_rows(
        hub, "SELECT slot FROM simrate.web_slots WHERE rated_at IS NOT NULL")}
    assert rated == set(acknowledged)


BAD_SETTINGS = [
    {"name": "<img src=x onerror=alert(1)>"}, {"name": "../../etc"}, {"name": ""},
    {"url": "javascript:alert(1)"}, {"url": "https://x/ y"}, {"lease": -1.0},
    {"lease": 0.0}, {"lease": float("nan")}, {"per_task": 0}, {"per_item": 0},
    {"checks": -1}, {"code": "<b>"}, {"options": "not json"}, {"options": "[1]"},
    {"options": '{"frame_from": "javascript:alert(1)"}'},
    {"options": '{"partial_code": "a b"}'}, {"secret": "short"},
]


@pytest.mark.parametrize("bad", BAD_SETTINGS, ids=lambda bad: "-".join(map(str, bad)))
def test_the_hub_checks_what_an_organizers_login_stores_as_a_study(hub, tmp_path, bad):
    """Any client of an organizer's login meets the hub's own checks, not only simrate's."""
    from simrate.hub.team.people import hub_of, organizer_connection

    path, _ = published_study(hub, tmp_path, items=4, checks=1, per_task=2, n_checks=0,
                              annotator=None)
    with Project.open(path) as project:
        url, uuid = hub_of(project)
    good = {"name": "t", "per_task": 2, "checks": 0, "per_item": 1, "lease": 10.0,
            "url": "https://example.org/c?cc={code}", "code": "CODE-1", "secret": "k" * 64,
            "options": '{"partial_code": "P1"}'}
    call = ("SELECT simrate.web_set_study(%(name)s, %(per_task)s, %(checks)s, %(per_item)s, "
            "%(lease)s, %(url)s, true, '{}', %(code)s, %(secret)s, %(options)s)")
    conn = organizer_connection(url, uuid, None)
    try:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(call, {**good, **bad})
        assert refused.value.sqlstate == "22023"
        assert str(refused.value).startswith("web study refused: ")
        conn.rollback()
        conn.execute(call, good)  # the same call with good settings is taken
        conn.commit()
    finally:
        conn.close()
    # the table refuses a bad row even from a login that may write it (a later bug)
    with pytest.raises(psycopg.errors.CheckViolation), hub.admin() as admin:
        admin.execute("UPDATE simrate.web_studies SET completion_url = 'javascript:x'")
    assert hub_rows(hub, "SELECT name, completion_url FROM simrate.web_studies ORDER BY 1") \
        == [("s", ""), ("t", "https://example.org/c?cc={code}")]


def test_a_flood_on_the_hub_holds_its_share_and_leaves_no_rater_nor_change(hub, tmp_path):
    """The hub's web_lease applies the file's flood limits: made-up workers from many
    addresses hold at most half of a 100-task study, one /64 at most 5 tasks, and none of
    them becomes a rater or writes a change; a real worker's first rating does both."""
    from concurrent.futures import ThreadPoolExecutor

    from simrate.core.team.crowdweb.flood import UNRATED_PER_ADDRESS, UNRATED_SHARE

    path, _ = published_study(hub, tmp_path, items=200, checks=1, per_task=2, n_checks=0,
                              per_item=1, annotator=None)
    with Project.open(path) as project:
        study = web.get_study(project, "s")
    changes_before = hub_rows(hub, "SELECT count(*) FROM simrate.changes")[0][0]
    with Server(path) as server:
        def fake(number: int) -> int:
            worker = f"F{number}"
            address = f"198.18.{number // 250}.{number % 250}" if number < 300 else \
                f"2001:db8:5:1::{number:x}"
            form = {"worker": worker, "session": "", "study_id": "",
                    "start_token": study.start_token(worker)}
            with httpx.Client(base_url=server.url, timeout=30) as client:
                return client.post("/study/s/start", data=form,
                                   headers={"x-forwarded-for": address}).status_code

        with ThreadPoolExecutor(6) as pool:
            statuses = list(pool.map(fake, range(340)))
        real = httpx.Client(base_url=server.url, timeout=30)
        assert start(real, "s", "R1").status_code in (303, 503)
        assert server.stop()[0] == 0
    assert statuses.count(303) <= int(100 * UNRATED_SHARE)
    assert set(statuses) <= {303, 429, 503}
    assert hub_rows(hub, "SELECT count(*) FROM simrate.web_tasks WHERE address LIKE "
                         "'2001:db8:5:1:%%'")[0][0] <= UNRATED_PER_ADDRESS
    assert hub_rows(hub, "SELECT count(*) FROM simrate.annotators WHERE name LIKE 'F%%' "
                         "OR name = 'R1'") == [(0,)]
    assert hub_rows(hub, "SELECT count(*) FROM simrate.changes")[0][0] == changes_before
    # every made-up lease is short: it runs out within FIRST_RATING_MINUTES
    assert hub_rows(hub, "SELECT max(expires_at - leased_at) FROM simrate.web_tasks") == \
        [(300.0,)]


def test_a_study_on_an_organizers_replica_is_set_through_the_hub_adapter_only(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=6, checks=1, per_task=2, n_checks=0,
                              annotator=None)
    with Project.open(path) as project:
        with pytest.raises(SimrateError, match="organizer's replica of a team hub"):
            web.set_study(project, "s", per_task=4)  # the core alone cannot reach the hub
        assert web.get_study(project, "s").per_task == 2  # nothing written to the file
        set_study(project, "s", per_task=4)
        assert web.get_study(project, "s").per_task == 4
    assert hub_rows(hub, "SELECT per_task FROM simrate.web_studies WHERE name = 's'") == [(4,)]


def test_starts_far_below_the_unrated_cap_do_not_wait_for_each_other(hub, tmp_path):
    """Only near the cap do a study's starts go one at a time: a start whose transaction is
    still open does not hold up the next worker's (found by tests/perf/bench_web.py: 1,000
    workers arriving in 10 s queued on that lock and took every connection to the hub)."""
    path, _ = published_study(hub, tmp_path, items=1000, checks=1, per_task=2, n_checks=0,
                              per_item=1, annotator=None)  # 500 tasks: 250 may be unrated
    lease = "SELECT task FROM simrate.web_lease('s', %s, '', '', %s)"
    with hub.admin() as admin:
        for n in range(12):  # more than UNRATED_LEAST tasks without a rating
            admin.execute(lease, (f"U{n}", f"198.18.0.{n}"))
    with hub.admin() as first, hub.admin() as second:
        first.execute("BEGIN")
        first.execute(lease, ("A1", "198.18.1.1"))  # its transaction stays open
        second.execute("SET statement_timeout = '5s'")
        assert second.execute(lease, ("B1", "198.18.1.2")).fetchone()[0]
        first.execute("COMMIT")
    assert hub_rows(hub, "SELECT count(*) FROM simrate.web_tasks WHERE state = 'leased'"
                    ) == [(14,)]


def test_the_web_tables_are_analyzed_as_a_study_grows_from_nothing(hub, tmp_path):
    """PostgreSQL's plans for the web tables, made while they were nearly empty, cost
    30-150 ms a start until its autovacuum analyzed them (tests/perf/bench_web.py: 1,000
    arrivals in 10 s on a fresh hub); web_lease analyzes them at 64, 128, 256, ... tasks."""
    path, _ = published_study(hub, tmp_path, items=400, checks=1, per_task=2, n_checks=0,
                              per_item=1, annotator=None)
    counted = ("SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON "
               "n.oid = c.relnamespace WHERE n.nspname = 'simrate' AND c.relname IN "
               "('web_tasks', 'web_slots') ORDER BY 1")
    with hub.admin() as admin:
        for n in range(64):
            admin.execute("SELECT task FROM simrate.web_lease('s', %s, '', '', '')",
                          (f"U{n}",))
        # the 64th start analyzed the tables as the 63 tasks before it left them
        assert admin.execute(counted).fetchall() == [("web_slots", 126.0),
                                                     ("web_tasks", 63.0)]
