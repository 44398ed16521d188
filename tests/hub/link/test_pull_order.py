"""A pull reads each table of the hub in a snapshot of its own (exchange.py), so it reads a
table after the tables whose rows refer to it: a web rating committed between two of its
reads comes with its crowd rater. Found by tests/perf/bench_web.py: a rating pulled
without its rater made that worker a person in the organizer's replica, and every later
round of the window then failed on the rater's kind.

The rating is committed at the worst moment on purpose: a transaction holds the ratings
table locked, so the pull waits at its read of the ratings, and the crowd worker and the
rating are committed while it waits.
"""

from __future__ import annotations

import subprocess
import sys
import time

from tests.hub.hubs import ROOT, make_project

WAITING_PULL = ("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query LIKE '%%FROM simrate.ratings%%seq >%%' AND pid <> pg_backend_pid()")


def test_a_crowd_rating_committed_during_a_pull_keeps_its_worker_a_crowd_worker(hub, tmp_path):
    from simrate.core.project import Project
    from simrate.hub.team.publish import publish

    path = tmp_path / "organizer.simrate"
    with make_project(path) as project:
        publish(project, hub.url())
    with hub.admin() as writer:
        writer.execute("BEGIN")
        writer.execute("LOCK TABLE simrate.ratings IN ACCESS EXCLUSIVE MODE")
        sync = subprocess.Popen([sys.executable, "-m", "simrate", "team", "sync", str(path)],
                                cwd=ROOT, env=hub.env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        with hub.admin() as watcher:
            deadline = time.monotonic() + 60
            while not watcher.execute(WAITING_PULL).fetchone()[0]:
                assert sync.poll() is None and time.monotonic() < deadline, sync.stderr.read()
                time.sleep(0.05)
        writer.execute("SELECT simrate.claim_rater('P5', NULL, 'crowd')")
        writer.execute("INSERT INTO simrate.ratings (item_id, annotator, code, note, skipped, "
                       "seconds, updated_at) VALUES ('d:2', 'P5', 8, '', false, 3, "
                       "extract(epoch FROM now()))")
        writer.execute("COMMIT")
    _out, err = sync.communicate(timeout=120)
    assert sync.returncode == 0, err
    again = hub.simrate("team", "sync", path)  # the next round takes the rater's row
    assert again.returncode == 0, again.stderr
    with Project.open(path) as project:
        rows = project.team_tables.read(
            "SELECT a.kind, i.id, r.code FROM ratings r JOIN annotators a ON "
            "a.id = r.annotator_id JOIN items i ON i.ord = r.item_ord WHERE a.name = 'P5'")
    assert rows == [("crowd", "d:2", 8)]


def test_a_pull_of_more_than_a_page_takes_every_row_and_every_rater(hub, tmp_path, monkeypatch):
    from simrate.hub.link import exchange
    from simrate.hub.team.publish import publish
    from simrate.hub.team.sync import sync_once

    path = tmp_path / "organizer.simrate"
    with make_project(path) as project:
        publish(project, hub.url())
    with hub.admin() as writer:
        for n in range(1, 8):
            writer.execute(f"SELECT simrate.claim_rater('W{n}', NULL, 'crowd')")
            writer.execute("INSERT INTO simrate.ratings (item_id, annotator, code, note, "
                           "skipped, seconds, updated_at) VALUES (%s, %s, %s, '', false, 2, "
                           "extract(epoch FROM now()))", (f"d:{n}", f"W{n}", n))
    monkeypatch.setattr(exchange, "PAGE", 2)  # the rest of each table, page by page
    from simrate.core.project import Project

    with Project.open(path) as project:
        sync_once(project)
        rows = project.team_tables.read(
            "SELECT a.name, a.kind, i.id, r.code FROM ratings r JOIN annotators a ON "
            "a.id = r.annotator_id JOIN items i ON i.ord = r.item_ord WHERE a.kind = 'crowd' "
            "ORDER BY a.name")
    assert rows == [(f"W{n}", "crowd", f"d:{n}", n) for n in range(1, 8)]
