"""The page served through a real hub, in a real browser (Debian's chromium, Selenium):
two workers rate a whole task with the keyboard, one of them reloading midway; the
organizer's replica, woken by the hub's NOTIFY, holds every rating with its seconds.

In CI a missing chromium, chromium-driver or PostgreSQL fails the test instead of skipping.
"""

from __future__ import annotations

import threading

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.hub.sync import session_for, sync_round
from tests.hub.webhub import published_study
from tests.web.servers import Server, free_port
from tests.web.test_web_browser import (  # noqa: F401 - the fixture
    browser_factory,
    progress,
    rate_by_keys,
    wait_for,
)


def test_two_workers_rate_by_keyboard_through_the_hub_and_the_organizer_gets_them_live(
        hub, tmp_path, browser_factory):  # noqa: F811 - the fixture
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path, _ = published_study(hub, tmp_path, items=8, checks=2, per_task=3, n_checks=1,
                              annotator=None)
    with Project.open(path) as project:
        code = web.get_study(project, "s").code
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
            for worker, width in (("P1", 1100), ("P2", 360)):
                driver = browser_factory(width, 800)
                driver.get(f"{server.url}/study/s?PROLIFIC_PID={worker}&STUDY_ID=x"
                           "&SESSION_ID=y")
                start = driver.find_element(By.ID, "start")
                assert driver.switch_to.active_element == start
                start.send_keys(Keys.ENTER)
                wait_for(lambda d=driver: progress(d) == "Pair 1 of 4")
                assert driver.title != "owned"
                typed[worker].append(rate_by_keys(driver, "3+"))
                typed[worker].append(rate_by_keys(driver, "2--"))
                driver.refresh()  # resumes at the first unrated item
                wait_for(lambda d=driver: progress(d) == "Pair 3 of 4")
                typed[worker].append(rate_by_keys(driver, "+"))
                typed[worker].append(rate_by_keys(driver, "9-4"))
                assert driver.find_element(By.ID, "completion-code").text == code
                driver.refresh()
                assert driver.find_element(By.ID, "completion-code").text == code
            wait_for(lambda: arrived.get("P1") == 4 and arrived.get("P2") == 4, 15)
            stop.set()
            follower.join(10)
            assert server.stop()[0] == 0
    finally:
        stop.set()
        session.close()
        organizer.close()
    assert typed == {"P1": ["3.25", "1.5", "0", "4"], "P2": ["3.25", "1.5", "0", "4"]}
    with Project.open(path) as project:
        from simrate.core.team.hub.web_hub import mirror_hub_studies

        mirror_hub_studies(project)
        ratings = project.ratings()
        for worker in ("P1", "P2"):
            mine = ratings[ratings["annotator"] == worker]
            order = project.team_tables.read(
                "SELECT i.id FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
                "t.task = s.task JOIN items i ON i.ord = s.item_ord WHERE t.worker = ? "
                "ORDER BY s.slot", (worker,))
            scores = mine.set_index("item_id").loc[[i for (i,) in order], "score"].tolist()
            assert scores == [3.25, 1.5, 0.0, 4.0]
            assert mine["seconds"].notna().all()
        assert project.roster.kinds()["P1"] == "crowd"
