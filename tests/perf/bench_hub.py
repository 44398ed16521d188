"""Benchmark: the team hub on a throwaway PostgreSQL server on this machine (loopback).

Run: python tests/perf/bench_hub.py [N_ITEMS] [ANNOTATORS] [SECONDS]
     (defaults 200,000 items; 50 simulated annotators for 60 s)
Needs PostgreSQL's server binaries (pg_config --bindir) and, as root, the `postgres` user.
The server runs with its default durability (fsync on).

1. latency: an annotator process rates one item every 0.5 s in a window-like HubSync; the
   organizer (this process, HubSync listening for NOTIFY) notes when its live alpha has
   taken the rating. Reference: the local commit itself (Project.rate).
2. publish N items; reference: a bare COPY of the same rows into a plain table.
3. join N items as an annotator; reference: the same items imported from a local frame.
4. load: ANNOTATORS simulated annotators (threads in 5 processes, each its own replica and
   connection) rate at 2 ratings/s each and sync after every rating; then every pending
   change is flushed and the hub's rows are counted against what was made. The server's
   CPU time is read from /proc (postmaster and its children).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.hub.hubs import Hub  # noqa: E402
from tests.perf.hub_setup import (  # noqa: E402
    add_annotators,
    items_frame,
    server_cpu,
    throwaway_cluster,
)

LOAD_WORKER = r"""
import json, random, sys, threading, time
sys.path.insert(0, {root!r})

from simrate.core.project import Project
from simrate.hub.team.join import join
from simrate.hub.link.connection import HubError
from simrate.hub.team.sync import session_for, sync_round
url_of = {urls!r}
folder, seconds, first = {folder!r}, {seconds}, {first}
made, failed = {{}}, {{}}
joined = {{login: join(url, f"{{folder}}/{{login}}.simrate")[0] for login, url in url_of.items()}}
start = time.monotonic() + 1.0
def annotator(login, project):
    session = session_for(project)
    name = project.meta("hub_name")
    rng = random.Random(login)
    made[login] = failed[login] = 0
    next_at = start + rng.random() * 0.5
    for i in range(first, first + 2 * seconds):
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at += 0.5
        project.rate(f"d:{{i}}", name, rng.randrange(21) * 0.25)
        made[login] += 1
        try:
            sync_round(project, session)
        except HubError:
            failed[login] += 1
    while sync_round(project, session).pending:
        time.sleep(0.1)
    session.close()
threads = [threading.Thread(target=annotator, args=(l, p)) for l, p in joined.items()]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps({{"made": sum(made.values()), "failed_rounds": sum(failed.values())}}))
"""

RATER = r"""
import sys, time
sys.path.insert(0, {root!r})
from PySide6.QtCore import QCoreApplication, QTimer
from simrate.core.project import Project
from simrate.gui.shell.hub_sync import HubSync
app = QCoreApplication([])
project = Project.open({path!r})
sync = HubSync(project)
name = project.meta("hub_name")
state = {{"i": 0}}
def rate():
    state["i"] += 1
    if state["i"] > {count}:
        sync.stop(); app.quit(); return
    project.rate(f"d:{{state['i']}}", name, (state["i"] * 3 % 21) * 0.25)
    print(f"d:{{state['i']}} {{time.time()!r}}", flush=True)
QTimer.singleShot(1500, lambda: QTimer(app, interval=500, timeout=rate).start())
app.exec()
"""


def make_project(path: Path, n: int):
    from simrate.core.project import Project

    project = Project.create(path, scale="sts", title="bench")
    project.import_items(items_frame(n), source="bench")
    return project


def latency(hub: Hub, folder: Path, count: int = 40) -> None:
    from PySide6.QtCore import QCoreApplication

    from simrate.gui.shell.hub_sync import HubSync
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish

    app = QCoreApplication.instance() or QCoreApplication([])
    organizer = make_project(folder / "lat-org.simrate", 200)
    publish(organizer, hub.url())
    for name in ("Ann", "Ben"):
        add_person(organizer, name, "annotator", f"pw-{name}", login=f"lat_{name.lower()}")
        hub.remember(f"lat_{name.lower()}", f"pw-{name}")
    from simrate.hub.team.join import join

    with join(hub.url("lat_ben"), folder / "lat-ben.simrate")[0] as ben:
        for i in range(1, 201):
            ben.rate(f"d:{i}", "Ben", (i * 3 % 21) * 0.25)
        from simrate.hub.team.sync import sync_once
        sync_once(ben)
    join(hub.url("lat_ann"), folder / "lat-ann.simrate")[0].close()
    arrived: dict[str, float] = {}
    organizer.live.alpha()

    from simrate.core.base.events import RatingChanged

    def on_change(event) -> None:
        if isinstance(event, RatingChanged) and event.annotator == "Ann":
            organizer.live.alpha()  # the figure the dashboard shows
            arrived[event.item_id] = time.time()

    sync = HubSync(organizer)
    organizer.subscribe(on_change)
    script = RATER.format(root=str(ROOT), path=str(folder / "lat-ann.simrate"), count=count)
    rater = subprocess.Popen([sys.executable, "-c", script], env=hub.env(),
                             stdout=subprocess.PIPE, text=True)
    while rater.poll() is None or len(arrived) < count:
        app.processEvents()
        time.sleep(0.005)
        if rater.poll() is not None and time.time() > max(arrived.values(), default=0) + 5:
            break
    committed = dict(line.split() for line in rater.stdout.read().splitlines())
    sync.stop()
    gaps = sorted(arrived[i] - float(t) for i, t in committed.items() if i in arrived)
    p95 = gaps[int(0.95 * (len(gaps) - 1))]
    local = []
    for i in range(100, 140):
        started = time.perf_counter()
        organizer.rate(f"d:{i}", "org", 2.0)
        local.append(time.perf_counter() - started)
    print(f"rating on an annotator's replica -> organizer's live alpha ({len(gaps)} of {count}"
          f" arrived): median {statistics.median(gaps) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
          f" (reference, local commit: median {statistics.median(local) * 1000:.2f} ms)")
    organizer.close()


def publish_and_join(hub: Hub, folder: Path, n: int) -> None:
    import psycopg

    from simrate.hub.team.join import join
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish

    project = make_project(folder / "big.simrate", n)
    rows = project.team_tables.read("SELECT id, left, right, dataset, genre FROM items")
    with psycopg.connect(hub.url(), autocommit=True) as conn:
        conn.execute("CREATE TABLE bare (id text, l text, r text, d text, g text)")
        started = time.perf_counter()
        with conn.cursor().copy("COPY bare FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        bare = time.perf_counter() - started
        conn.execute("DROP TABLE bare")
    started = time.perf_counter()
    publish(project, hub.url())
    took = time.perf_counter() - started
    print(f"publish {n:,} items: {took:.1f} s (reference, bare COPY of the rows: {bare:.1f} s;"
          f" ratio {took / bare:.1f})")
    add_person(project, "Joiner", "annotator", "pw-j", login="big_joiner")
    hub.remember("big_joiner", "pw-j")
    project.close()
    started = time.perf_counter()
    join(hub.url("big_joiner"), folder / "joined.simrate")[0].close()
    took = time.perf_counter() - started
    started = time.perf_counter()
    make_project(folder / "local.simrate", n).close()
    local = time.perf_counter() - started
    print(f"join {n:,} items: {took:.1f} s (reference, the same items imported from a local "
          f"frame: {local:.1f} s; ratio {took / local:.1f})")


def load(hub: Hub, folder: Path, annotators: int, seconds: int) -> None:
    from simrate.hub.team.publish import publish

    project = make_project(folder / "load.simrate", 2 * seconds + 10)
    publish(project, hub.url())
    urls: list[dict[str, str]] = [{} for _ in range(5)]
    for k, (_name, login) in enumerate(add_annotators(hub, project, annotators, "load")):
        urls[k % 5][login] = hub.url(login)
    project.close()
    cpu_before = server_cpu(hub.cluster)
    started = time.perf_counter()
    workers = [subprocess.Popen([sys.executable, "-c", LOAD_WORKER.format(
        root=str(ROOT), urls=part, folder=str(folder), seconds=seconds, first=1)],
        env=hub.env(), stdout=subprocess.PIPE, text=True) for part in urls if part]
    results = [json.loads(w.communicate()[0].strip().splitlines()[-1]) for w in workers]
    wall = time.perf_counter() - started
    time.sleep(1.0)  # backends of closed connections exit and are reaped
    cpu = server_cpu(hub.cluster) - cpu_before
    made = sum(r["made"] for r in results)
    with hub.admin() as admin:
        landed = admin.execute("SELECT count(*) FROM simrate.ratings").fetchone()[0]
    print(f"{annotators} annotators x 2 ratings/s x {seconds} s: made {made:,}, on the hub "
          f"{landed:,}, lost {made - landed}; failed rounds {sum(r['failed_rounds'] for r in results)};"
          f" wall {wall:.0f} s; hub CPU {cpu:.1f} s ({100 * cpu / wall:.0f}% of one core)")


def main() -> None:
    """Start a server, run the four measurements, remove the server."""
    import stages  # tests/perf/stages.py, beside this script

    opts = stages.positionals(__doc__, ("items", int, 200_000, "items to publish"),
                              ("annotators", int, 50, "annotators rating at once"),
                              ("seconds", int, 60, "how long they rate"))
    n, annotators, seconds = opts.items, opts.annotators, opts.seconds
    with throwaway_cluster("bench_hub") as cluster:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            os.chmod(folder, 0o755)
            for step, run in (("latency", lambda h: latency(h, folder)),
                              ("big", lambda h: publish_and_join(h, folder, n)),
                              ("load", lambda h: load(h, folder, annotators, seconds))):
                hub = Hub(cluster, f"bench_{step}", folder)
                os.environ["PGPASSFILE"] = str(hub.passfile)
                run(hub)


if __name__ == "__main__":
    main()
