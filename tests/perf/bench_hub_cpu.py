"""Benchmark: the hub's CPU per rating, one PostgreSQL backend at a time, beside the plain
file in the same run.

Run: python tests/perf/bench_hub_cpu.py [--ratings 600] [--repeats 3] [--through-pooler]
Needs PostgreSQL's server binaries (pg_config --bindir) and, as root, the `postgres` user.

Three ways one rating is stored, each timed as CPU (user and system, from /proc or
`time.process_time`), so that other load on the machine distorts it less than wall time:
- **sync round**: one call of `simrate.sync_round` with one rating (a pair's first), as
  `simrate serve` sends it for an annotator's window (one statement, one transaction); the
  CPU of the hub's backend that ran it, per round;
- **sync edit**: the same with a new score for a pair rated before (the later-edit rule's
  whole path: the upsert meets the row);
- **web rating**: one call of `simrate.web_rate_show` (the rating and the next page), as
  `simrate serve` sends it for a crowd worker; the hub backend's CPU per rating;
- in both, serve's announcement of the writes after their commits (`announce_writes`) once
  every ten ratings: more often than serve makes it under load (once per 0.1 s);
- **plain file**: the same web rating on a plain project file (`rate_slot` and the next
  slot, in this process): the whole process's CPU per rating, the reference.

The calls go as `simrate serve` sends them on a connection that reaches PostgreSQL itself:
each statement prepared on the server at its first call (app/web/hub_pool.py); with
`--through-pooler`, as serve sends them through PgBouncer: nothing prepared, the round one
plain query. The hub runs with its default durability (fsync on) on loopback; each way
runs `--repeats` times and the median is reported, with each hub figure's ratio to the
plain file's.
The hub's figures are the hub backend's own CPU; the services' processes and the client
are not in them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TICK = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    """CPU seconds of one server process (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def sync_rounds(cluster, folder: Path, n: int, edits: bool = False,
                prepare: int | None = 0) -> float:
    """ms of hub backend CPU per sync round carrying one rating: a pair's first rating,
    or (`edits`) a new score for a pair rated before. `prepare`: psycopg's
    prepare_threshold, 0 as serve on a direct connection, None as through a pooler."""
    import psycopg

    from simrate.core.project import Project
    from simrate.hub.team.web_hub import web_url
    from tests.hub.hubs import Hub
    from tests.hub.servicehub import service_team

    hub = Hub(cluster, "cpuedit" if edits else "cpu", folder)
    os.environ["PGPASSFILE"] = str(hub.passfile)
    path, _logins, tokens = service_team(hub, folder, {"Ann": "annotator"},
                                         n_items=50 if edits else n + 40)
    with Project.open(path) as project:
        url = web_url(project)
    with psycopg.connect(cluster.admin_dsn(hub.name)) as admin:
        items = [r[0] for r in admin.execute("SELECT id FROM simrate.items ORDER BY id")]
    replica, marks = str(uuid.uuid4()), {"settings": 0, "items": 0, "ratings": 0}
    with psycopg.connect(url, autocommit=True, prepare_threshold=prepare) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        cursor = psycopg.ClientCursor(conn) if prepare is None else conn.cursor()

        def one(k: int) -> None:
            rating = [{"item_id": items[k % len(items)], "code": k % 20, "note": "",
                       "skipped": False, "seconds": 1.0, "updated_at": time.time()}]
            call = "SELECT simrate.sync_round(%s, %s, %s, %s::jsonb, %s::jsonb)"
            params = (tokens["Ann"], replica, k + 1, json.dumps(rating), json.dumps(marks))
            if prepare is None:  # serve's one plain query through a pooler
                cursor.execute(cursor.mogrify(call, params))
            else:
                cursor.execute(call, params)
            answer = cursor.fetchone()[0]
            if k % 10 == 9:  # serve's announcement after the commits (one per ten here)
                cursor.execute("SELECT simrate.announce_writes('{Ann}')")
            for table in marks:
                if answer[table]:
                    marks[table] = answer[table][-1][-1]

        for k in range(30):  # warm: the session's plans, the first pulls
            one(k)
        before = backend_cpu(pid)
        for k in range(30, 30 + n):
            one(k)
        return 1000 * (backend_cpu(pid) - before) / n


def web_ratings(cluster, folder: Path, n: int, prepare: int | None = 0) -> float:
    """ms of hub backend CPU per web rating (web_rate_show); `prepare` as above."""
    import psycopg

    from simrate.core.project import Project
    from simrate.hub.team.web_hub import web_url
    from tests.hub.hubs import Hub
    from tests.hub.webhub import published_study

    hub = Hub(cluster, "webcpu", folder)
    os.environ["PGPASSFILE"] = str(hub.passfile)
    path, _ = published_study(hub, folder, items=2 * n + 200, per_task=10, n_checks=0,
                              per_item=1, annotator=None)
    with Project.open(path) as project:
        url = web_url(project)
    with psycopg.connect(url, autocommit=True, prepare_threshold=prepare) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        counter = iter(range(10**9))

        def task() -> None:
            worker = f"W{next(counter)}"
            row = conn.execute("SELECT * FROM simrate.web_lease('s', %s, '', '', '')",
                               (worker,)).fetchone()
            cookie, token = row[2], row[3]
            for slot in range(1, 11):
                conn.execute("SELECT * FROM simrate.web_rate_show('s', %s, %s, %s, %s)",
                             (cookie, token, slot, slot % 5)).fetchall()
            conn.execute("SELECT simrate.announce_writes('{}')")  # serve's, after the commits

        for _ in range(3):
            task()
        before, rated = backend_cpu(pid), 0
        while rated < n:
            task()
            rated += 10
        # the lease of each task is in the figure too: one start per ten ratings
        return 1000 * (backend_cpu(pid) - before) / rated


def plain_file(folder: Path, n: int) -> float:
    """ms of this process's CPU per web rating on a plain project file."""
    from simrate.core.project import Project
    from simrate.core.team import web_study as web
    from tests.web.projects import make_project

    path = make_project(folder / "plain.simrate", items=2 * n + 200, checks=3)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=10, checks=0, per_item=1)
        counter = iter(range(10**9))

        def task() -> None:
            lease = web.lease(project, "s", f"W{next(counter)}", "", None)
            for slot in range(1, 11):
                after, _ = web.rate_slot(project, "s", lease.cookie, lease.token, slot,
                                         str(slot % 5))
                if after.state == "leased":
                    web.next_slot(project, after)

        for _ in range(3):
            task()
        before, rated = time.process_time(), 0
        while rated < n:
            task()
            rated += 10
        return 1000 * (time.process_time() - before) / rated


def main() -> None:
    from tests.perf.hub_setup import throwaway_cluster

    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--ratings", type=int, default=600, help="ratings per way and run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each way")
    parser.add_argument("--through-pooler", action="store_true",
                        help="nothing prepared, as serve's calls through PgBouncer")
    opts = parser.parse_args()
    prepare = None if opts.through_pooler else 0
    figures: dict[str, list[float]] = {"sync round": [], "sync edit": [], "web rating": [],
                                       "plain file": []}
    for _ in range(opts.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            figures["plain file"].append(plain_file(Path(tmp), opts.ratings))
        with throwaway_cluster("bench_hub_cpu") as cluster, \
                tempfile.TemporaryDirectory() as tmp:
            for part in (tmp, f"{tmp}/a", f"{tmp}/b", f"{tmp}/c"):
                os.makedirs(part, exist_ok=True)
                os.chmod(part, 0o755)  # the server (another user when root) reads them
            figures["sync round"].append(sync_rounds(cluster, Path(tmp) / "a", opts.ratings,
                                                     prepare=prepare))
            figures["sync edit"].append(sync_rounds(cluster, Path(tmp) / "c", opts.ratings,
                                                    edits=True, prepare=prepare))
            figures["web rating"].append(web_ratings(cluster, Path(tmp) / "b", opts.ratings,
                                                     prepare=prepare))
    plain = statistics.median(figures["plain file"])
    print(f"CPU per rating, median of {opts.repeats} runs of {opts.ratings} ratings "
          f"(all runs in ms: {json.dumps({k: [round(x, 3) for x in v] for k, v in figures.items()})})")
    for name, values in figures.items():
        middle = statistics.median(values)
        print(f"{name:12s} {middle:6.3f} ms   {middle / plain:5.2f}x the plain file")


if __name__ == "__main__":
    main()
