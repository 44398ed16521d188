"""Benchmark: the organizer's pull costs the same per rating whatever the replica holds.

Run: python tests/perf/bench_organizer_pull.py [--raters 500] [--items 75]
     [--sizes 1000,10000,30000] [--batch 5] [--rounds 40] [--profile]
or:  pytest tests/perf/bench_organizer_pull.py -m perf -s
Needs PostgreSQL's server binaries (pg_config --bindir).

The shape of the 500-window benchmark (bench_hub_scale.py), where the organizer's pull
grew from 0.15 ms of its CPU per rating to 1.0 ms by 8,400 ratings: hundreds of
annotators rating the same few items, so each item holds hundreds of ratings. The hub's
superuser writes the ratings (the organizer's side is what is measured); the organizer's
replica, with its whole agreement model built as its window has it (flags, live alpha,
per-scope sums), is filled to each size in turn and then pulls --rounds batches of --batch
new ratings over its kept connection, as its live rounds do. Each round is timed in CPU
time of this process (time.process_time: the organizer's own work, whatever else the
machine runs): the pull (collect, exchange, absorb: the ratings written through
Project.edit() and the model updated), the live figure once per batch (alpha), and the
rater table's rows the batch changed (r vs rest and counts of every rater of the items it
touched: those all move, so their number, and the time, follow the raters per item).
Reported per size: medians per pulled rating, and the ratios of the largest size to the
smallest.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.perf.hub_setup import items_frame, throwaway_cluster  # noqa: E402

pytestmark = pytest.mark.perf


class Writer:
    """Ratings written straight into the hub, rating k: item k mod items, rater k div items
    (every rater goes through the items in order, as the 500 windows do)."""

    def __init__(self, admin, names: list[str], n_items: int):
        self.admin, self.names, self.n_items, self.done = admin, names, n_items, 0

    def write(self, count: int) -> set[str]:
        """Write the next `count` ratings; their items."""
        rows = [(f"d:{k % self.n_items + 1}", self.names[k // self.n_items % len(self.names)],
                 (k * 7) % 21, time.time()) for k in range(self.done, self.done + count)]
        with self.admin.cursor() as cur:
            cur.executemany("INSERT INTO simrate.ratings (item_id, annotator, code, "
                            "updated_at) VALUES (%s, %s, %s, %s)", rows)
        self.done += count
        return {r[0] for r in rows}


def measure_size(project, session, writer: Writer, opts, profiler) -> dict:
    """Fill the replica to the next size, then time --rounds pulls of --batch ratings."""
    from simrate.hub.team.sync import sync_round

    times: dict[str, list[float]] = {"pull": [], "live": [], "rows": []}
    for _ in range(opts.rounds):
        items = writer.write(opts.batch)
        if profiler:
            profiler.enable()
        marks = [time.process_time()]
        report = sync_round(project, session)
        marks.append(time.process_time())
        project.live.alpha()  # the dashboard's figure, once per batch
        marks.append(time.process_time())
        # the rater table's rows the batch changed: every rater of the items it touched
        touched = {r for item in items for r in project.live.unit_ratings(item)}
        project.live.vs_rest_of(touched)
        project.live.rater_counts(touched)
        marks.append(time.process_time())
        if profiler:
            profiler.disable()
        if report.pulled != opts.batch:
            raise RuntimeError(f"pulled {report.pulled} of {opts.batch}")
        for key, begin, end in zip(times, marks, marks[1:], strict=False):
            times[key].append((end - begin) / opts.batch)
    medians = {f"{k}_ms": 1000 * statistics.median(v) for k, v in times.items()}
    both = [p + q for p, q in zip(times["pull"], times["live"], strict=True)]
    return {"ratings": writer.done, "per_item": writer.done / opts.items, **medians,
            "pull_live_ms": 1000 * statistics.median(both)}


def run(opts: argparse.Namespace) -> dict:
    from simrate.core.project import Project
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish
    from simrate.hub.team.sync import session_for, sync_round
    from tests.hub.hubs import Hub

    sizes = sorted(int(s) for s in opts.sizes.split(","))
    if sizes[-1] + opts.rounds * opts.batch > opts.raters * opts.items:
        raise SystemExit("bench_organizer_pull: --sizes go past raters x items")
    with throwaway_cluster("bench_organizer_pull") as cluster, \
            tempfile.TemporaryDirectory() as tmp:
        hub = Hub(cluster, "pull", Path(tmp))
        os.environ["PGPASSFILE"] = str(hub.passfile)
        project = Project.create(Path(tmp) / "organizer.simrate", scale="sts", title="pull")
        project.import_items(items_frame(opts.items), source="bench")
        publish(project, hub.url())
        names = [f"Rater {k}" for k in range(opts.raters)]
        for k, name in enumerate(names):
            add_person(project, name, "annotator", None, login=f"rater_{k}")
        session = session_for(project)  # the organizer's: keeps its connection
        sync_round(project, session)
        model = project.agreement
        model.flags, model.live, model.scopes  # noqa: B018 - built, as in the window
        profiler = cProfile.Profile() if opts.profile else None
        rows = []
        with hub.admin() as admin:
            writer = Writer(admin, names, opts.items)
            for size in sizes:
                writer.write(size - writer.done)
                sync_round(project, session)  # the fill, not measured
                project.live.rater_counts()
                rows.append(measure_size(project, session, writer, opts, profiler))
        session.close()
        project.close()
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
        print(text.getvalue(), file=sys.stderr)
    return {"raters": opts.raters, "items": opts.items, "batch": opts.batch,
            "rounds": opts.rounds, "sizes": rows,
            "ratio": rows[-1]["pull_live_ms"] / rows[0]["pull_live_ms"],
            "rows_ratio": rows[-1]["rows_ms"] / rows[0]["rows_ms"]}


def table(result: dict) -> str:
    lines = [f"organizer's pull, {result['raters']} raters on {result['items']} items, "
             f"batches of {result['batch']}, median of {result['rounds']} rounds "
             "(CPU of the organizer's process per pulled rating):",
             "| replica | ratings per item | pull | live alpha | pull + alpha | rater rows |",
             "|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        lines.append(f"| {row['ratings']:,} ratings | {row['per_item']:.0f} | "
                     f"{row['pull_ms']:.3f} ms | {row['live_ms']:.3f} ms | "
                     f"{row['pull_live_ms']:.3f} ms | {row['rows_ms']:.3f} ms |")
    lines.append(f"pull + alpha, largest / smallest: {result['ratio']:.2f}x; rater rows: "
                 f"{result['rows_ratio']:.2f}x (as many rows change as raters share the "
                 "items)")
    return "\n".join(lines)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=500)
    parser.add_argument("--items", type=int, default=75)
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the measured rounds (to standard error)")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def test_pull_cost_per_rating_stays_flat():
    """About 1,000 against 10,000 ratings on the same 40 items (30 and 255 per item): the cost
    per pulled rating, pull and live update, within 1.5x."""
    result = run(options(["--raters", "300", "--items", "40", "--sizes", "1000,10000"]))
    print(table(result))
    assert result["ratio"] < 1.5, table(result)


if __name__ == "__main__":
    chosen = options()
    outcome = run(chosen)
    print(json.dumps(outcome, indent=1) if chosen.json else table(outcome))
