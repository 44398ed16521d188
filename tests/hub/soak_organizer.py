"""The organizer's side of the soak (tests/hub/soak.py): beside the annotator's window, the
organizer's replica is written at once by a CLI loop (`adjudicate`, `annotators --exclude`
and `--include` of the organizer's own rater bob), by `simrate serve` (the web page, rating through HTTP as crowd workers,
straight to the hub) and by a `team sync` loop, while kill -9 strikes the CLI writer, the
server and the sync at random moments. Every change a process acknowledged (exit 0, an
HTTP 200 with the next page) must end on the hub and in the organizer's replica: adjudications and
exclusions as last acknowledged, every acknowledged web rating.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.hub.hubs import ROOT
from tests.web.client import form_of, start
from tests.web.servers import Server

#: Items the CLI loop adjudicates (past the ones the window rates first).
VERDICT_ITEMS = [f"d:{i}" for i in range(1401, 1411)]


@dataclass
class OrganizerSide:
    """What the organizer's writers acknowledged, and what was found missing."""

    verdicts: dict[str, float | None] = field(default_factory=dict)  # None: last one killed
    excluded: bool | None = False  # None: the last change was killed
    changes: int = 0  # acknowledged adjudications and exclusions
    web: dict[str, int] = field(default_factory=dict)  # worker -> acknowledged ratings
    kills: int = 0
    errors: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def cli_writer(path: Path, env: dict, side: OrganizerSide, stop: threading.Event,
               rng: random.Random) -> None:
    """Adjudicate and exclude in a loop, kill -9 now and then; record what was acknowledged."""
    while not stop.is_set():
        if rng.random() < 0.7:
            item, score = rng.choice(VERDICT_ITEMS), rng.randint(0, 20) * 0.25
            args, key = ["adjudicate", path, item, f"{score:g}", "--by", "org"], item
        else:
            score = not side.excluded if side.excluded is not None else True
            args = ["annotators", path, "--exclude" if score else "--include", "bob",
                    "--by", "org"]
            key = None
        process = subprocess.Popen([sys.executable, "-m", "simrate", *map(str, args)],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        killed = rng.random() < 0.1
        if killed:
            time.sleep(rng.uniform(0.05, 0.6))
            process.send_signal(signal.SIGKILL)
            side.kills += 1
        _out, err = process.communicate()
        done = process.returncode == 0
        if not done and not killed:
            side.errors.append(f"{args[0]}: {err.strip()}")
        value = score if done else None  # a killed write may or may not have committed
        if key is None:
            side.excluded = value
        else:
            side.verdicts[key] = value
        side.changes += done


def web_writer(path: Path, side: OrganizerSide, stop: threading.Event,
               rng: random.Random) -> None:
    """Crowd workers rating on `simrate serve` through HTTP; the server is killed -9 and
    started again now and then."""
    # every simulated worker comes from this machine's one address: no per-address limit
    busy = ("--starts-per-ip", 100_000)
    server, worker, number = Server(path, args=busy), None, 0
    client = None
    next_kill = time.monotonic() + rng.uniform(8, 16)
    try:
        while not stop.is_set():
            if worker is None:
                number += 1
                worker, client = f"W{number}", httpx.Client(base_url=server.url, timeout=10)
                started = start(client, "s", worker).status_code
                if started == 503:  # unrated tasks of killed servers' workers at the cap
                    worker = None  # (issue 32's flood limit): come back as a new worker
                    time.sleep(1.0)
                    continue
                if started == 410:  # every item has its ratings: the study is done
                    return
                if started != 303:
                    side.errors.append(f"web: {worker} could not start ({started})")
                    return
                side.web[worker] = 0
            try:
                page = client.get("/study/s/task", follow_redirects=True)
                form = form_of(page.text)
                if "slot" not in form:  # the task is done: the next worker
                    worker = None
                    continue
                answer = client.post("/study/s/rate", follow_redirects=False,
                                     data={**form, "score": str(rng.randint(0, 5))})
                if answer.status_code == 200:
                    side.web[worker] += 1
            except httpx.HTTPError:
                time.sleep(0.1)  # the server is being started again
            if time.monotonic() > next_kill:
                server.process.send_signal(signal.SIGKILL)
                server.process.wait()
                side.kills += 1
                server = Server(path, port=server.port, args=busy)
                next_kill = time.monotonic() + rng.uniform(8, 16)
    except (httpx.HTTPError, AssertionError) as exc:
        side.errors.append(f"web: {exc}")
    finally:
        server.process.kill()
        server.process.wait()


def check_organizer(hub, organizer_path: Path, side: OrganizerSide) -> None:
    """Every acknowledged change is on the hub and in the organizer's replica."""
    from simrate.core.project import Project

    with hub.admin() as admin:
        verdicts = dict(admin.execute("SELECT item_id, code FROM simrate.adjudications"))
        excluded = admin.execute("SELECT excluded FROM simrate.annotators WHERE name = 'bob'"
                                 ).fetchone() or (False,)
        web = dict(admin.execute("SELECT annotator, count(*) FROM simrate.ratings "
                                 "WHERE annotator LIKE 'W%' GROUP BY annotator"))
    with Project.open(organizer_path) as project:
        for item, score in side.verdicts.items():
            if score is None:
                continue
            code = project.scale.to_code(score)
            if verdicts.get(item) != code or project.verdict(item).code != code:
                side.missing.append(f"verdict {item}")
        if side.excluded is not None and (
                excluded != (side.excluded,)
                or ("bob" in project.excluded_annotators()) != side.excluded):
            side.missing.append("exclusion of bob")
        mine = project.ratings()
        for worker, count in side.web.items():
            here = int((mine["annotator"] == worker).sum())
            if web.get(worker, 0) < count or here != web.get(worker, 0):
                side.missing.append(f"web ratings of {worker}")
