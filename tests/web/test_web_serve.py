"""`simrate serve` as a real process: ready on GET /, a clean SIGTERM that loses no
acknowledged rating, 50 workers leasing at once from three server processes on one file."""

from __future__ import annotations

import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from simrate.core.project import Project
from simrate.core.team import web_study as web
from tests.web.client import form_of, start
from tests.web.projects import make_project
from tests.web.servers import Server


def test_sigterm_stops_cleanly_and_loses_no_acknowledged_rating(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=300, checks=0)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=300)
    acknowledged: list[str] = []
    with Server(path) as server:
        client = httpx.Client(base_url=server.url, timeout=10)
        assert start(client, "s", "W1").status_code == 303
        stop = threading.Event()

        def rate_on():
            try:
                while not stop.is_set():
                    page = client.get("/study/s/task", follow_redirects=True)
                    form = form_of(page.text)
                    answer = client.post("/study/s/rate", data={**form, "score": "3"})
                    if answer.status_code == 200:
                        acknowledged.append(form["slot"])
            except httpx.HTTPError:
                pass  # the server is gone

        worker = threading.Thread(target=rate_on)
        worker.start()
        while len(acknowledged) < 20:
            time.sleep(0.01)
        server.process.send_signal(signal.SIGTERM)
        status, out, err = server.stop()
        stop.set()
        worker.join(30)
    assert status == 0, err
    assert "Traceback" not in err
    with Project.open(path) as project:
        rated = project.team_tables.read("SELECT slot FROM web_slots WHERE rated_at IS NOT NULL")
        ratings = project.ratings().query("annotator == 'W1'")
    assert {str(s) for (s,) in rated} >= set(acknowledged)
    assert len(ratings) == len(rated) >= len(acknowledged) >= 20


def test_fifty_workers_at_once_never_get_a_slot_twice_nor_overfill_an_item(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=200, checks=3)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=2, checks=1, per_item=1)
    with Server(path) as one, Server(path) as two, Server(path) as three:
        barrier = threading.Barrier(50)

        def worker(number: int) -> tuple[int, str]:
            """Take tasks one after another until none is left; the tasks done."""
            base = (one, two, three)[number % 3].url
            done = 0
            with httpx.Client(base_url=base, timeout=60) as client:
                barrier.wait()
                while True:  # one task per worker id: a new id for each further task
                    landing = client.get(f"/study/s?worker=W{number}-{done}")
                    answer = client.post("/study/s/start", data=form_of(landing.text))
                    if answer.status_code == 410:
                        return done, "none left"
                    assert answer.status_code == 303, answer.text
                    while True:
                        page = client.get("/study/s/task", follow_redirects=True)
                        assert page.status_code == 200, page.text
                        if 'id="completion-code"' in page.text:
                            done += 1
                            break
                        rated = client.post("/study/s/rate",
                                            data={**form_of(page.text), "score": "2"})
                        assert rated.status_code == 200, rated.text

        with ThreadPoolExecutor(50) as pool:
            results = list(pool.map(worker, range(50)))
        assert [server.stop()[0] for server in (one, two, three)] == [0, 0, 0]
    assert sum(done for done, _ in results) == 100  # 200 items x 1 rating / 2 per task
    assert {outcome for _, outcome in results} == {"none left"}
    with Project.open(path) as project:
        slots = project.team_tables.read(
            "SELECT t.worker, s.item_ord, s.is_check, s.rated_at FROM web_slots s JOIN "
            "web_tasks t ON t.study = s.study AND t.task = s.task")
        ratings = project.ratings().query("annotator != 'alice'")
        status = web.study_status(project)["s"]
    pairs = [(w, o) for w, o, _c, _r in slots]
    assert len(pairs) == len(set(pairs)) == 300  # no worker got an item twice
    per_item: dict[int, int] = {}
    for _w, ord_, is_check, rated_at in slots:
        assert rated_at is not None
        if not is_check:
            per_item[ord_] = per_item.get(ord_, 0) + 1
    assert len(per_item) == 200 and set(per_item.values()) == {1}  # none overfilled
    assert len(ratings) == 300
    assert status["tasks"] == {"done": 100, "leased": 0, "expired": 0, "left": 0}
