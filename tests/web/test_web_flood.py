"""A flood of made-up workers cannot lock a study (issue 32): 2,000 worker ids from 2,000
client addresses (X-Forwarded-For, which `simrate serve` trusts from this machine, the
reverse proxy's place) press Start on a study of 100 tasks and never rate. They hold at
most the share of the pool crowdweb/flood.py allows, real workers keep and finish their tasks,
and once the made-up leases run out nothing of them is left: no rater, no task, no change.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.crowdweb.flood import (
    EVICT_AFTER,
    FIRST_RATING_MINUTES,
    UNRATED_PER_ADDRESS,
    UNRATED_SHARE,
)
from tests.web.client import item_page, rate, start
from tests.web.projects import make_project
from tests.web.servers import Server

FAKES = 2000


def addresses():
    """2,000 addresses: most IPv4 from many networks, the last 200 from one IPv6 /64."""
    for n in range(FAKES - 200):
        yield str(ipaddress.ip_address("100.64.0.0") + n * 257)
    for n in range(200):
        yield f"2001:db8:7:9::{n + 1:x}"


def test_two_thousand_made_up_workers_leave_real_workers_their_tasks_and_no_junk(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=200, checks=0)
    with Project.open(path) as project:  # 200 items x 1 rating / 2 a task: 100 tasks
        study, _ = web.set_study(project, "s", per_task=2, per_item=1, lease_minutes=60)
        changes_before = project.team_tables.read("SELECT COUNT(*) FROM changes")[0][0]
    with Server(path) as server:
        real = {f"R{n}": httpx.Client(base_url=server.url, timeout=30) for n in range(5)}
        for worker, client in real.items():  # real workers, there before the flood
            assert start(client, "s", worker).status_code == 303
            page = item_page(client, "s")
            assert rate(client, "s", page.text, "2").status_code == 200

        local = threading.local()

        def fake(job: tuple[int, str]) -> int:
            number, address = job
            worker = f"F{number}"
            form = {"worker": worker, "session": "", "study_id": "",
                    "start_token": study.start_token(worker)}
            if not hasattr(local, "client"):  # one connection per thread, no cookies kept
                local.client = httpx.Client(base_url=server.url, timeout=30)
            local.client.cookies.clear()
            return local.client.post("/study/s/start", data=form,
                                     headers={"x-forwarded-for": address}).status_code

        began = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(fake, enumerate(addresses())))
        flood_seconds = time.monotonic() - began
        # the real workers finish their tasks during the flood's hold
        for client in real.values():
            page = item_page(client, "s")
            assert rate(client, "s", page.text, "3").status_code == 200
            assert 'id="completion-code"' in item_page(client, "s").text
        # a new real worker meets the held share: refused for a moment with a way back, or
        # (the flood's first leases older than EVICT_AFTER) given the oldest made-up task
        newcomer = httpx.Client(base_url=server.url, timeout=30)
        answer = start(newcomer, "s", "R7")
        assert answer.status_code in (303, 503)
        assert answer.status_code == 303 or 'id="back"' in answer.text
        assert server.stop()[0] == 0
    cap = int(100 * UNRATED_SHARE)
    assert statuses.count(303) <= cap  # the made-up workers hold at most their share
    assert set(statuses) <= {303, 429, 503}
    with Project.open(path) as project:
        v6 = project.team_tables.read("SELECT COUNT(*) FROM web_tasks WHERE address LIKE "
                                      "'2001:db8:7:9:%'")[0][0]
        assert v6 <= UNRATED_PER_ADDRESS  # one /64 is one address
        status = web.study_status(project)["s"]
        assert status["tasks"]["left"] >= 100 - 5 - cap  # tasks left for real workers
        # a minute on, the newcomer's start gives up the oldest made-up task for theirs
        later = time.time() + EVICT_AFTER + 1
        mine = web.lease(project, "s", "R9", now=later)
        assert mine.size == 2
        # once the short leases ran out, nothing of the made-up workers is left
        web.lease(project, "s", "R8", now=later + FIRST_RATING_MINUTES * 60)
        fakes = project.team_tables.read("SELECT COUNT(*) FROM web_tasks WHERE worker LIKE "
                                         "'F%'")[0][0]
        raters = {n for (n,) in project.team_tables.read(
            "SELECT name FROM annotators WHERE kind = 'crowd'")}
        logged = project.team_tables.read(
            "SELECT COUNT(*) FROM changes WHERE annotator LIKE 'F%' OR who LIKE 'F%'")[0][0]
        changes = project.team_tables.read("SELECT COUNT(*) FROM changes")[0][0]
    assert fakes == 0 and logged == 0
    assert raters == {f"R{n}" for n in range(5)}  # R7, R8, R9 never rated
    # the real workers' own changes only: a rater, a lease and two ratings each
    assert changes - changes_before == 5 * 4
    print(f"flood: {FAKES} starts in {flood_seconds:.1f} s, {statuses.count(303)} leased, "
          f"{statuses.count(503)} refused (held), {statuses.count(429)} refused (address)")
