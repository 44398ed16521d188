"""Benchmark the crowd page under load: simrate on a file, on a hub, and Potato, one generator.

Run (not part of the normal suite; about 8 minutes on the 2-core machine):
    pytest tests/perf/bench_web.py -m perf -s -p no:cacheprovider
Sizes from the environment (defaults in brackets): BENCH_WEB_SECONDS [60] a scenario,
BENCH_WEB_WORKERS [1000] thinking workers on simrate, BENCH_WEB_POTATO_WORKERS [200] on
Potato, BENCH_WEB_SATURATION [100] workers that do not think, BENCH_WEB_PAIRS [200000],
BENCH_WEB_POTATO_PAIRS [the same] (Potato's cost per request grows with its pool),
BENCH_WEB_PROCESSES [2] generator processes, BENCH_WEB_NICE [10] their niceness,
BENCH_WEB_SIDES [file,hub,potato],
POTATO_VENV [a temporary folder] where Potato 2.12.1 is installed (pip) and kept.

Scenarios, side by side in one run, each for BENCH_WEB_SECONDS:
- think: WORKERS simulated workers at once (arriving over 10 s), each a person after
  another doing whole tasks, thinking 1-5 s per pair (uniform), on two `simrate serve`
  processes sharing one project file (as docs/crowd.md tells to run them), then the same on
  the hub (two `serve` processes on the organizer's replica, a throwaway PostgreSQL with
  fsync on), then Potato with POTATO_WORKERS;
- saturation: SATURATION workers that do not think, on each side: ratings per second.

The servers run with their default limits: the flood limits (a short lease until the
first rating, tasks without a rating capped per address and in total), the starts per
address (60 a minute), the writes per task, the header and body deadlines and the
connection cap. Each simulated person comes from an address of its own through
X-Forwarded-For, which `serve` trusts from 127.0.0.1 only (the reverse proxy on the same
machine, the way docs/crowd.md runs it); the study has 200,000 pairs, 10 a task, 5 ratings
an item, so its pool (100,000 tasks) is sized far beyond the workers of a run.

Printed, per scenario: rating POST p50/p95/max, ratings acknowledged / stored / lost
(stored: counted in the file or on the hub after the servers stopped), ratings per second,
the servers' CPU time per rating and in cores (from /proc/PID/stat of the serve processes,
PostgreSQL's apart), the generator's own CPU in cores and its event-loop lag (p95: when it
is small beside the latencies, the generator was not the bottleneck), the machine's load.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.perf import loadgen, web_sides  # noqa: E402

SETTINGS = {"seconds": ("BENCH_WEB_SECONDS", 60.0), "workers": ("BENCH_WEB_WORKERS", 1000),
            "potato_workers": ("BENCH_WEB_POTATO_WORKERS", 200),
            "saturation": ("BENCH_WEB_SATURATION", 100), "pairs": ("BENCH_WEB_PAIRS", 200_000),
            "potato_pairs": ("BENCH_WEB_POTATO_PAIRS", 0),
            "processes": ("BENCH_WEB_PROCESSES", 2)}
THINK = (1.0, 5.0)


def setting(name: str):
    variable, default = SETTINGS[name]
    return type(default)(os.environ.get(variable, default))


def measure(side, plan: loadgen.Plan) -> dict:
    """One scenario on a running side: the generator's tally, CPU and load around it."""
    before = {}

    def at_go() -> None:
        before["load"] = os.getloadavg()[0]
        before["servers"] = sum(web_sides.cpu_seconds(p) for p in side.pids)
        before["extra"] = side.extra_cpu()
        before["waited"] = sum(loadgen.run_queue_wait(p) for p in side.pids)

    tally = loadgen.run(plan, setting("processes"), at_go)
    return {"side": side.name, "plan": plan, "tally": tally,
            "servers": sum(web_sides.cpu_seconds(p) for p in side.pids) - before["servers"],
            "extra": side.extra_cpu() - before["extra"],
            "waited": sum(loadgen.run_queue_wait(p) for p in side.pids) - before["waited"],
            "load": (before["load"], os.getloadavg()[0])}


def scenarios_on(side, thinking: int) -> list[dict]:
    """The thinking and the saturation scenario on one side; then the servers stop and
    the storage is counted for each."""
    plans = [loadgen.Plan(side.kind, side.urls, thinking, setting("seconds"), THINK,
                          ramp=10.0, prefix="t"),
             loadgen.Plan(side.kind, side.urls, setting("saturation"), setting("seconds"),
                          None, ramp=2.0, prefix="s")]
    try:
        results = [measure(side, plan) for plan in plans]
    finally:
        side.stop()
    stored = side.stored()
    for result in results:
        prefix = result["plan"].prefix
        keys = {(worker, item) for worker, item, _when in result["tally"].acked}
        result["stored"] = sum(1 for worker, _item in stored if worker.startswith(prefix))
        result["lost"] = len(keys - stored)
        result["said"], result["notes"] = side.said, side.notes
        if hasattr(side, "dashboard"):
            result["dashboard"] = side.dashboard(result["tally"].acked)
    return results


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else float("nan")


def row(result: dict) -> str:
    tally, plan = result["tally"], result["plan"]
    rated, wall = len(tally.latencies), tally.wall
    per_rating = result["servers"] / max(1, rated) * 1000
    postgres = f" + PostgreSQL {result['extra'] / max(1, rated) * 1000:.2f}" \
        if result["extra"] else ""
    what = f"{plan.workers} thinking {THINK[0]:g}-{THINK[1]:g} s" if plan.think \
        else f"{plan.workers} not thinking"
    return (f"| {result['side']} | {what} | {ms(quantile(tally.latencies, 0.5))} / "
            f"{ms(quantile(tally.latencies, 0.95))} / {ms(max(tally.latencies, default=0))} | "
            f"{len(tally.acked)} / {result['stored']} / {result['lost']} | "
            f"{rated / wall:.1f} | {per_rating:.2f}{postgres} | {result['servers'] / wall:.2f} "
            f"/ {result['waited'] / wall:.2f} | {tally.cpu / wall:.2f} / "
            f"{tally.waited / wall:.2f} / {ms(quantile(tally.lag, 0.95))} | "
            f"{result['load'][0]:.1f} / {result['load'][1]:.1f} |")


HEADER = ("| server | workers | rating POST p50 / p95 / max, ms | acknowledged / stored / lost "
          "| ratings/s | server CPU per rating, ms | servers: cores used / cores waited for | "
          "generator: cores used / waited for / loop lag p95 ms | load before / after |\n"
          "|---|---|---|---|---|---|---|---|---|")


def report(results: list[dict]) -> None:
    print(f"\n{setting('seconds'):g} s a scenario, {setting('processes')} generator "
          f"processes (nice {os.environ.get('BENCH_WEB_NICE', '10')}), {os.cpu_count()} cores")
    print(HEADER)
    for result in results:
        print(row(result))
    for number, result in enumerate(results):
        tally = result["tally"]
        if number % 2 == 0:
            print(f"{result['side']}: " + "; ".join(result["notes"]))
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(tally.outcomes.items()))
        print(f"  {result['plan'].workers} workers: {outcomes}; {tally.requests} requests; "
              f"generator CPU {tally.cpu / max(1, len(tally.acked)) * 1000:.2f} ms a rating"
              + (f"; failed: {result['said']}" if result["said"] else ""))
        seen = result.get("dashboard")
        if seen:
            print(f"  on the organizer's dashboard: {len(seen)} of {len(tally.acked)} seen "
                  f"live; POST answered -> in the replica p50 {ms(quantile(seen, 0.5))} ms, "
                  f"p95 {ms(quantile(seen, 0.95))} ms")


def run_sides(folder: Path, sides: list[str]) -> list[dict]:
    results: list[dict] = []
    pairs = setting("pairs")
    if "file" in sides:
        (folder / "file").mkdir()
        results += scenarios_on(web_sides.FileSide(folder / "file", pairs), setting("workers"))
    if "hub" in sides:
        from tests.perf.hub_setup import throwaway_cluster

        (folder / "hub").mkdir()
        with throwaway_cluster("bench_web") as cluster:
            results += scenarios_on(web_sides.HubSide(folder / "hub", pairs, cluster),
                                    setting("workers"))
    if "potato" in sides:
        venv = Path(os.environ.get("POTATO_VENV") or folder / "potato-venv")
        python = web_sides.potato_python(venv)
        if python is None:
            print("Potato 2.12.1 could not be installed (no package index): not measured")
        else:
            results += scenarios_on(web_sides.PotatoSide(folder, setting("potato_pairs")
                                                         or pairs, python),
                                    setting("potato_workers"))
    return results


@pytest.mark.perf
def test_the_crowd_page_under_load_beside_potato():
    sides = os.environ.get("BENCH_WEB_SIDES", "file,hub,potato").split(",")
    with tempfile.TemporaryDirectory(prefix="bench-web-") as name:
        results = run_sides(Path(name), sides)
    report(results)
    for result in results:
        assert result["tally"].acked, f"{result['side']}: no rating was acknowledged"
        assert result["lost"] == 0, f"{result['side']}: {result['lost']} ratings lost"
        assert not result["said"], f"{result['side']}: {result['said']}"
