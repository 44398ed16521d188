"""Sync rounds on a hub replica's `simrate serve` read their body through the one bounded
reader (issue 43): chunked or not, with a token or without, a body over 4 MiB is refused
with a 413 of one line at the cap; without a token the body is never read; JSON nested
deeper than 32 levels is a 400; the server's memory stays flat under four clients sending
200 MB each; no PostgreSQL text reaches a client and no body leaves a traceback in the log.

Real PostgreSQL and a real `simrate serve` process.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest

from simrate.web.bodies import MAX_JSON_DEPTH, SYNC_MAX_BODY
from tests.hub.servicehub import service_team
from tests.web.bodies import nested, post_chunked, post_together, rss_mib
from tests.web.servers import Server

HUGE = 200 * 2**20
MARGIN_MIB = 40
TOO_LARGE = f"the request is too large: this server takes at most {SYNC_MAX_BODY // 2**20} " \
            "MiB here"


@pytest.fixture
def served(hub, tmp_path):
    """The organizer's replica served, and Alice's sync token: (server, token)."""
    path, _logins, tokens = service_team(hub, tmp_path, {"Alice": "annotator"})
    with Server(path) as server:
        yield server, tokens["Alice"]
        status, _out, err = server.stop()
        assert status == 0
        assert "Traceback" not in err, err[-3000:]
        assert all(len(line) < 300 for line in err.splitlines()), err[-3000:]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def error_of(answer) -> dict:
    got = json.loads(answer.text)
    assert set(got) == {"error", "kind"} and "\n" not in got["error"], got
    return got


@pytest.mark.parametrize("who", ["token", "forged", "none"])
def test_a_chunked_round_over_the_cap_is_refused_at_once(served, who):
    server, token = served
    headers = {"token": bearer(token), "forged": bearer("x" * 43), "none": {}}[who]
    started = time.monotonic()
    answer = post_chunked(server.port, "/sync/round", HUGE, headers)
    elapsed = time.monotonic() - started
    if who == "none":  # no token: refused before a byte of the body is read
        assert answer.status == 400 and "no sync token" in error_of(answer)["error"]
    else:
        assert answer.status == 413 and error_of(answer)["error"] == TOO_LARGE, answer
    assert answer.sent < 32 * 2**20 and elapsed < 15, (answer.sent, elapsed)


def test_four_clients_with_200_mb_each_leave_the_memory_flat(served):
    server, token = served
    pid = server.process.pid
    before = rss_mib(pid)
    started = time.monotonic()
    answers = post_together(server.port, "/sync/round", HUGE, clients=4,
                            headers=bearer(token))
    answers += post_together(server.port, "/sync/round", HUGE, clients=4)
    elapsed = time.monotonic() - started
    after = rss_mib(pid)
    assert [a.status for a in answers] == [413] * 4 + [400] * 4
    assert after - before < MARGIN_MIB, (before, after)
    print(f"hub server RSS {before:.0f} -> {after:.0f} MiB, {elapsed:.2f} s, "
          f"sent {[a.sent for a in answers]}")


@pytest.mark.parametrize("body", [nested(100_000), nested(MAX_JSON_DEPTH + 1),
                                  b'{"replica": ' + nested(5_000) + b"}",
                                  b"[" * (SYNC_MAX_BODY - 10)])
def test_nested_json_is_a_400_of_one_line(served, body):
    server, token = served
    answer = post_chunked(server.port, "/sync/round", 0, bearer(token), body=body)
    assert answer.status == 400, answer
    assert error_of(answer)["error"] == f"the body nests deeper than {MAX_JSON_DEPTH} levels"


@pytest.mark.parametrize("ratings", [
    [{"item_id": "d:1"}], [{"item_id": 5, "code": "x", "updated_at": "soon"}],
    [{"item_id": "d:1", "code": 10**30, "updated_at": 1e308, "skipped": "no"}],
    [{"item_id": "\u0000", "code": 1, "updated_at": None}]])
def test_malformed_ratings_get_our_words_never_the_hubs(served, ratings):
    server, token = served
    body = json.dumps({"replica": str(uuid.uuid4()), "upto": 0, "ratings": ratings,
                       "marks": {}}).encode()
    answer = post_chunked(server.port, "/sync/round", 0, bearer(token), body=body)
    assert answer.status in (200, 400, 403, 409), answer
    if answer.status != 200:
        line = error_of(answer)["error"]
        for hub_text in ("simrate.", "column", "function", "violates", "SQLSTATE",
                         "invalid input syntax", "CONTEXT"):
            assert hub_text not in line, line
