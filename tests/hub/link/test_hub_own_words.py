"""Hub errors reach clients as our own one-line messages (issue 42): a malformed round, a
round with a null edit time and a call of a function the hub lacks, through the sync
service and through a direct login, give our words, never PostgreSQL's (names of
functions, columns, relations, types); the server's words stay in its log. Real
PostgreSQL and a real `simrate serve`."""

from __future__ import annotations

import uuid

import httpx
import psycopg
import pytest

from simrate.hub.link.client import post_round
from simrate.hub.link.connection import HubError, connect, explain
from tests.hub.hubs import team
from tests.hub.servicehub import service_team
from tests.web.servers import Server

#: What PostgreSQL's own texts hold, and ours never do.
SERVER_WORDS = ("does not exist", "null value", "updated_at", "relation", "violates",
                "invalid input syntax", "type integer", "simrate.sync_round", "unknown",
                "ERROR", "SQLSTATE", "constraint")


def _ours(text: str) -> None:
    assert text and "\n" not in text, text
    for words in SERVER_WORDS:
        assert words not in text, text


def _round(server, token: str, ratings: list) -> httpx.Response:
    body = {"replica": str(uuid.uuid4()), "upto": 0, "ratings": ratings,
            "marks": {"settings": 0, "items": 0, "ratings": 0}}
    return httpx.post(f"{server.url}/sync/round", json=body, timeout=30,
                      headers={"Authorization": f"Bearer {token}"})


def _rating(**changes) -> dict:
    rating = {"item_id": "d:1", "code": 4, "note": "", "skipped": False, "seconds": None,
              "updated_at": 1.7e9}
    return {**rating, **changes}


@pytest.fixture
def served(hub, tmp_path):
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator"})
    with Server(path) as server:
        yield server, tokens["Alice"]
        server.stop()


def test_the_sync_service_answers_in_our_words(hub, served):
    server, token = served
    cases = {"a malformed round": [_rating(code="four")],
             "a null edit time": [_rating(updated_at=None)],
             "an item the hub lacks": [_rating(item_id="nowhere:1")]}
    for case, ratings in cases.items():
        answer = _round(server, token, ratings)
        assert answer.status_code == 400, (case, answer.text)
        said = answer.json()
        assert said["kind"] == "error", (case, said)
        _ours(said["error"])
    with hub.admin() as conn:  # nothing of them was written
        assert conn.execute("SELECT count(*) FROM simrate.ratings").fetchone() == (0,)
        conn.execute("DROP FUNCTION simrate.sync_round(text, uuid, bigint, jsonb, jsonb)")
    answer = _round(server, token, [])
    assert answer.status_code == 409 and answer.json()["kind"] == "newer"
    _ours(answer.json()["error"])
    assert "team publish" in answer.json()["error"]
    with pytest.raises(HubError) as caught:  # the client's line: the service's words
        post_round(server.url, token, {"replica": str(uuid.uuid4()), "upto": 0,
                                       "ratings": [], "marks": {}})
    _ours(caught.value.message)
    _code, _out, log = server.stop()
    assert "updated_at" in log and "sync_round" in log  # the detail: the server's log only


def test_a_direct_login_is_told_in_our_words(hub, tmp_path):
    org, logins = team(hub, tmp_path, {"Alice": "annotator"})
    org.close()
    url = hub.url(logins["Alice"])
    conn = connect(url)
    try:
        statements = {
            "a missing function": ("SELECT simrate.sync_round('x', 'y')", ()),
            "a null edit time": ("INSERT INTO simrate.ratings (item_id, annotator, code, "
                                 "note, skipped, updated_at) VALUES ('d:1', 'Alice', 4, '', "
                                 "false, NULL)", ()),
            "a malformed value": ("SELECT 'four'::integer", ()),
        }
        for case, (sql, params) in statements.items():
            try:
                conn.execute(sql, params)
            except psycopg.Error as exc:
                told = explain(exc, url)
            else:
                assert case == "a null edit time", case  # the hub may stamp it itself
                continue
            assert isinstance(told, HubError), case
            _ours(told.message)
            assert told.message.startswith(("the hub refused", "role not allowed")), told
    finally:
        conn.close()
