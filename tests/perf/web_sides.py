"""The servers bench_web.py drives: simrate on a file, simrate on a hub, Potato.

Each side starts its servers, gives their addresses and process ids (for their CPU time),
and after the servers stopped tells which (worker, item) ratings its storage holds. Every
import from simrate is in this module, in `simrate_api`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.perf.bench_potato import POTATO_CONFIG  # one config for both benchmarks
from tests.web.servers import Server, free_port

STUDY = "bench"


def simrate_api():
    """The few simrate functions the benchmark uses (one place, as module paths move)."""
    from simrate.core.base.frames import item_frame
    from simrate.core.project import Project
    from simrate.core.team.quality import set_checks
    from simrate.hub.team.publish import publish
    from simrate.hub.team.web_hub import set_study  # a plain file, or the hub first

    return item_frame, Project, publish, set_checks, set_study


def simrate_sync_api():
    """What the organizer's window uses to follow the hub (tests/perf/dashboard.py)."""
    from simrate.core.project import Project
    from simrate.hub.team.sync import LIVE_GAP, session_for, sync_round

    return Project, LIVE_GAP, session_for, sync_round


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) of a process and its live children (Linux /proc)."""
    def fields(entry: str) -> list[str]:
        return Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()

    total = sum(int(f) for f in fields(str(pid))[11:13])
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = fields(entry)
            except OSError:
                continue
            if int(stat[1]) == pid:
                total += int(stat[11]) + int(stat[12])
    return total / os.sysconf("SC_CLK_TCK")


def build_project(folder: Path, pairs: int, with_study: bool = True) -> tuple[Path, float]:
    """A project of PAIRS pairs ("the left text of pair iN"), one check item, and a study of
    10 pairs a task, 5 ratings an item (the defaults of `crowd study`); with the seconds
    the import and the study took."""
    item_frame, Project, _publish, set_checks, set_study = simrate_api()
    began = time.perf_counter()
    ids = [f"i{n}" for n in range(pairs)]
    frame = item_frame({"item_id": ids, "left": [f"the left text of pair {i}" for i in ids],
                        "right": [f"the right text of pair {i}" for i in ids],
                        "dataset": [""] * pairs, "genre": [""] * pairs,
                        "reference": [float("nan")] * pairs, "meta": [{} for _ in ids],
                        "line": list(range(1, pairs + 1))})
    path = folder / "bench.simrate"
    with Project.create(path, "clss") as project:
        project.import_items(frame, source="bench")
        set_checks(project, {"i0": 2.0}, by="bench")
        if with_study:
            set_study(project, STUDY, per_task=10, checks=1, per_item=5)
    return path, time.perf_counter() - began


TWICE = ("SELECT COUNT(*) FROM (SELECT t.worker, s.item_ord FROM web_slots s JOIN web_tasks t "
         "ON t.study = s.study AND t.task = s.task GROUP BY 1, 2 HAVING COUNT(*) > 1)")
OVER = ("SELECT COUNT(*) FROM (SELECT item_ord FROM web_slots WHERE is_check = 0 "
        "GROUP BY item_ord HAVING COUNT(*) > 5)")
CROWD_RATINGS = ("SELECT a.name, i.id FROM ratings r JOIN annotators a ON a.id = r.annotator_id "
                 "JOIN items i ON i.ord = r.item_ord WHERE a.kind = 'crowd'")


class FileSide:
    """SERVERS `simrate serve` processes on one project file, with their default limits."""

    kind, name = "simrate", "simrate, file"

    def __init__(self, folder: Path, pairs: int, servers: int = 2):
        self.path, took = build_project(folder, pairs)
        self.notes = [f"{pairs:,} pairs imported and a study created over them in {took:.2f} s"]
        self.servers = [Server(self.path) for _ in range(servers)]
        self.urls = [s.url for s in self.servers]
        self.pids = [s.process.pid for s in self.servers]
        self.said: list[str] = []

    def stop(self) -> None:
        for server in self.servers:
            status, _out, err = server.stop()
            if status != 0:
                self.said.append(f"a server's exit {status}: {err.strip()[-300:]}")
            elif err.strip():
                self.notes.append(f"a server wrote: {err.strip()[-300:]}")

    def stored(self) -> set[tuple[str, str]]:
        _f, Project, *_ = simrate_api()
        with Project.open(self.path) as project:
            twice, over = (project.team_tables.read(q)[0][0] for q in (TWICE, OVER))
            self.notes.append(f"slots given twice {twice}, items over the cap {over}")
            return {tuple(r) for r in project.team_tables.read(CROWD_RATINGS)}

    def extra_cpu(self) -> float:
        return 0.0


class HubSide(FileSide):
    """SERVERS `simrate serve` processes on the organizer's replica of a throwaway hub
    (PostgreSQL on loopback, fsync on), the study created on the hub."""

    name = "simrate, hub"

    def __init__(self, folder: Path, pairs: int, cluster, servers: int = 2):
        from tests.hub.hubs import Hub
        from tests.perf.hub_setup import server_cpu

        _f, Project, publish, _c, set_study = simrate_api()
        self.cluster, self.server_cpu = cluster, server_cpu
        self.hub = Hub(cluster, "bench", folder)
        os.environ["PGPASSFILE"] = str(self.hub.passfile)  # the serve processes inherit it
        self.path, took = build_project(folder, pairs, with_study=False)
        with Project.open(self.path) as project:
            began = time.perf_counter()
            publish(project, self.hub.url())
            published, began = time.perf_counter() - began, time.perf_counter()
            set_study(project, STUDY, per_task=10, checks=1, per_item=5)
        self.notes = [f"{pairs:,} pairs imported in {took:.2f} s and a study created over "
                      f"them on the hub in {time.perf_counter() - began:.2f} s; published "
                      f"to the hub (once per team) in {published:.2f} s"]
        self.follower = Follower(self.path)
        self.servers = [Server(self.path) for _ in range(servers)]
        self.urls = [s.url for s in self.servers]
        self.pids = [s.process.pid for s in self.servers]
        self.said = []

    def stop(self) -> None:
        super().stop()
        self.arrived = self.follower.stop()
        if self.follower.failed:
            self.said.append(f"the organizer's window stopped: {self.follower.failed}")

    def stored(self) -> set[tuple[str, str]]:
        with self.hub.admin() as conn:
            twice, over = (conn.execute(q).fetchone()[0] for q in (HUB_TWICE, HUB_OVER))
            self.notes.append(f"slots given twice {twice}, items over the cap {over}")
            return {tuple(r) for r in conn.execute(
                "SELECT r.annotator, r.item_id FROM simrate.ratings r JOIN "
                "simrate.annotators a ON a.name = r.annotator WHERE a.kind = 'crowd'")}

    def dashboard(self, acked: list[tuple[str, str, float]]) -> list[float]:
        """Seconds from each rating POST's answer to that rating in the organizer's replica."""
        return [self.arrived[(w, i)] - when for w, i, when in acked if (w, i) in self.arrived]

    def extra_cpu(self) -> float:
        """PostgreSQL's CPU seconds so far (its postmaster and backends)."""
        return self.server_cpu(self.cluster)


HUB_TWICE = ("SELECT count(*) FROM (SELECT t.worker, s.item_id FROM simrate.web_slots s JOIN "
             "simrate.web_tasks t USING (study, task) GROUP BY 1, 2 HAVING count(*) > 1) x")
HUB_OVER = ("SELECT count(*) FROM (SELECT item_id FROM simrate.web_slots WHERE NOT is_check "
            "GROUP BY item_id HAVING count(*) > 5) x")


class Follower:
    """The organizer's window keeping its replica, in a process of its own
    (tests/perf/dashboard.py), for the time from a POST's answer to the dashboard."""

    def __init__(self, path: Path):
        import multiprocessing

        from tests.perf.dashboard import follow

        spawn = multiprocessing.get_context("spawn")
        self.halt, ready, self.results = spawn.Event(), spawn.Event(), spawn.Queue()
        self.process = spawn.Process(target=follow,
                                     args=(str(path), self.halt, ready, self.results))
        self.process.start()
        ready.wait(120)

    def stop(self) -> dict:
        time.sleep(2.0)  # the last NOTIFY's round
        self.halt.set()
        arrived, self.rounds, self.failed = self.results.get(timeout=120)
        self.process.join(60)
        return arrived


def potato_python(venv: Path) -> Path | None:
    """Potato 2.12.1 in VENV (made and installed with pip when missing), or None."""
    python = venv / "bin" / "python"
    if not (venv / "bin" / "potato").exists():
        made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
        installed = made.returncode == 0 and subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "potato-annotation==2.12.1"],
            capture_output=True).returncode == 0
        if not installed:
            return None
    return python


class PotatoSide:
    """One Potato server (`potato start`, Flask, threaded: how Potato runs) on PAIRS pairs,
    the two texts joined in one field as Potato shows one text per item."""

    kind, name = "potato", "Potato 2.12.1"

    def __init__(self, folder: Path, pairs: int, python: Path):
        self.project = folder / "potato"
        (self.project / "data").mkdir(parents=True)
        data = self.project / "data" / "pairs.jsonl"
        with data.open("w", encoding="utf-8") as out:
            for n in range(pairs):
                out.write(json.dumps({"id": f"i{n}", "text": f"the left text of pair i{n} "
                                      f"||| the right text of pair i{n}"}) + "\n")
        config = self.project / "config.yaml"
        config.write_text(POTATO_CONFIG.format(folder=self.project, data=data, per_task=10))
        port = free_port()
        self.urls, self.said = [f"http://127.0.0.1:{port}"], []
        self.log = (self.project / "server.log").open("w")
        self.server = subprocess.Popen(
            [str(python.parent / "potato"), "start", str(config), "-p", str(port)],
            cwd=self.project, stdout=self.log, stderr=subprocess.STDOUT)
        self.pids = [self.server.pid]
        began = time.perf_counter()
        self.wait_ready()
        self.notes = [f"{pairs:,} pairs loaded until GET / answered in "
                      f"{time.perf_counter() - began:.2f} s"]

    def wait_ready(self, limit: float = 600) -> None:
        import httpx

        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.server.poll() is None:
            try:
                if httpx.get(self.urls[0] + "/", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError(f"Potato did not start: {self.server.poll()}")

    def stop(self) -> None:
        self.server.terminate()
        try:
            self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.log.close()

    def stored(self) -> set[tuple[str, str]]:
        """(worker, item) of every label in the annotators' saved states."""
        found = set()
        for state in (self.project / "annotation_output").glob("*/user_state.json"):
            saved = json.loads(state.read_text(encoding="utf-8"))
            worker = saved.get("user_id") or state.parent.name
            found |= {(worker, item) for item in saved.get("instance_id_to_label_to_value", {})}
        return found

    def extra_cpu(self) -> float:
        return 0.0
