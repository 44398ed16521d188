"""The organizer's dashboard under a stream of web ratings (bench_web.py, on a hub).

An organizer's replica follows the hub as the window does: LISTEN, then a sync round on
each NOTIFY, at least LIVE_GAP after the last round ended. This runs in a process of its
own (as the window is) and sends back when each crowd rating was first in the replica, on
time.perf_counter (the system's monotonic clock, the same in every process), so that the
benchmark can set it beside the moment the rating's POST was answered.
"""

from __future__ import annotations

import time

from tests.perf.web_sides import CROWD_RATINGS, simrate_sync_api


def follow(path: str, halt, ready, results) -> None:
    Project, LIVE_GAP, session_for, sync_round = simrate_sync_api()
    arrived: dict[tuple, float] = {}
    rounds: list[float] = []
    failed = ""
    project = Project.open(path)
    session = session_for(project)
    try:
        sync_round(project, session)
        ready.set()
        done = 0.0
        while not halt.is_set():
            if not session.wait(0.2):
                continue
            time.sleep(max(0.0, done + LIVE_GAP - time.perf_counter()))  # as the window
            began = time.perf_counter()
            sync_round(project, session)
            now = done = time.perf_counter()
            rounds.append(now - began)
            for key in project.team_tables.read(CROWD_RATINGS):
                arrived.setdefault(tuple(key), now)
    except Exception as exc:  # noqa: BLE001 - the benchmark reports what stopped the window
        failed = f"{type(exc).__name__}: {exc}"
    finally:
        session.close()
        project.close()
        results.put((arrived, rounds, failed))
