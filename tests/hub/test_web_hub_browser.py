"""The page served through a real hub, in a real browser (Debian's chromium, Selenium):
two workers rate a whole task with the keyboard, one of them reloading midway; the
organizer's replica, woken by the hub's NOTIFY, holds every rating with its seconds.

In CI a missing chromium, chromium-driver or PostgreSQL fails the test instead of skipping.
"""

from __future__ import annotations

import threading

from simrate.core.project import Project
from simrate.hub.team import web_hub as web
from simrate.hub.team.sync import session_for, sync_round
from tests.hub.webhub import published_study
from tests.web.servers import Server, free_port
from tests.web.test_web_browser import (  # noqa: F401 - the fixture
    HOSTILE,
    OPTIONS,
    STORED,
    TYPED,
    browser_factory,
    stored_in_slot_order,
    wait_for,
    worker_journey,
)


def test_two_workers_rate_by_keyboard_through_the_hub_and_the_organizer_gets_them_live(
        hub, tmp_path, browser_factory):  # noqa: F811 - the fixture
    path, _ = published_study(hub, tmp_path, items=8, checks=2, per_task=3, n_checks=1,
                              annotator=None, texts=(HOSTILE, "b & c"))
    with Project.open(path) as project:
        web.set_study(project, "s", options=OPTIONS)
    organizer = Project.open(path)
    session = session_for(organizer)
    arrived: dict[str, int] = {}
    stop = threading.Event()
    try:
        sync_round(organizer, session)

        def follow():  # the organizer's window: a round whenever the hub announces one
            while not stop.is_set():
                if session.wait(0.5):
                    sync_round(organizer, session)
                    for worker in ("P1", "P2"):
                        arrived[worker] = len(organizer.ratings().query(
                            f"annotator == '{worker}'"))

        with Server(path, free_port()) as server:
            typed: dict[str, list[str]] = {"P1": [], "P2": []}
            # the follower owns the organizer's project from here on (one thread at a time)
            follower = threading.Thread(target=follow)
            follower.start()
            for worker, (width, height) in (("P1", (1366, 768)), ("P2", (360, 640))):
                typed[worker] = worker_journey(browser_factory(width, height), server.url,
                                               worker)
            wait_for(lambda: arrived.get("P1") == 4 and arrived.get("P2") == 4, 15)
            stop.set()
            follower.join(10)
            assert server.stop()[0] == 0
    finally:
        stop.set()
        session.close()
        organizer.close()
    assert typed == {"P1": TYPED, "P2": TYPED}
    with Project.open(path) as project:
        from simrate.hub.team.web_hub import mirror_hub_studies

        pull = session_for(project)
        try:
            sync_round(project, pull)  # the corrections too, by the usual pull
        finally:
            pull.close()
        mirror_hub_studies(project)
        for worker in ("P1", "P2"):
            assert stored_in_slot_order(project, worker) == STORED
        assert project.roster.kinds()["P1"] == "crowd"
