"""The hub's hot path for web ratings: the worker is claimed as a crowd rater once per
task, not at every rating, and a person's name stays refused at every rating.

Counted with PostgreSQL's own function statistics (`pg_stat_get_xact_function_calls`,
with `track_functions = 'pl'` for the session) on a real hub.
"""

from __future__ import annotations

import psycopg
import pytest

from tests.hub.webhub import published_study

CALLS = ("SELECT pg_stat_get_xact_function_calls("
         "'simrate.claim_rater(text, text, text)'::regprocedure)")


def _rate_whole_task(conn, worker: str) -> int:
    """Lease a task for `worker` and rate all its slots; returns how many were rated."""
    lease = conn.execute("SELECT cookie, token FROM simrate.web_lease('s', %s, '', '', '')",
                         (worker,)).fetchone()
    slot = conn.execute("SELECT slot FROM simrate.web_task('s', %s)", (lease[0],)
                        ).fetchone()[0]
    rated = 0
    while slot is not None:
        following = conn.execute("SELECT simrate.web_rate('s', %s, %s, %s, 8)",
                                 (lease[0], lease[1], slot)).fetchone()[0]
        rated += 1
        slot = None if following == "done" else int(following)
    return rated


def test_a_web_worker_is_claimed_once_per_task(hub, tmp_path):
    published_study(hub, tmp_path, items=40, checks=3, per_task=5, n_checks=1)
    with hub.admin() as conn, conn.transaction():
        conn.execute("SET LOCAL track_functions = 'pl'")
        assert _rate_whole_task(conn, "W1") == 6  # five items and one check item
        assert conn.execute(CALLS).fetchone()[0] == 1
        assert _rate_whole_task(conn, "W2") == 6
        assert conn.execute(CALLS).fetchone()[0] == 2
    assert hub.admin().execute("SELECT name, kind FROM simrate.annotators "
                               "WHERE name IN ('W1', 'W2') ORDER BY name").fetchall() == [
        ("W1", "crowd"), ("W2", "crowd")]


def test_a_person_added_under_a_workers_name_mid_task_stops_the_next_rating(hub, tmp_path):
    published_study(hub, tmp_path, items=40, checks=3, per_task=5, n_checks=1)
    with hub.admin() as conn:
        cookie, token = conn.execute(
            "SELECT cookie, token FROM simrate.web_lease('s', 'W3', '', '', '')").fetchone()
        slot = conn.execute("SELECT slot FROM simrate.web_task('s', %s)", (cookie,)
                            ).fetchone()[0]
        following = conn.execute("SELECT simrate.web_rate('s', %s, %s, %s, 8)",
                                 (cookie, token, slot)).fetchone()[0]
        conn.execute("INSERT INTO simrate.people (login, annotator, kind) "
                     "VALUES ('w3_login', 'W3', 'annotator')")
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT simrate.web_rate('s', %s, %s, %s, 8)",
                          (cookie, token, int(following)))
        assert refused.value.sqlstate == "SR403"
