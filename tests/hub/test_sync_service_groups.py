"""Sync rounds that reach `simrate serve` together share one call and one commit on the hub
(issue 42: concurrent ratings share commits where safe), and a refused round in a group is
refused alone: a forged link, a score off the scale and another login's replica id each
get their own one-line refusal while the rest of the group is written. A hub published
before groups existed still gets every round, one call each.

Real PostgreSQL and a real `simrate serve` process; each round is a real HTTP request, sent
at the same moment from threads. A row's stamp carries the id of the transaction that
wrote it in its high bits (hub/schema/tables.py, next_stamp): that is how the tests see
which rounds went together.
"""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest

from simrate.hub.schema.names import STAMP_BITS
from tests.hub.servicehub import service_team
from tests.support.helpers import at_one_moment
from tests.web.servers import Server


@pytest.fixture
def team_of_two(hub, tmp_path):
    """The organizer's replica of a 0-5 hub and sync tokens of Alice and Bob."""
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator",
                                                        "Bob": "annotator"})
    return path, tokens


def body(item: str, code: int, replica: str | None = None) -> dict:
    return {"replica": replica or str(uuid.uuid4()), "upto": 0,
            "ratings": [{"item_id": item, "code": code, "note": "", "skipped": False,
                         "seconds": 2.0, "updated_at": time.time()}],
            "marks": {"settings": 0, "items": 0, "ratings": 0}}


def all_at_once(server, rounds: list[tuple[str, dict]]) -> list[httpx.Response]:
    """POST every (token, body) at the same moment, each from a thread of its own."""
    def post(token: str, payload: dict):
        return lambda: httpx.post(f"{server.url}/sync/round", content=json.dumps(payload),
                                  headers={"Authorization": f"Bearer {token}",
                                           "Content-Type": "application/json"}, timeout=60)

    return at_one_moment([post(token, payload) for token, payload in rounds])


def stored(hub) -> tuple[set[tuple[str, str, int]], int]:
    """The hub's ratings (annotator, item, code) and how many transactions wrote them."""
    with hub.admin() as conn:
        rows = conn.execute(
            "SELECT annotator, item_id, code, (seq - (SELECT value::bigint FROM simrate.hub "
            "WHERE key = 'stamp_base')) >> %s FROM simrate.ratings", (STAMP_BITS,)).fetchall()
    return {(a, i, c) for a, i, c, _ in rows}, len({x for *_, x in rows})


def test_rounds_sent_together_share_a_commit_and_a_refused_one_is_refused_alone(
        hub, team_of_two):
    path, tokens = team_of_two
    good = [(tokens[name], body(f"d:{k}", 8)) for name in ("Alice", "Bob") for k in range(1, 6)]
    bad = [("f" * 43, body("d:6", 8)),            # a forged link
           (tokens["Bob"], body("d:7", 999)),      # a code off the 0-5 scale (0-20)
           (tokens["Alice"], body("d:8", -3))]
    with Server(path) as server:
        answers = all_at_once(server, good + bad)
        # another login's replica id, once Bob's replica is on the hub
        bobs = good[5][1]["replica"]
        taken = all_at_once(server, [(tokens["Alice"], body("d:9", 4, replica=bobs)),
                                     (tokens["Bob"], body("d:10", 4))])
        status, _out, err = server.stop()
    assert status == 0 and "Traceback" not in err, err[-3000:]
    for answer in answers[:len(good)]:
        assert answer.status_code == 200, answer.text
        assert answer.json()["pushed"] == 1
    refusals = [(a.status_code, a.json()) for a in answers[len(good):]]
    assert [(s, r["kind"]) for s, r in refusals] == [(401, "removed"), (400, "error"),
                                                     (400, "error")]
    assert "not valid on the hub" in refusals[0][1]["error"]
    for _status, refusal in refusals[1:]:
        assert "0-5" in refusal["error"] or "scale" in refusal["error"], refusal
        assert "\n" not in refusal["error"] and "simrate." not in refusal["error"]
    assert taken[0].status_code == 403 and "another login" in taken[0].json()["error"]
    assert taken[1].status_code == 200 and taken[1].json()["pushed"] == 1
    ratings, transactions = stored(hub)
    assert ratings == {(name, f"d:{k}", 8) for name in ("Alice", "Bob")
                       for k in range(1, 6)} | {("Bob", "d:10", 4)}
    # ten rounds at one moment went as fewer calls than rounds (each call one transaction)
    assert transactions < len(good) + 1


def test_a_hub_without_groups_gets_one_call_a_round(hub, team_of_two):
    path, tokens = team_of_two
    with hub.admin() as conn:  # as a hub published by the simrate before groups
        conn.execute("DROP FUNCTION simrate.sync_rounds(jsonb)")
    rounds = [(tokens["Alice"], body(f"d:{k}", 4 * k)) for k in range(1, 5)]
    with Server(path) as server:
        answers = all_at_once(server, rounds)
        server.stop()
    assert [a.status_code for a in answers] == [200] * 4
    ratings, transactions = stored(hub)
    assert ratings == {("Alice", f"d:{k}", 4 * k) for k in range(1, 5)}
    assert transactions == 4


def test_a_group_takes_no_right_its_caller_lacks(hub, team_of_two):
    """sync_rounds runs with the caller's rights: when the hub takes the web login's right
    to call sync_round, a round through the group is refused too, in our words."""
    from simrate.hub.schema import web_role_names

    path, tokens = team_of_two
    with hub.admin() as conn:
        owner = conn.execute("SELECT value FROM simrate.hub WHERE key = 'role_owner'"
                             ).fetchone()[0]
    group = web_role_names({"owner": owner})["web"]
    with Server(path) as server:
        with hub.admin() as conn:
            conn.execute("REVOKE EXECUTE ON FUNCTION simrate.sync_round(text, uuid, bigint, "
                         f'jsonb, jsonb) FROM "{group}"')
        answer, = all_at_once(server, [(tokens["Alice"], body("d:1", 8))])
        server.stop()
    assert answer.status_code == 403 and answer.json()["kind"] == "refused", answer.text
    assert "sync_round" not in answer.text and "permission" not in answer.text
    assert stored(hub)[0] == set()
