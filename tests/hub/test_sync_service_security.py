"""Through the sync service an annotator can read and write no more than with a login of
her own (issue 33): rounds sent by hand, naming another person, reading reference scores,
using another person's replica id; the service login's own rights on the hub.

Real PostgreSQL and a real `simrate serve` process.
"""

from __future__ import annotations

import time
import uuid

import httpx
import psycopg
import pytest

from simrate.core.project import Project
from simrate.hub.schema.service import SERVICE_CONNECTION_LIMIT
from simrate.hub.team.sync import sync_once
from simrate.hub.team.web_hub import WEB_LOGIN_KEY
from tests.hub.hubs import join_as
from tests.hub.servicehub import service_team
from tests.web.servers import Server


@pytest.fixture
def served(hub, tmp_path):
    """Alice and Bob with sync tokens, Bob's rating of d:1 on the hub (direct), the
    organizer's reference score of d:1, and the server: (path, server, logins, tokens)."""
    path, logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator",
                                                        "Bob": "annotator"})
    bob = join_as(hub, logins["Bob"], tmp_path / "bob.simrate")
    bob.rate("d:1", "Bob", 1.0, note="bob's secret")
    sync_once(bob)
    bob.close()
    with hub.admin() as conn:
        conn.execute("UPDATE simrate.items SET reference = 4.5, meta = '{\"gold\": 1}', "
                     "source = '/organizer/secret.csv' WHERE id = 'd:1'")
    with Server(path) as server:
        yield path, server, logins, tokens
        server.stop()


def post(server, token: str, body: dict, **headers) -> httpx.Response:
    return httpx.post(server.url + "/sync/round", json=body, timeout=20,
                      headers={"Authorization": f"Bearer {token}", **headers})


def fresh_body(**extra) -> dict:
    return {"replica": str(uuid.uuid4()), "upto": 0, "ratings": [], "marks": {}, **extra}


def hub_rows(hub, sql: str) -> list[tuple]:
    with hub.admin() as conn:
        return conn.execute(sql).fetchall()


def test_a_round_reads_no_reference_and_no_one_elses_ratings(hub, served):
    _path, server, _logins, tokens = served
    answer = post(server, tokens["Alice"], fresh_body())
    assert answer.status_code == 200, answer.text
    got = answer.json()
    d1 = next(row for row in got["items"] if row[0] == "d:1")
    assert d1[5:8] == [None, None, ""]  # reference, meta, source
    assert got["ratings"] == [] and "bob's secret" not in answer.text
    assert got["name"] == "Alice"


def test_a_rating_sent_under_another_name_goes_under_the_tokens_person(hub, served):
    _path, server, _logins, tokens = served
    forged = {"item_id": "d:1", "annotator": "Bob", "code": 0, "note": "hacked",
              "skipped": False, "seconds": 1.0, "updated_at": time.time()}
    answer = post(server, tokens["Alice"], fresh_body(ratings=[forged], annotator="Bob"))
    assert answer.status_code == 200, answer.text
    assert hub_rows(hub, "SELECT annotator, note FROM simrate.ratings ORDER BY 1") == \
        [("Alice", "hacked"), ("Bob", "bob's secret")]


def test_another_persons_replica_id_is_refused(hub, served):
    _path, server, logins, tokens = served
    replica = str(uuid.uuid4())
    assert post(server, tokens["Bob"], fresh_body(replica=replica)).status_code == 200
    answer = post(server, tokens["Alice"], fresh_body(replica=replica, upto=99))
    assert answer.status_code == 403 and answer.json()["kind"] == "refused"
    # the refused round raised nothing: Bob's replica keeps its login and its ack
    assert hub_rows(hub, f"SELECT login, acked FROM simrate.replicas "
                         f"WHERE replica = '{replica}'") == [(logins["Bob"], 0)]


def test_an_older_edit_loses_to_the_later_one_through_the_service(hub, served):
    _path, server, logins, tokens = served
    now = time.time()
    rating = {"item_id": "d:2", "code": 3, "note": "later", "skipped": False,
              "seconds": 1.0, "updated_at": now}
    assert post(server, tokens["Alice"], fresh_body(ratings=[rating])).status_code == 200
    older = {**rating, "code": 1, "note": "older", "updated_at": now - 100}
    got = post(server, tokens["Alice"], fresh_body(ratings=[older])).json()
    assert got["pushed"] == 0
    assert [(r[0], r[3]) for r in got["refused"]] == [("d:2", "later")]
    assert hub_rows(hub, "SELECT note FROM simrate.ratings WHERE item_id = 'd:2'") == \
        [("later",)]
    # in a round of two, the one written is not reported, the older one is
    fresh = {**rating, "item_id": "d:3", "note": "new", "updated_at": now + 1}
    got = post(server, tokens["Alice"], fresh_body(ratings=[fresh, older])).json()
    assert got["pushed"] == 1
    assert [(r[0], r[3]) for r in got["refused"]] == [("d:2", "later")]
    # every one written: none reported
    got = post(server, tokens["Alice"], fresh_body(ratings=[{**fresh, "code": 2,
                                                             "updated_at": now + 2}])).json()
    assert (got["pushed"], got["refused"]) == (1, [])
    # the change log names Alice's login, not the service's, for the edit written and for
    # the one refused (log_change copies the row's login; log_refused's entry is acted)
    assert hub_rows(hub, "SELECT DISTINCT kind, login FROM simrate.changes "
                    "WHERE item_id = 'd:2' ORDER BY kind") == \
        [("ratings", logins["Alice"]), ("ratings_refused", logins["Alice"])]


@pytest.mark.parametrize("headers, body, status", [
    ({"Authorization": "Bearer " + "x" * 43}, fresh_body(), 401),
    ({}, fresh_body(), 400),
    ({"Authorization": "Basic abc"}, fresh_body(), 400),
])
def test_requests_without_a_valid_token_are_refused(hub, served, headers, body, status):
    _path, server, _logins, _tokens = served
    before = hub_rows(hub, "SELECT count(*) FROM simrate.replicas")
    answer = httpx.post(server.url + "/sync/round", json=body, headers=headers, timeout=20)
    assert answer.status_code == status
    assert hub_rows(hub, "SELECT count(*) FROM simrate.replicas") == before  # nothing written


def test_bad_bodies_are_refused_with_400_and_huge_ones_with_413(hub, served):
    _path, server, _logins, tokens = served
    for body in (b"not json", b"[1]", b'{"replica": "x"}',
                 b'{"replica": "%s", "marks": {"annotators": 0}}' % str(uuid.uuid4()).encode()):
        answer = httpx.post(server.url + "/sync/round", content=body, timeout=20,
                            headers={"Authorization": f"Bearer {tokens['Alice']}"})
        assert answer.status_code == 400, body
    huge = httpx.post(server.url + "/sync/round", content=b"x" * (5 * 1024 * 1024),
                      headers={"Authorization": f"Bearer {tokens['Alice']}"}, timeout=20)
    assert huge.status_code == 413


def web_login(path) -> str:
    with Project.open(path) as project:
        return project.meta(WEB_LOGIN_KEY)


def test_the_service_login_has_no_table_privilege_and_a_connection_limit(hub, served):
    path, *_ = served
    login = web_login(path)
    with hub.admin() as conn:
        relations = conn.execute(
            "SELECT c.oid::regclass::text, c.relkind FROM pg_class c WHERE c.relnamespace = "
            "'simrate'::regnamespace AND c.relkind IN ('r', 'v', 'S')").fetchall()
        assert {"simrate.ratings", "simrate.sync_tokens", "simrate.clock"} <= \
            {name for name, _kind in relations}
        for name, kind in relations:
            check, rights = (("has_sequence_privilege", ("USAGE", "SELECT", "UPDATE"))
                             if kind == "S" else
                             ("has_table_privilege", ("SELECT", "INSERT", "UPDATE", "DELETE")))
            for right in rights:
                assert not conn.execute(f"SELECT {check}(%s, %s, %s)",
                                        (login, name, right)).fetchone()[0], (name, right)
        limit = conn.execute("SELECT rolconnlimit FROM pg_roles WHERE rolname = %s",
                             (login,)).fetchone()[0]
    assert limit == SERVICE_CONNECTION_LIMIT


def test_the_service_login_cannot_name_a_person_or_read_tokens(hub, served):
    path, *_ = served
    with psycopg.connect(hub.url(web_login(path)), autocommit=True) as conn:
        for sql in ("SELECT * FROM simrate.sync_tokens",
                    "SELECT * FROM simrate.sync_person('x')",
                    "SELECT simrate.sync_issue_token('Alice', 'abc')",
                    "SELECT simrate.sync_revoke('x')",
                    "SELECT * FROM simrate.ratings"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT simrate.sync_round('forged-token-forged-token', %s, 0, "
                         "'[]', '{}')", (str(uuid.uuid4()),))
        assert refused.value.sqlstate == "SR401"


def test_an_annotators_own_login_cannot_borrow_the_service_stamp(hub, served, tmp_path):
    _path, _server, logins, _tokens = served
    with hub.connect_as(logins["Bob"], f"pw-{logins['Bob']}") as conn:
        conn.execute("SELECT set_config('simrate.acting_login', %s, false)",
                     (logins["Alice"],))
        conn.execute("UPDATE simrate.ratings SET note = 'edited', updated_at = %s "
                     "WHERE item_id = 'd:1'", (time.time(),))
    assert hub_rows(hub, "SELECT annotator, login FROM simrate.ratings") == \
        [("Bob", logins["Bob"])]


def test_a_link_that_sends_rounds_without_pause_is_slowed_down(hub, served):
    from simrate.web.sync_service import ROUND_BURST

    _path, server, _logins, tokens = served
    body = fresh_body()
    with httpx.Client(timeout=20) as client:
        codes = [client.post(server.url + "/sync/round", json=body, headers={
            "Authorization": f"Bearer {tokens['Alice']}"}).status_code
            for _ in range(int(ROUND_BURST) + 15)]
        other = client.post(server.url + "/sync/round", json=fresh_body(), headers={
            "Authorization": f"Bearer {tokens['Bob']}"})
    assert codes[:int(ROUND_BURST)] == [200] * int(ROUND_BURST)
    assert 429 in codes
    assert other.status_code == 200  # another person's link is not held back
