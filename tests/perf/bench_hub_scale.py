"""Benchmark: hundreds of annotators' windows against one hub with default connection slots.

Run: python tests/perf/bench_hub_scale.py [--replicas 500] [--seconds 60] [--processes 10]
     [--pace 2-5] [--pgbouncer | --through-serve] [--nice 10] [--replica-folder DIR]
Needs PostgreSQL's server binaries (pg_config --bindir) and, as root, the `postgres` user;
with --pgbouncer, Debian's pgbouncer as well.
The server runs on loopback with its default durability (fsync on) and a default number
of connection slots (max_connections 100, 3 of them kept for superusers).

Each replica is its own .simrate file and its own annotator login. The replicas run as
threads spread over a few processes, on the code path of an annotator's window without Qt:
a rating is committed locally, a round (collect, exchange over a HubSession with no linger,
absorb) follows DEBOUNCE seconds later and connects for that round only; a refused round
is tried again after the window's Backoff (exponential, full jitter), and ratings made
meanwhile wait for it; with nothing to send the replica looks for news every
ANNOTATOR_POLL_SECONDS. Each replica rates one item every 2-5 s (uniformly drawn) for
--seconds, then syncs until nothing is pending (the window closing with `team sync`).

With --through-serve the replicas join by sync links and sync through the sync service
of two `simrate serve` processes on the organizer's replica (issue 33), half on each; the
CPU of those processes is reported beside the hub's. The simulated windows run at
--nice (10 by default), below the organizer (this process) and the hub.

With --pgbouncer the replicas reach the hub through PgBouncer in transaction mode (a
pool of one server connection per login, at most POOLED server connections in all), as
the README describes it; the organizer connects directly, its LISTEN included.

The replicas' files (each commit is fsynced, as in the window) go to the temporary folder,
on the same disk as the hub's write-ahead log, unless --replica-folder names another: with
/dev/shm their fsyncs no longer compete with the hub's, as when every window runs on a
computer of its own. The hub keeps its own durability either way.

The organizer (this process) keeps its live link: a listening connection (LISTEN) and its
exchange connection, as its window does, and notes when each rating has reached its
replica and the live agreement figure was recomputed. At the end every replica's ratings
are looked up on the hub.

Reported: ratings made and lost; rating to hub (local commit to the end of the round that
pushed it) p50/p95; rating to the organizer's live figure p50/p95; refused rounds by kind;
replicas offline (from a refused round to the next round that went through) longer than
the backoff ceiling; hub CPU seconds per rating (postmaster and every backend, from
/proc); the time a round holds its connection; the replicas' own CPU; peak connections
and the connections waiting for a lock of any kind (before hub schema 4, mostly the
hub-wide advisory lock under which every write took its stamp; now row locks only),
sampled from pg_stat_activity every 0.2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.perf.hub_setup import (  # noqa: E402
    add_annotators,
    items_frame,
    process_cpu,
    server_cpu,
    throwaway_cluster,
)

#: Goals of the benchmark (seconds).
GOAL_HUB_P95 = 2.0
GOAL_LIVE_P95 = 1.0
#: Server connections PgBouncer may open to the hub database (--pgbouncer), of the 97 a
#: default server gives logins that are no superuser: the organizers keep the rest.
POOLED = 80
#: Longest time a replica's closing sync keeps trying before the run counts its ratings
#: as lost (seconds).
FINAL_SYNC_SECONDS = 180.0


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of values; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---------------------------------------------------------------------------- worker
class Replica:
    """One annotator's window: local ratings, a round per change, backoff on refusal."""

    def __init__(self, project, name: str, seed: int):
        from simrate.hub.link.backoff import Backoff
        from simrate.hub.team.sync import session_for

        self.project = project
        self.name = name
        self.session = session_for(project)  # an annotator's: linger 0, no listener
        self.backoff = Backoff(rng=random.Random(seed))
        self.rng = random.Random(seed + 1)
        self.made: dict[str, float] = {}  # item -> local commit time (epoch)
        self.to_hub: list[float] = []  # seconds from local commit to the hub's answer
        self.refused: dict[str, int] = {}
        self.rounds = 0
        self.hold: list[float] = []  # seconds each round that went through took (connected)
        self.refused_hold: list[float] = []  # seconds each refused try took
        self.offline: list[float] = []  # lengths of offline spells (seconds)
        self._offline_since: float | None = None
        self._unsent: dict[str, float] = {}  # items rated and not yet pushed

    def _round(self) -> bool:
        """One round; True when it went through."""
        from simrate.hub.link.connection import HubError
        from simrate.hub.link.replica import read_link, watermarks
        from simrate.hub.team.sync import absorb, collect, tables_for

        sent = dict(self._unsent)
        # the window's three steps (hub_sync.py): collect and absorb hold no connection
        link = read_link(self.project)
        outbox = collect(self.project, link)
        began = time.monotonic()
        try:
            received = self.session.round(outbox, watermarks(self.project, tables_for(link)))
        except HubError as exc:
            self.refused[exc.kind] = self.refused.get(exc.kind, 0) + 1
            self.refused_hold.append(time.monotonic() - began)
            if self._offline_since is None:
                self._offline_since = time.monotonic()
            return False
        self.hold.append(time.monotonic() - began)
        report = absorb(self.project, link, outbox, received)
        now = time.time()
        self.rounds += 1
        for item, at in sent.items():
            self.to_hub.append(now - at)
            self._unsent.pop(item, None)
        if self._offline_since is not None:
            self.offline.append(time.monotonic() - self._offline_since)
            self._offline_since = None
        self.backoff.reset()
        return report.pending == 0

    def run(self, start: float, seconds: float, items: list[str], pace: tuple[float, float],
            poll: float, debounce: float) -> None:
        """Rate until start + seconds, then sync until nothing is pending."""
        end = start + seconds
        next_rating = start + self.rng.uniform(0, pace[1])
        retry_at = 0.0  # epoch seconds before which no round starts (backoff)
        due: float | None = None
        next_poll = start + poll
        queue = list(items)
        while True:
            now = time.time()
            if now >= end:
                break
            if now >= next_rating and queue:
                item = queue.pop(0)
                self.project.rate(item, self.name, self.rng.randrange(21) * 0.25)
                stamp = time.time()
                self.made[item] = stamp
                self._unsent[item] = stamp
                next_rating += self.rng.uniform(*pace)
                if due is None:
                    due = max(stamp + debounce, retry_at)
            if due is None and now >= next_poll:
                due = max(now, retry_at)
            if due is not None and time.time() >= due:
                due = None
                if self._round():
                    next_poll = time.time() + poll
                    retry_at = 0.0
                    if self._unsent:
                        due = time.time()  # rated during the round: goes out now
                else:
                    retry_at = time.time() + self.backoff.next_delay()
                    next_poll = retry_at
                    if self._unsent:
                        due = retry_at
            wake = min(x for x in (next_rating, due, next_poll, end) if x is not None)
            time.sleep(max(0.0, min(1.0, wake - time.time())))
        # closing: sync until nothing is pending, with the same backoff
        deadline = time.time() + FINAL_SYNC_SECONDS
        while time.time() < deadline:
            if self._round():
                break
            time.sleep(min(self.backoff.next_delay(), max(0.0, deadline - time.time())))
        if self._offline_since is not None:  # still offline at the end
            self.offline.append(time.monotonic() - self._offline_since)
        self.session.close()

    def result(self) -> dict:
        return {"name": self.name, "made": self.made, "to_hub": self.to_hub,
                "refused": self.refused, "rounds": self.rounds, "offline": self.offline,
                "hold": self.hold, "refused_hold": self.refused_hold,
                "unsent": len(self._unsent)}


def worker(config: dict) -> None:
    """Join each replica, say "ready", wait for the start time on stdin, run, print JSON."""
    from simrate.gui.shell import hub_sync
    from simrate.hub.team.join import join

    os.nice(config.get("nice", 0))  # the windows below the organizer and the hub
    replicas = []
    for person in config["people"]:
        project, _ = join(person["url"], person["path"], wait=120.0)
        replicas.append(Replica(project, person["name"], person["seed"]))
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    threads = [threading.Thread(target=r.run, args=(
        start, config["seconds"], config["items"], tuple(config["pace"]),
        hub_sync.ANNOTATOR_POLL_SECONDS, hub_sync.DEBOUNCE)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in replicas:
        r.project.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    results = [r.result() for r in replicas]
    results[0]["client_cpu"] = usage.ru_utime + usage.ru_stime
    print(json.dumps(results), flush=True)


# ---------------------------------------------------------------------------- organizer
class Organizer:
    """The organizer's window without Qt: a listener thread and rounds on each NOTIFY, at
    least LIVE_GAP after the last round ended (or every POLL_SECONDS), over sessions that
    keep their connections."""

    def __init__(self, project):
        from simrate.core.base.events import RatingChanged
        from simrate.hub.team.sync import session_for

        self.project = project
        self.session = session_for(project)  # an organizer's: keeps its connection
        self.listener = session_for(project)
        self.seen: dict[tuple[str, str], float] = {}
        self.refused: dict[str, int] = {}
        self._fresh: list[tuple[str, str]] = []
        self._stop = threading.Event()
        self._notified = threading.Event()

        def on_change(event) -> None:
            if isinstance(event, RatingChanged):
                self._fresh.append((event.annotator, event.item))

        project.subscribe(on_change)
        self.project.live.alpha()
        self.threads = [threading.Thread(target=self._listen, daemon=True),
                        threading.Thread(target=self._work, daemon=True)]
        for t in self.threads:
            t.start()

    def _listen(self) -> None:
        from simrate.gui.shell.hub_sync import LISTEN_SECONDS

        while not self._stop.is_set():
            if self.listener.wait(LISTEN_SECONDS):
                self._notified.set()

    def _work(self) -> None:
        from simrate.gui.shell.hub_sync import POLL_SECONDS
        from simrate.hub.link.backoff import Backoff
        from simrate.hub.link.connection import HubError
        from simrate.hub.team.sync import LIVE_GAP, sync_round

        backoff = Backoff()
        next_round = done = time.time()
        while not self._stop.is_set():
            if self._notified.wait(timeout=max(0.0, min(0.5, next_round - time.time()))):
                # as the window: a notified round at least LIVE_GAP after the last one
                # ended, so that a stream of ratings comes in batches
                self._stop.wait(max(0.0, done + LIVE_GAP - time.time()))
                self._notified.clear()
            elif time.time() < next_round:
                continue
            try:
                sync_round(self.project, self.session)
            except HubError as exc:
                self.refused[exc.kind] = self.refused.get(exc.kind, 0) + 1
                next_round = time.time() + backoff.next_delay()
                continue
            backoff.reset()
            done = time.time()
            if self._fresh:
                self.project.live.alpha()  # the figure the dashboard shows
                now = time.time()
                for key in self._fresh:
                    self.seen.setdefault(key, now)
                self._fresh.clear()
            next_round = time.time() + POLL_SECONDS

    def stop(self) -> None:
        self._stop.set()
        self._notified.set()
        for t in self.threads:
            t.join(timeout=5)
        self.session.close()
        self.listener.close()


# ---------------------------------------------------------------------------- server
class Sampler:
    """Peak client connections on the server (pg_stat_activity, every 0.2 s)."""

    def __init__(self, cluster):
        import psycopg

        self.conn = psycopg.connect(cluster.admin_dsn(), autocommit=True)
        self.peak = 0
        self.peak_at = 0.0
        #: backends waiting for a lock (any kind: row, relation, advisory)
        self.samples = self.waiting = self.peak_waiting = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            n, waiting = self.conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') "
                "FROM pg_stat_activity WHERE backend_type = 'client backend' "
                "AND pid <> pg_backend_pid()").fetchone()
            self.samples += 1
            self.waiting += waiting
            self.peak_waiting = max(self.peak_waiting, waiting)
            if n > self.peak:
                self.peak, self.peak_at = n, time.time()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)
        self.conn.close()


# ---------------------------------------------------------------------------- main
def run(opts: argparse.Namespace) -> dict:
    with throwaway_cluster("bench_hub_scale", max_connections=100, reserved=3) as cluster, \
            tempfile.TemporaryDirectory() as tmp, \
            tempfile.TemporaryDirectory(dir=opts.replica_folder) as files:
        return _run(opts, cluster, Path(tmp), Path(files))


def _run(opts: argparse.Namespace, cluster, folder: Path, files: Path) -> dict:
    """The run; the organizer's file in `folder`, the replicas' files in `files`."""
    from simrate.core.project import Project
    from simrate.hub.link.backoff import CAP
    from simrate.hub.team.people import hub_of
    from simrate.hub.team.publish import publish
    from tests.hub.hubs import Hub

    low, high = (float(x) for x in opts.pace.split("-"))
    n_items = int(opts.seconds / low) + 5
    os.chmod(folder, 0o755)
    bouncer = None
    servers: list = []
    try:
        hub = Hub(cluster, "scale", folder)
        os.environ["PGPASSFILE"] = str(hub.passfile)
        organizer = Project.create(folder / "organizer.simrate", scale="sts", title="scale")
        organizer.import_items(items_frame(n_items), source="bench")
        publish(organizer, hub.url())
        team = add_annotators(hub, hub_of(organizer), opts.replicas, "rater")
        url = hub.url
        if opts.through_serve:  # the annotators through two `simrate serve` processes
            servers, url = start_service(organizer, team)
        if opts.pgbouncer:  # the annotators through the pooler; the organizer goes direct
            bouncer = start_bouncer(cluster, hub, opts.replicas)
            url = lambda login: bouncer.url(login, hub.name)  # noqa: E731
        parts: list[list[dict]] = [[] for _ in range(opts.processes)]
        for k, (name, login) in enumerate(team):
            parts[k % opts.processes].append({
                "name": name, "url": url(login),
                "path": str(files / f"{login}.simrate"), "seed": 1000 + k})
        items = [f"d:{i}" for i in range(1, n_items + 1)]
        env = dict(hub.env(), SIMRATE_HUB_WAIT="120")
        workers = []
        for part in parts:
            if not part:
                continue
            config = {"people": part, "seconds": opts.seconds, "items": items,
                      "pace": [low, high], "nice": opts.nice}
            workers.append(subprocess.Popen(
                [sys.executable, __file__, "--worker", json.dumps(config)], env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT))
        for w in workers:
            line = w.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a worker did not get ready: {line!r}")
        live = Organizer(organizer)
        sampler = Sampler(cluster)
        time.sleep(1.0)  # the organizer's link is up before anyone rates
        cpu_before = server_cpu(cluster)
        pooler_before = process_cpu(bouncer.pid(), False) if bouncer else 0
        service_before = sum(process_cpu(s.process.pid, False) for s in servers)
        start = time.time() + 1.0
        for w in workers:
            w.stdin.write(f"{start!r}\n")
            w.stdin.flush()
        results: list[dict] = []
        for w in workers:
            out, _ = w.communicate()
            results.extend(json.loads(out.strip().splitlines()[-1]))
        ended = time.time()
        # the organizer gets what the closing syncs pushed (bounded)
        made = {(r["name"], item): at for r in results for item, at in r["made"].items()}
        grace = time.time() + 15
        while time.time() < grace and len(live.seen) < len(made):
            time.sleep(0.2)
        live.stop()
        sampler.stop()
        time.sleep(1.0)  # backends of closed connections exit and are reaped
        cpu = server_cpu(cluster) - cpu_before
        pooler = ((process_cpu(bouncer.pid(), False) - pooler_before) / os.sysconf("SC_CLK_TCK")
                  if bouncer else 0.0)
        service = (sum(process_cpu(s.process.pid, False) for s in servers)
                   - service_before) / os.sysconf("SC_CLK_TCK")
        with hub.admin() as admin:
            on_hub = set(admin.execute(
                "SELECT annotator, item_id FROM simrate.ratings").fetchall())
        lost = [key for key in made if key not in on_hub]
        missing_replicas = {name for name, _ in lost}
        to_hub = [x for r in results for x in r["to_hub"]]
        live_gaps = [live.seen[k] - at for k, at in made.items() if k in live.seen]
        refused: dict[str, int] = {}
        for r in results:
            for kind, n in r["refused"].items():
                refused[kind] = refused.get(kind, 0) + n
        spells = [x for r in results for x in r["offline"]]
        hold = [x for r in results for x in r["hold"]]
        refused_hold = [x for r in results for x in r["refused_hold"]]
        client_cpu = sum(r.get("client_cpu", 0.0) for r in results)
        organizer.close()
        return {
            "replicas": opts.replicas, "seconds": opts.seconds,
            "processes": len(workers), "pace": opts.pace,
            "wall": ended - start, "made": len(made), "on_hub": len(made) - len(lost),
            "lost": len(lost), "replicas_missing": len(missing_replicas),
            "hub_p50": quantile(to_hub, 0.5), "hub_p95": quantile(to_hub, 0.95),
            "hub_max": max(to_hub, default=float("nan")),
            "live_seen": len(live_gaps),
            "live_p50": quantile(live_gaps, 0.5), "live_p95": quantile(live_gaps, 0.95),
            "refused": refused, "refused_total": sum(refused.values()),
            "organizer_refused": live.refused,
            "replicas_refused": sum(1 for r in results if r["refused"]),
            "offline_max": max(spells, default=0.0),
            "offline_over_cap": sum(1 for r in results if any(x > CAP for x in r["offline"])),
            "cap": CAP,
            "rounds": sum(r["rounds"] for r in results),
            "hold_p50": quantile(hold, 0.5), "hold_p95": quantile(hold, 0.95),
            "refused_hold_p50": quantile(refused_hold, 0.5),
            "client_cpu": client_cpu, "load": os.getloadavg()[0],
            "hub_cpu": cpu, "cpu_per_rating_ms": 1000 * cpu / max(1, len(made)),
            "pgbouncer": bool(bouncer), "pooler_cpu": pooler,
            "replica_folder": opts.replica_folder or "temporary folder (the hub's disk)",
            "pooler_per_rating_ms": 1000 * pooler / max(1, len(made)),
            "through_serve": bool(servers), "service_cpu": service,
            "service_per_rating_ms": 1000 * service / max(1, len(made)),
            "nice": opts.nice,
            "peak_connections": sampler.peak,
            "lock_waiting_mean": sampler.waiting / max(1, sampler.samples),
            "lock_waiting_peak": sampler.peak_waiting,
            "write_commits_per_s": (len(hold)) / max(1e-9, ended - start),
        }
    finally:
        if bouncer is not None:
            bouncer.remove()
        for server in servers:
            server.stop()


def start_service(organizer, team: list[tuple[str, str]]):
    """Sync tokens for the team and two `simrate serve` processes on the organizer's
    replica; returns (the servers, {login: the sync link of its person}), the replicas
    spread over the two servers."""
    from simrate.hub.link.client import make_link
    from simrate.hub.team.tokens import issue_tokens
    from tests.web.servers import Server

    tokens = issue_tokens(organizer, [name for name, _login in team])
    servers = [Server(organizer.path) for _ in range(2)]
    links = {login: make_link(servers[k % 2].url, tokens[name][0])
             for k, (name, login) in enumerate(team)}
    return servers, links.__getitem__


def start_bouncer(cluster, hub, replicas: int):
    """Debian's PgBouncer in transaction mode in front of the hub database: a pool of one
    server connection per login, at most POOLED server connections in all (the rest of the
    server's slots stay for the organizers, who connect directly), every replica a client
    of its own. It takes the hub's logins and passwords as the hub tests' does."""
    from tests.hub.bouncer import Bouncer, bouncer_binary

    binary = bouncer_binary()
    if binary is None:
        sys.exit("bench_hub_scale: pgbouncer not found (Debian's pgbouncer package)")
    bouncer = Bouncer(binary, cluster, pool_mode="transaction", pool_size=1,
                      max_db_connections=POOLED, max_client_conn=replicas + 50,
                      query_wait_timeout=120, databases=(hub.name,))
    bouncer.start()
    bouncer.remember(hub.passfile)
    return bouncer


def report(res: dict) -> None:
    ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731
    rows = [
        ("replicas x seconds (processes)",
         f"{res['replicas']} x {res['seconds']} s ({res['processes']} processes), one "
         f"rating every {res['pace']} s each"
         + (", through PgBouncer (transaction mode)" if res["pgbouncer"] else "")
         + (", through two `simrate serve` (sync service)" if res["through_serve"] else "")
         + f", windows at nice {res['nice']}"
         + f"; replicas' files in {res['replica_folder']}"),
        ("ratings made / on the hub / lost",
         f"{res['made']:,} / {res['on_hub']:,} / {res['lost']} "
         f"({res['replicas_missing']} replicas missing some)"),
        ("rating to hub p50 / p95 (max)",
         f"{ms(res['hub_p50'])} / {ms(res['hub_p95'])} ({ms(res['hub_max'])}); "
         f"goal p95 <= {GOAL_HUB_P95:.0f} s"),
        ("organizer live p50 / p95",
         f"{ms(res['live_p50'])} / {ms(res['live_p95'])} ({res['live_seen']:,} of "
         f"{res['made']:,} seen); "
         f"goal p95 <= {GOAL_LIVE_P95:.0f} s"),
        ("rounds / refused rounds (kinds)",
         f"{res['rounds']:,} / {res['refused_total']:,} "
         f"{json.dumps(res['refused'], sort_keys=True)}, {res['replicas_refused']} replicas; "
         f"organizer refused {json.dumps(res['organizer_refused'])}"),
        ("longest offline spell / replicas offline > ceiling",
         f"{res['offline_max']:.1f} s / {res['offline_over_cap']} (ceiling {res['cap']:.0f} s)"),
        ("hub CPU",
         f"{res['hub_cpu']:.1f} s in {res['wall']:.0f} s; {res['cpu_per_rating_ms']:.2f} ms "
         "per rating" + (f"; PgBouncer {res['pooler_cpu']:.1f} s, "
                         f"{res['pooler_per_rating_ms']:.2f} ms per rating"
                         if res["pgbouncer"] else "")
         + (f"; the two serve processes {res['service_cpu']:.1f} s, "
            f"{res['service_per_rating_ms']:.2f} ms per rating" if res["through_serve"] else "")),
        ("round's connection held p50 / p95; refused try",
         f"{ms(res['hold_p50'])} / {ms(res['hold_p95'])}; {ms(res['refused_hold_p50'])}"),
        ("replicas' processes CPU", f"{res['client_cpu']:.1f} s ("
         f"{1000 * res['client_cpu'] / max(1, res['made']):.1f} ms per rating); load average "
         f"at the end {res['load']:.1f} on {os.cpu_count()} cores"),
        ("peak connections", f"{res['peak_connections']} of 97 (max_connections 100)"),
        ("waiting for a lock",
         f"mean {res['lock_waiting_mean']:.1f}, peak {res['lock_waiting_peak']} connections; "
         f"{res['write_commits_per_s']:.1f} rounds/s went through"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    ok = (res["lost"] == 0 and res["hub_p95"] <= GOAL_HUB_P95
          and res["live_p95"] <= GOAL_LIVE_P95 and res["offline_over_cap"] == 0)
    print(f"{'PASS' if ok else 'FAIL'}: {res['replicas']} replicas x {res['seconds']} s: "
          f"lost {res['lost']}, to hub p95 {ms(res['hub_p95'])}, live p95 "
          f"{ms(res['live_p95'])}, offline > {res['cap']:.0f} s: {res['offline_over_cap']}, "
          f"refused {res['refused_total']}, hub CPU {res['cpu_per_rating_ms']:.2f} ms/rating, "
          f"peak {res['peak_connections']} connections")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--replicas", type=int, default=500, help="annotators' windows")
    parser.add_argument("--seconds", type=int, default=60, help="how long they rate")
    parser.add_argument("--processes", type=int, default=10,
                        help="processes the replicas are spread over (threads in each)")
    parser.add_argument("--pace", default="2-5",
                        help="seconds between one replica's ratings, drawn from LOW-HIGH")
    parser.add_argument("--replica-folder", default=None, metavar="DIR",
                        help="where the replicas' files go (default: the temporary folder, "
                             "on the hub's disk); /dev/shm keeps their fsyncs off the hub's "
                             "disk, as when each window runs on a computer of its own")
    parser.add_argument("--pgbouncer", action="store_true",
                        help="the annotators through PgBouncer in transaction mode")
    parser.add_argument("--through-serve", action="store_true",
                        help="the annotators through the sync service of two `simrate serve` "
                             "processes (sync links); the organizer goes direct")
    parser.add_argument("--nice", type=int, default=10,
                        help="niceness of the simulated windows' processes (default 10: below "
                             "the organizer and the hub)")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    opts = parser.parse_args()
    res = run(opts)
    report(res)
    if opts.json:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
