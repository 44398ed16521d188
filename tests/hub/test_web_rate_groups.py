"""Crowd ratings that reach `simrate serve` together share one call and one commit on the
hub (issue 42: concurrent ratings share commits where safe), and a refused rating in a
group is refused alone: a rating with another task's token gets the page's own refusal
while the others of its group are stored and answered with their next pair. A hub
published before groups existed still takes every rating, one call each.

Real PostgreSQL, a real `simrate serve` process, real HTTP requests sent at the same moment
from threads, each worker with a client (and cookies) of its own. A row's stamp carries
the id of the transaction that wrote it in its high bits (hub/schema/tables.py,
next_stamp): that is how the tests see which ratings went together.
"""

from __future__ import annotations

import re

import httpx
import pytest

from simrate.hub.schema.names import STAMP_BITS
from tests.hub.webhub import published_study
from tests.support.helpers import at_one_moment
from tests.web.client import form_of, item_page, start
from tests.web.servers import Server

WORKERS = 8


def first_pages(server, count: int) -> list[tuple[httpx.Client, str]]:
    """`count` workers, each with a task started and its first pair's page."""
    pages = []
    for k in range(count):
        client = httpx.Client(base_url=server.url, timeout=60)
        assert start(client, "s", f"W{k}").status_code == 303
        page = item_page(client, "s")
        assert page.status_code == 200 and 'id="left"' in page.text, page.text
        pages.append((client, page.text))
    return pages


def rate_all_at_once(forms: list[tuple[httpx.Client, dict]]) -> list[httpx.Response]:
    def post(client: httpx.Client, form: dict):
        return lambda: client.post("/study/s/rate", data=form, follow_redirects=False)

    return at_one_moment([post(client, form) for client, form in forms])


def web_ratings(hub) -> tuple[dict[str, int], int]:
    """The hub's crowd ratings {worker: how many} and how many transactions wrote them
    (the project's own ratings, published with it, left out)."""
    with hub.admin() as conn:
        rows = conn.execute(
            "SELECT annotator, (seq - (SELECT value::bigint FROM simrate.hub WHERE key = "
            "'stamp_base')) >> %s FROM simrate.ratings WHERE annotator LIKE 'W%%'",
            (STAMP_BITS,)).fetchall()
    counts: dict[str, int] = {}
    for name, _ in rows:
        counts[name] = counts.get(name, 0) + 1
    return counts, len({tx for _, tx in rows})


@pytest.fixture
def study(hub, tmp_path):
    path, _ = published_study(hub, tmp_path, items=60, checks=3, per_task=4, n_checks=0,
                              per_item=WORKERS, annotator=None)
    return path


def test_ratings_sent_together_share_a_commit_and_a_refused_one_is_refused_alone(
        hub, study):
    with Server(study) as server:
        pages = first_pages(server, WORKERS + 1)
        forms = []
        for client, text in pages:
            form = form_of(text)
            form["score"] = "3"
            forms.append((client, form))
        forms[-1][1]["token"] = forms[0][1]["token"]  # another task's token
        answers = rate_all_at_once(forms)
        for client, _ in pages:
            client.close()
        status, _out, err = server.stop()
    assert status == 0 and "Traceback" not in err, err[-3000:]
    for answer in answers[:WORKERS]:  # each answered with its next pair, at once
        assert answer.status_code == 200, answer.text[:500]
        assert re.search(r'id="left">', answer.text)
    refused = answers[-1]
    assert 400 <= refused.status_code < 500 and 'id="left"' not in refused.text
    counts, transactions = web_ratings(hub)
    assert counts == {f"W{k}": 1 for k in range(WORKERS)}
    assert transactions < WORKERS  # fewer commits than ratings


def test_a_hub_without_rating_groups_gets_one_call_a_rating(hub, study):
    with hub.admin() as conn:  # as a hub published by the simrate before groups
        conn.execute("DROP FUNCTION simrate.web_rate_shows(jsonb)")
    with Server(study) as server:
        pages = first_pages(server, 4)
        forms = []
        for client, text in pages:
            form = form_of(text)
            form["score"] = "2"
            forms.append((client, form))
        answers = rate_all_at_once(forms)
        for client, _ in pages:
            client.close()
        server.stop()
    assert [a.status_code for a in answers] == [200] * 4
    counts, transactions = web_ratings(hub)
    assert counts == {f"W{k}": 1 for k in range(4)} and transactions == 4


def test_the_grouped_answer_is_read_in_the_columns_of_web_rate_show(hub, study):
    """A group's answer is web_rate_show's row as an object, which serve reads back in
    RATE_SHOW_COLUMNS: the same columns, in the same order, as the function returns."""
    from simrate.web.hub_backend import RATE_SHOW_COLUMNS

    with hub.admin() as conn:
        names, modes = conn.execute(
            "SELECT proargnames, proargmodes FROM pg_proc WHERE oid = "
            "'simrate.web_rate_show(text, text, text, integer, integer)'::regprocedure"
        ).fetchone()
    returned = tuple(name for name, mode in zip(names, modes, strict=True) if mode == "t")
    assert RATE_SHOW_COLUMNS == returned
