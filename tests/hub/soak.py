"""The multi-process soak of issue 22: one annotator's replica held at once by a window
(offscreen, typing ratings), two CLI readers in a loop and a `team sync` loop, while kill -9
strikes the window and the sync at random moments. Afterwards every rating the window
acknowledged is on the hub and in the organizer's replica, and no process ever held a
deleted `-wal`/`-shm` file.

Used by tests/hub/test_soak.py (60 s in CI) and tests/perf/bench_soak.py (longer, figures
in the README).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.hub.hubs import ROOT, Hub, join_as, team
from tests.hub.soak_organizer import OrganizerSide, check_organizer, cli_writer, web_writer


@dataclass
class SoakResult:
    seconds: float
    acknowledged: dict[str, float]  # item -> the last score the window called saved
    window_kills: int = 0
    sync_kills: int = 0
    reads: int = 0
    syncs: int = 0
    deleted_seen: list[str] = field(default_factory=list)
    missing_on_hub: list[str] = field(default_factory=list)
    missing_at_organizer: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: The organizer's writers (soak_organizer.py): CLI, web page and their sync loop.
    organizer: OrganizerSide = field(default_factory=OrganizerSide)


def deleted_files(pid: int) -> list[str]:
    found = []
    try:
        entries = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return found  # the process is gone
    for entry in entries:
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        if target.endswith("(deleted)") and ".simrate" in target:
            found.append(target)
    return found


def _env(hub: Hub) -> dict[str, str]:
    return {**hub.env(), "PYTHONPATH": str(ROOT)}


def run_soak(hub: Hub, folder: Path, seconds: float, seed: int = 1,
             n_items: int = 1500) -> SoakResult:
    rng = random.Random(seed)
    organizer, logins = team(hub, folder, {"ana": "annotator"}, n_items=n_items)
    organizer_path = organizer.path
    from simrate.hub.team.web_hub import set_study

    set_study(organizer, "s", per_task=10, checks=0, per_item=2)
    organizer.rate(f"d:{n_items}", "bob", 1.0)  # a rater the organizer excludes and includes
    organizer.close()
    replica = folder / "ana.simrate"
    join_as(hub, logins["ana"], replica).close()
    env = _env(hub)
    result = SoakResult(seconds, {})
    stop = threading.Event()
    lock = threading.Lock()
    processes: set[subprocess.Popen] = set()

    def cli(*args: object) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "simrate", *map(str, args)], cwd=ROOT,
                                   env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        with lock:
            processes.add(process)
        return process

    def reader(command: str) -> None:
        while not stop.is_set():
            process = cli(command, replica)
            _out, err = process.communicate()
            if process.returncode != 0:
                result.errors.append(f"{command}: {err.strip()}")
            with lock:
                processes.discard(process)
                result.reads += 1

    def syncer(path: Path) -> None:
        while not stop.is_set():
            process = cli("team", "sync", path)
            if rng.random() < 0.25:  # kill -9 at a random moment of the sync
                time.sleep(rng.uniform(0.05, 1.0))
                process.send_signal(signal.SIGKILL)
                result.sync_kills += 1
            process.communicate()
            with lock:
                processes.discard(process)
                result.syncs += 1

    def start_window() -> subprocess.Popen:
        window = subprocess.Popen(
            [sys.executable, "-m", "tests.support.window_driver", str(replica), "ana",
             str(folder / "settings.ini")], cwd=ROOT, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = window.stdout.readline()
        if not line.startswith("ready"):
            raise AssertionError(f"the window did not start: {line!r}")
        return window

    threads = [threading.Thread(target=reader, args=(c,), daemon=True)
               for c in ("info", "flagged")]
    threads += [threading.Thread(target=syncer, args=(p,), daemon=True)
                for p in (replica, organizer_path)]
    threads += [threading.Thread(target=cli_writer, daemon=True, args=(
                    organizer_path, env, result.organizer, stop, random.Random(seed + 1))),
                threading.Thread(target=web_writer, daemon=True, args=(
                    organizer_path, result.organizer, stop, random.Random(seed + 2)))]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    window = start_window()
    next_kill = time.monotonic() + rng.uniform(2, 6)
    try:
        while time.monotonic() - start < seconds:
            window.stdin.write(f"key {rng.randint(0, 5)}\n")
            window.stdin.flush()
            line = window.stdout.readline().split()
            if len(line) == 3 and line[0] == "saved" and line[2] != "None":
                result.acknowledged[line[1]] = float(line[2])
            result.deleted_seen += deleted_files(window.pid)
            if time.monotonic() > next_kill:  # kill -9 the window at a random moment
                time.sleep(rng.uniform(0, 0.3))
                window.send_signal(signal.SIGKILL)
                window.wait()
                result.window_kills += 1
                window = start_window()
                next_kill = time.monotonic() + rng.uniform(2, 6)
            time.sleep(rng.uniform(0, 0.05))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
        window.send_signal(signal.SIGKILL)
        window.wait()
        with lock:
            for process in processes:
                process.kill()
    # Everything the window acknowledged must now reach the hub and the organizer.
    for path in (replica, organizer_path):
        done = subprocess.run([sys.executable, "-m", "simrate", "team", "sync", str(path)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            result.errors.append(f"final sync of {path.name}: {done.stderr.strip()}")
    with hub.admin() as admin:
        on_hub = dict(((item, code) for item, code in admin.execute(
            "SELECT item_id, code FROM simrate.ratings WHERE annotator = 'ana'")))
    from simrate.core.project import Project

    with Project.open(organizer_path) as project:
        scale = project.scale
        mine = {item: project.rating(item, "ana") for item in result.acknowledged}
    check_organizer(hub, organizer_path, result.organizer)
    for item, score in result.acknowledged.items():
        if on_hub.get(item) != scale.to_code(score):
            result.missing_on_hub.append(item)
        if mine[item] != score:
            result.missing_at_organizer.append(item)
    result.seconds = time.monotonic() - start
    return result
