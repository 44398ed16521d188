"""The hub's hot path for web ratings: the worker is claimed as a crowd rater once per
task, not at every rating, and a person's name stays refused at every rating; the one
read of a task's slots before a rating gives its time and its next slot, and a task's
first and last rating is one update of it.

Counted with PostgreSQL's own function statistics (`pg_stat_get_xact_function_calls`,
with `track_functions = 'pl'` for the session) on a real hub.
"""

from __future__ import annotations

import psycopg
import pytest

from simrate.core.team.crowdweb.flood import FIRST_RATING_MINUTES
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


UNRATED = ("SELECT count(*)::integer FROM simrate.web_tasks WHERE study = 's' "
           "AND state = 'leased' AND first_rated_at IS NULL")
KEPT = "SELECT simrate.web_unrated_count('s')"


def _kept_and_counted(conn) -> tuple[int, int]:
    return conn.execute(KEPT).fetchone()[0], conn.execute(UNRATED).fetchone()[0]


def test_the_kept_count_of_tasks_without_a_rating_follows_every_write_of_them(hub, tmp_path):
    """A start reads the tasks without a rating from a kept count (constant time): it
    follows leases, first ratings, finished tasks, releases, expiry and rollbacks made on
    several connections, and a publish counts it afresh."""
    from simrate.core.project import Project
    from simrate.hub.team.publish import publish

    path, _ = published_study(hub, tmp_path, items=60, checks=3, per_task=3, n_checks=1)
    conns = [hub.admin() for _ in range(3)]  # three backends, three shards of the count
    try:
        leases = [conns[k % 3].execute(
            "SELECT cookie, token FROM simrate.web_lease('s', %s, '', '', '')", (f"W{k}",)
        ).fetchone() for k in range(9)]
        assert _kept_and_counted(conns[0]) == (9, 9)
        for k in (0, 4):  # a first rating, on another connection than the lease's
            cookie, token = leases[k]
            slot = conns[1].execute("SELECT slot FROM simrate.web_task('s', %s)", (cookie,)
                                    ).fetchone()[0]
            conns[(k + 1) % 3].execute("SELECT simrate.web_rate('s', %s, %s, %s, 8)",
                                       (cookie, token, slot))
        assert _kept_and_counted(conns[2]) == (7, 7)
        assert _rate_whole_task(conns[1], "W20") == 4  # leased and finished: no change
        assert _kept_and_counted(conns[1]) == (7, 7)
        with pytest.raises(psycopg.errors.DivisionByZero), conns[2].transaction():
            conns[2].execute("SELECT * FROM simrate.web_lease('s', 'W30', '', '', '')")
            conns[2].execute("SELECT 1/0")  # the lease rolled back with its transaction
        conns[0].execute("SELECT simrate.web_release('s', ARRAY(SELECT task FROM "
                         "simrate.web_tasks WHERE worker = 'W3'), true)")
        assert _kept_and_counted(conns[0]) == (6, 6)
        conns[2].execute("SELECT simrate.web_expire('s', 'W5', 1e12)")  # one worker's
        assert _kept_and_counted(conns[2]) == (5, 5)
        conns[1].execute("SELECT simrate.web_expire('s', NULL, 1e12)")  # every lease's time
        assert _kept_and_counted(conns[1]) == (0, 0)
        conns[0].execute("SELECT * FROM simrate.web_lease('s', 'W40', '', '', '')")
        conns[0].execute("UPDATE simrate.web_unrated SET n = n + 5 WHERE shard = "
                         "(SELECT min(shard) FROM simrate.web_unrated)")  # gone wrong
        assert _kept_and_counted(conns[0]) == (6, 1)
    finally:
        for conn in conns:
            conn.close()
    with Project.open(path) as project:
        publish(project, hub.url())
    with hub.admin() as conn:
        assert _kept_and_counted(conn) == (1, 1)


TASK_ROW = ("SELECT state, first_rated_at IS NOT NULL, done_at IS NOT NULL, "
            "round((expires_at - leased_at)::numeric, 3) FROM simrate.web_tasks "
            "WHERE cookie = %s")
SHOW = "SELECT state, rated, slot FROM simrate.web_rate_show('s', %s, %s, %s, %s)"


def test_a_rating_that_is_a_tasks_first_and_last_finishes_it_in_one_update(hub, tmp_path):
    """A task of one pair: its only rating gives the lease its full length, takes the task
    out of the kept count and finishes it, in the one update web_rate_show makes of the
    task; a correction afterwards leaves it finished."""
    minutes = 30  # the study's lease; until the first rating, the short one
    published_study(hub, tmp_path, items=20, checks=3, per_task=1, n_checks=0,
                    lease_minutes=minutes)
    short, full = round(FIRST_RATING_MINUTES * 60, 3), minutes * 60
    mine = "SELECT code FROM simrate.ratings WHERE annotator = 'W1'"
    with hub.admin() as conn:
        cookie, token = conn.execute(
            "SELECT cookie, token FROM simrate.web_lease('s', 'W1', '', '', '')").fetchone()
        assert conn.execute(TASK_ROW, (cookie,)).fetchone() == ("leased", False, False,
                                                                short)
        assert _kept_and_counted(conn) == (1, 1)
        assert conn.execute(SHOW, (cookie, token, 1, 8)).fetchone() == ("done", 1, None)
        assert conn.execute(TASK_ROW, (cookie,)).fetchone() == ("done", True, True, full)
        assert _kept_and_counted(conn) == (0, 0)
        assert conn.execute(mine).fetchall() == [(8,)]
        assert conn.execute(SHOW, (cookie, token, 1, 4)).fetchone() == ("done", 1, None)
        assert conn.execute(mine).fetchall() == [(4,)]  # corrected, still one rating
        assert conn.execute(TASK_ROW, (cookie,)).fetchone() == ("done", True, True, full)


def test_a_ratings_time_runs_from_the_tasks_last_rating_or_its_start(hub, tmp_path):
    """The seconds a web rating took: since the task's latest rating, or since the lease
    for its first (one read of the task's slots gives both, before the writes)."""
    published_study(hub, tmp_path, items=20, checks=3, per_task=3, n_checks=0)
    with hub.admin() as conn:
        cookie, token = conn.execute(
            "SELECT cookie, token FROM simrate.web_lease('s', 'W1', '', '', '')").fetchone()
        conn.execute("UPDATE simrate.web_tasks SET leased_at = leased_at - 100 "
                     "WHERE cookie = %s", (cookie,))
        conn.execute(SHOW, (cookie, token, 2, 8))
        conn.execute("UPDATE simrate.web_slots SET rated_at = rated_at - 40 WHERE slot = 2")
        shown = conn.execute(SHOW, (cookie, token, 1, 8)).fetchone()
        assert shown == ("leased", 2, 3)  # the next unrated slot, after the one skipped
        took = dict(conn.execute("SELECT s.slot, s.seconds FROM simrate.web_slots s "
                                 "JOIN simrate.web_tasks t USING (study, task) "
                                 "WHERE t.cookie = %s AND s.rated_at IS NOT NULL",
                                 (cookie,)).fetchall())
        assert 100 <= took[2] < 105 and 40 <= took[1] < 45


def test_the_servers_pool_hands_out_the_connection_put_back_last(hub, tmp_path):
    """`serve`'s pool of hub connections is a stack: of three idle connections, the one
    put back last is handed out next, again and again (psycopg's own pool hands out the
    one put back longest ago, and so goes round all three)."""
    import asyncio

    from simrate.web.hub_pool import RecentFirstPool

    async def pid_of(conn) -> int:
        return (await (await conn.execute("SELECT pg_backend_pid()")).fetchone())[0]

    async def handed_out() -> tuple[list[int], list[int]]:
        pool = RecentFirstPool(hub.url(), min_size=3, max_size=3, open=False,
                               kwargs={"autocommit": True})
        await pool.open(wait=True, timeout=30)
        try:
            taken = [await pool.getconn() for _ in range(3)]
            pids = [await pid_of(conn) for conn in taken]
            for conn in taken:  # put back in the order taken: the third goes back last
                await pool.putconn(conn)
            handed = []
            for _ in range(4):
                conn = await pool.getconn()
                handed.append(await pid_of(conn))
                await pool.putconn(conn)
            return pids, handed
        finally:
            await pool.close()

    pids, handed = asyncio.run(handed_out())
    assert len(set(pids)) == 3
    assert handed == [pids[2]] * 4, f"put back last: {pids[2]}; handed out: {handed}"


def test_a_server_reads_a_study_once_a_second_and_sees_it_closed_after(hub, tmp_path):
    """The four pages of a task start read the study's row from the hub once: a second
    read within STUDY_SECONDS is answered from the row kept; once that time has passed,
    the organizer's closing shows. A name that is no study is asked of the hub each time
    and never kept."""
    import asyncio
    import time

    from simrate.web import hub_backend
    from simrate.web.hub_backend import HubBackend

    path, _ = published_study(hub, tmp_path, items=20, checks=0, per_task=4, n_checks=0,
                              annotator=None)
    backend = HubBackend(path)
    backend.open()
    asked: list[str] = []
    real_rows = backend._rows

    async def counted(sql: str, params: tuple) -> list[tuple]:
        asked.append(params[0])
        return await real_rows(sql, params)

    backend._rows = counted  # the real hub answers; the list only counts the calls

    async def reads() -> list:
        await backend.start()
        try:
            seen = [await backend.study("s"), await backend.study("s")]
            with hub.admin() as conn:
                conn.execute("UPDATE simrate.web_studies SET open = false WHERE name = 's'")
            seen.append(await backend.study("s"))
            await asyncio.sleep(hub_backend.STUDY_SECONDS + 0.05)
            seen.append(await backend.study("s"))
            seen += [await backend.study("nope"), await backend.study("nope")]
            return seen
        finally:
            await backend.stop()

    began = time.monotonic()
    seen = asyncio.run(reads())
    assert time.monotonic() - began >= hub_backend.STUDY_SECONDS
    assert [s.open for s in seen[:4]] == [True, True, True, False]
    assert seen[4:] == [None, None]
    assert asked == ["s", "s", "nope", "nope"]


async def _prepared_statements(backend) -> list[str]:
    """The statements prepared on the connection the server's pool hands out next (the
    one put back last: hub_pool.py)."""
    async with backend.pool.connection() as conn:
        cursor = await conn.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in await cursor.fetchall()]


def test_a_server_prepares_its_calls_once_on_a_direct_connection(hub, tmp_path):
    """`serve` connected to PostgreSQL itself prepares each call on the server the first
    time (hub_pool.prepare_when_direct): after a task start and two ratings, the
    connection holds the rating's statement, and a third rating runs it again."""
    import asyncio

    from simrate.web.hub_backend import HubBackend

    path, _ = published_study(hub, tmp_path, items=20, checks=0, per_task=4, n_checks=0,
                              annotator=None)
    backend = HubBackend(path, min_size=1, max_size=1)
    backend.open()

    async def run() -> tuple[list[str], int | None, int]:
        await backend.start()
        try:
            lease = await backend.lease("s", "W1", "", None)
            for slot in (1, 2):
                await backend.rate_and_show("s", lease.cookie, lease.token, slot, "3")
            prepared = await _prepared_statements(backend)
            shown = await backend.rate_and_show("s", lease.cookie, lease.token, 3, "2")
            async with backend.pool.connection() as conn:
                threshold = conn.prepare_threshold
            return prepared, threshold, shown.lease.rated
        finally:
            await backend.stop()

    prepared, threshold, rated = asyncio.run(run())
    assert threshold == 0
    assert any("simrate.web_rate_show" in statement for statement in prepared), prepared
    assert any("simrate.web_lease" in statement for statement in prepared), prepared
    assert rated == 3


def test_a_call_on_a_stale_prepared_statement_goes_again_on_a_fresh_connection(hub, tmp_path):
    """A function of the hub published again with another row (a new column) makes the
    statement prepared for it fail ("cached plan must not change result type"); so does a
    statement gone from the server. Either way the server's call goes again on a fresh
    connection and answers, and the stale connection leaves the pool."""
    import asyncio

    from simrate.web.hub_backend import HubBackend

    path, _ = published_study(hub, tmp_path, items=20, checks=0, per_task=4, n_checks=0,
                              annotator=None)
    backend = HubBackend(path, min_size=1, max_size=1)
    backend.open()
    call = "SELECT * FROM simrate.web_study(%s)"

    async def pid(conn) -> int:
        return (await (await conn.execute("SELECT pg_backend_pid()")).fetchone())[0]

    async def run() -> tuple[int, int, int, int, int]:
        await backend.start()
        try:
            before = len((await backend._rows(call, ("s",)))[0])
            async with backend.pool.connection() as conn:
                first = await pid(conn)
            with hub.admin() as admin:
                body = admin.execute("SELECT pg_get_functiondef("
                                     "'simrate.web_study(text)'::regprocedure)").fetchone()[0]
                wider = body.replace("options text)", "options text, extra integer)") \
                    .replace("s.options FROM", "s.options, 7 FROM")
                assert wider != body
                admin.execute("DROP FUNCTION simrate.web_study(text)")
                admin.execute(wider)
            after = len((await backend._rows(call, ("s",)))[0])
            async with backend.pool.connection() as conn:
                second = await pid(conn)
                # gone behind psycopg's back (psycopg sees a DEALLOCATE ALL statement)
                await conn.execute("DO $$ BEGIN EXECUTE 'DEALLOCATE ALL'; END $$")
            again = len((await backend._rows(call, ("s",)))[0])
            async with backend.pool.connection() as conn:
                third = await pid(conn)
            held = await _prepared_statements(backend)
            return before, after, again, len({first, second, third}), \
                sum("simrate.web_study" in statement for statement in held)
        finally:
            await backend.stop()

    before, after, again, connections, prepared = asyncio.run(run())
    assert (before, after, again) == (10, 11, 11)
    assert connections == 3  # each stale connection was left, a fresh one answered
    assert prepared == 1  # prepared again on the fresh connection
