"""Stamps without a lock: writers never wait for each other, and pulls never skip a row.

Every write on the hub is stamped with its transaction's id and a draw of one sequence
(hub/schema/tables.py, `next_stamp`), and a pull reads only below `pull_cap()`: the first
stamp a transaction still running could hold. These tests hold transactions open on real
connections to a real PostgreSQL and pull as a replica does (exchange.pull), by watermark.
"""

from __future__ import annotations

import random
import threading
import time

import psycopg
import pytest

from simrate.hub.link.exchange import pull
from tests.hub.hubs import team

UPSERT = ("INSERT INTO simrate.ratings AS t (item_id, annotator, code, updated_at) "
          "VALUES (%s, %s, %s, %s) ON CONFLICT (item_id, annotator) DO UPDATE "
          "SET code = EXCLUDED.code, updated_at = EXCLUDED.updated_at")


@pytest.fixture
def published(hub, tmp_path):
    organizer, _logins = team(hub, tmp_path, {"Alice": "annotator"})
    yield hub
    organizer.close()


def _mark(conn) -> int:
    return conn.execute("SELECT COALESCE(max(seq), 0) FROM simrate.ratings").fetchone()[0]


def test_a_second_writer_never_waits_for_an_open_transaction(published):
    with published.admin() as first, published.admin() as second:
        with first.transaction(force_rollback=True):
            first.execute(UPSERT, ("d:1", "Slow", 4, time.time()))
            with second.transaction(force_rollback=True):
                second.execute("SET LOCAL lock_timeout = '200ms'")
                second.execute(UPSERT, ("d:2", "Quick", 8, time.time()))  # no wait


def test_a_pull_stops_below_a_transaction_still_open_and_takes_its_row_after(published):
    with published.admin() as early, published.admin() as late, published.admin() as puller:
        marks = {"ratings": _mark(puller)}
        early.execute("BEGIN")
        early.execute(UPSERT, ("d:1", "Early", 4, time.time()))  # the older transaction
        late.execute(UPSERT, ("d:2", "Late", 8, time.time()))  # commits first
        rows, after = pull(puller, ("ratings",), marks)
        # the later commit is visible, but it lies above the open transaction's stamps
        assert rows["ratings"] == [] and after == marks
        uncapped, passed = pull(puller, ("ratings",), marks, capped=False)
        assert [r[1] for r in uncapped["ratings"]] == ["Late"]  # what a lock-free pull
        early.execute("COMMIT")                                 # without the cap would do
        assert pull(puller, ("ratings",), passed, capped=False)[0]["ratings"] == []
        rows, after = pull(puller, ("ratings",), after)
        assert [r[1] for r in rows["ratings"]] == ["Early", "Late"]
        assert after["ratings"] == rows["ratings"][-1][-1]


def test_a_transactions_rows_keep_its_order_and_stamps_stay_unique(published):
    with published.admin() as conn:
        with conn.transaction():
            for k in range(1, 9):
                conn.execute(UPSERT, (f"d:{k}", "Ordered", k, time.time()))
        seqs = [s for (s,) in conn.execute(
            "SELECT seq FROM simrate.ratings WHERE annotator = 'Ordered' ORDER BY item_id")]
        assert len(set(seqs)) == 8 and seqs == sorted(seqs)  # written d:1 first
        logged = conn.execute("SELECT count(DISTINCT seq), count(*) FROM simrate.changes "
                              "WHERE annotator = 'Ordered'").fetchone()
        assert logged == (8, 8)


def _writer(url: str, name: str, seed: int, stop: threading.Event, errors: list) -> None:
    """Transactions of one to three writes, some slow to commit, until `stop`."""
    rng = random.Random(seed)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            while not stop.is_set():
                with conn.transaction():
                    for _ in range(rng.randint(1, 3)):
                        conn.execute(UPSERT, (f"d:{rng.randint(1, 12)}", name,
                                              rng.randint(0, 20), time.time()))
                        time.sleep(rng.choice((0, 0, 0.001, 0.02)))
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(repr(exc))


def test_concurrent_writers_and_a_puller_by_watermark_lose_nothing(published):
    """Six writers race while a replica pulls by watermark; what it pulled, newest row per
    key, is exactly what the hub holds in the end."""
    url = published.cluster.admin_dsn(published.name)
    stop, errors = threading.Event(), []
    threads = [threading.Thread(target=_writer, args=(url, f"W{i}", i, stop, errors))
               for i in range(6)]
    seen: dict[tuple, tuple] = {}
    with published.admin() as puller:
        marks = {"ratings": _mark(puller)}
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            rows, marks = pull(puller, ("ratings",), marks)
            for row in rows["ratings"]:
                seen[(row[0], row[1])] = (row[2], row[-1])
        stop.set()
        for thread in threads:
            thread.join()
        rows, marks = pull(puller, ("ratings",), marks)
        for row in rows["ratings"]:
            seen[(row[0], row[1])] = (row[2], row[-1])
        held = {(i, a): (c, s) for i, a, c, s in puller.execute(
            "SELECT item_id, annotator, code, seq FROM simrate.ratings "
            "WHERE annotator LIKE 'W%'")}
    assert errors == []
    assert len(held) > 20
    assert seen == held
