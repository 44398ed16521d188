"""Request bodies in `simrate serve` on a plain project file are read by one bounded reader
(issue 43): chunked or not, every route stops at its cap with a 413 of one line, the rest
of the body is never read (the server's memory stays flat under four clients sending
200 MB each), and no body leaves a traceback in the server's log."""

from __future__ import annotations

import asyncio
import time

import pytest

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.web.bodies import (
    MAX_BODY,
    MAX_JSON_DEPTH,
    BadBody,
    BodyTooLarge,
    bounded_receive,
    load_json,
)
from tests.web.bodies import nested, post_chunked, post_together, rss_mib
from tests.web.projects import make_project
from tests.web.servers import Server

HUGE = 200 * 2**20
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
#: How much the server's resident memory may grow while refusing the bodies of a test.
MARGIN_MIB = 40


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bodies")
    path = make_project(folder / "p.simrate", items=6, checks=1, texts=("a", "b"))
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, checks=1, per_item=2)
    with Server(path) as running:
        yield running
        status, _out, err = running.stop()
        assert status == 0
        assert "Traceback" not in err and "Error" not in err, err[-3000:]


@pytest.mark.parametrize("route", ["/study/s/rate", "/study/s/start",
                                   "/invite/abcdefabcdefabcdef/rate"])
def test_a_chunked_body_over_the_cap_is_refused_at_the_cap(server, route):
    started = time.monotonic()
    answer = post_chunked(server.port, route, HUGE, FORM)
    elapsed = time.monotonic() - started
    assert answer.status == 413, answer
    assert answer.text == f"the request is too large: this server takes at most " \
                          f"{MAX_BODY:,} bytes here"
    assert answer.sent < 32 * 2**20 and elapsed < 10, (answer.sent, elapsed)


def test_four_clients_with_200_mb_each_leave_the_memory_flat(server):
    pid = server.process.pid
    before = rss_mib(pid)
    started = time.monotonic()
    answers = post_together(server.port, "/study/s/rate", HUGE, clients=4, headers=FORM)
    elapsed = time.monotonic() - started
    after = rss_mib(pid)
    assert [a.status for a in answers] == [413] * 4
    assert after - before < MARGIN_MIB, (before, after)
    print(f"plain server RSS {before:.0f} -> {after:.0f} MiB, {elapsed:.2f} s, "
          f"sent {[a.sent for a in answers]}")


@pytest.mark.parametrize("route", ["/", "/study/s", "/sync/round", "/nowhere"])
def test_routes_that_read_no_body_answer_without_reading_it(server, route):
    answer = post_chunked(server.port, route, HUGE)
    assert answer.status in (404, 405), answer
    assert answer.sent < 64 * 2**20


def test_nested_json_to_a_plain_server_is_one_short_answer(server):
    answer = post_chunked(server.port, "/sync/round", 0, body=nested(100_000),
                          headers={"Authorization": "Bearer " + "x" * 43})
    assert answer.status == 404 and "serves no hub" in answer.text


def test_a_body_under_the_cap_still_reaches_the_form(server):
    answer = post_chunked(server.port, "/study/s/start", 0, body=b"worker=W1", headers=FORM)
    assert answer.status in (400, 403), answer  # no start token: refused by the page


def test_load_json_bounds_the_nesting():
    assert load_json(nested(MAX_JSON_DEPTH)) == load_json(nested(MAX_JSON_DEPTH))
    for depth in (MAX_JSON_DEPTH + 1, 5_000, 100_000):
        with pytest.raises(BadBody, match=f"nests deeper than {MAX_JSON_DEPTH} levels"):
            load_json(nested(depth))
    with pytest.raises(BadBody, match="not JSON"):
        load_json(b"\xff{")
    assert load_json(b'{"a": [{"b": 1}]}') == {"a": [{"b": 1}]}


def test_bounded_receive_stops_at_the_cap_whatever_the_pieces():
    messages = [{"type": "http.request", "body": b"x" * 1000, "more_body": True}] * 10

    async def run() -> int:
        feed = iter(messages)

        async def receive() -> dict:
            return next(feed)

        bounded, got = bounded_receive(receive, 4096), 0
        with pytest.raises(BodyTooLarge):
            while True:
                got += len((await bounded())["body"])
        return got

    assert asyncio.run(run()) == 4000  # the piece that passed the cap never handed on
