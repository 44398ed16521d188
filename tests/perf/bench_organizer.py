"""Benchmark the organizer GUI on 200,000 items x 3 raters: verdicts and the live dashboard.

Run: python tests/perf/bench_organizer.py [--items 200000] [--repeats 200]
The project is built in one process; the organizer's window parts (context, adjudication
queue, agreement watcher and dashboard, All ratings panel) run in another, offscreen, so
that its peak memory (max RSS) is their own. Targets (issue 7): adjudicating an item and
showing the next at most 16 ms median; the dashboard's numbers updated after a rating at
most 100 ms. Side by side: recomputing the per-dataset table from scratch (batch alpha),
which is what the incremental engine avoids on every rating.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script

DATASETS = ("MSRpar", "MSRvid", "SMTeuroparl", "OnWN", "SMTnews")
GENRES = ("news", "video", "europarl", "gloss")


def stage_build(path: str, n: int) -> dict:
    """A 0-5 project of n items in five datasets; three raters who often disagree."""
    import numpy as np

    from simrate.core.base.frames import item_frame, rating_frame
    from simrate.core.project import Project

    start = time.perf_counter()
    items = item_frame({
        "item_id": [f"{DATASETS[i % 5]}:{i + 1}" for i in range(n)],
        "left": [f"first sentence of pair {i}" for i in range(n)],
        "right": [f"second sentence of pair {i}" for i in range(n)],
        "dataset": [DATASETS[i % 5] for i in range(n)],
        "genre": [GENRES[i % 4] for i in range(n)], "reference": [float("nan")] * n,
        "meta": [{}] * n, "line": list(range(1, n + 1))})
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 21, n)
    with Project.create(path, scale="sts") as project:
        project.import_items(items, source="bench")
        ids = project.item_ids()
        rows: dict[str, list] = {"item_id": [], "annotator": [], "score": []}
        for rater in ("rater1", "rater2", "rater3"):
            codes = np.clip(truth + rng.integers(-3, 4, n), 0, 20)
            rows["item_id"] += ids
            rows["annotator"] += [rater] * n
            rows["score"] += list(codes * 0.25)
        total = len(rows["item_id"])
        rows["note"] = [""] * total
        rows["line"] = list(range(2, total + 2))
        project.import_ratings(rating_frame(rows), source="bench")
        flagged = len(project.flagged_ids())
    return {"seconds": time.perf_counter() - start, "flagged": flagged}


def _pump(app, condition, timeout: float = 120.0) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("the GUI did not get there in time")
        app.processEvents()
        time.sleep(0.002)


def _open_gui(path: str):
    """The organizer's parts on the project, ready: (app, context, queue, watcher, dashboard)."""
    from PySide6.QtCore import QSettings

    from simrate.core.review.index import AdjudicationRecords
    from simrate.gui.agreement.agreement_watch import AgreementWatcher
    from simrate.gui.agreement.dashboard import Dashboard
    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import Settings
    from simrate.gui.organizer.adjudication_queue import AdjudicationQueue
    from simrate.gui.organizer.item_ratings_panel import ItemRatingsPanel
    from simrate.gui.shell.main import create_application

    app = create_application()
    settings = Settings(QSettings(str(Path(path).with_suffix(".ini")),
                                  QSettings.Format.IniFormat))
    context = ApplicationContext(settings, organizer=True)
    timings = {}
    start = time.perf_counter()
    context.open_project(path, "organizer")
    timings["open_project_s"] = time.perf_counter() - start
    records = AdjudicationRecords(context.project)
    start = time.perf_counter()
    queue = AdjudicationQueue(context, records)
    panel = ItemRatingsPanel(context, records)
    timings["queue_s"] = time.perf_counter() - start
    start = time.perf_counter()
    watcher = AgreementWatcher(context.project, context.bridge)
    dashboard = Dashboard(watcher)
    _pump(app, lambda: watcher.engine is not None)
    timings["engine_s"] = time.perf_counter() - start
    start = time.perf_counter()
    context.project.live.alpha()  # the core's LiveAgreement, built on first use
    timings["live_s"] = time.perf_counter() - start
    for widget in (queue, dashboard, panel):
        widget.resize(1366, 768)
        widget.show()
    app.processEvents()
    return app, context, queue, watcher, dashboard, timings


def stage_gui(path: str, repeats: int) -> dict:
    """Time verdicts through the queue and the dashboard's response to ratings."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app, context, queue, watcher, dashboard, timings = _open_gui(path)
    project = context.project
    queue.open_first_flagged()
    verdict, verdict_shown = [], []
    for i in range(repeats):
        before = queue.current_id
        queue.set_pending_code(i % 21)
        start = time.perf_counter()
        queue.save_and_next()  # write, notify every panel, show the next flagged item
        verdict.append(time.perf_counter() - start)
        app.processEvents()  # paint it and run the coalesced dashboard refresh
        verdict_shown.append(time.perf_counter() - start)
        assert queue.current_id != before and before not in project.flagged_ids()
    ids = project.item_ids()
    dashboard_ms = []
    for i in range(repeats):
        item_id = ids[(i * 7919) % len(ids)]
        start = time.perf_counter()
        project.rate(item_id, "rater1", (i * 3 % 21) * 0.25)
        expected = f"{project.live.alpha():.3f}"
        _pump(app, lambda e=expected: dashboard.alpha_label.text() == e
              and not watcher._emit_timer.isActive())
        dashboard_ms.append(time.perf_counter() - start)
    gui_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    batch = _batch_table_seconds(project)
    context.close_project()
    return {
        **timings,
        "gui_peak_mb": gui_peak,
        "verdict_median_ms": statistics.median(verdict) * 1000,
        "verdict_p95_ms": sorted(verdict)[int(0.95 * repeats)] * 1000,
        "verdict_painted_median_ms": statistics.median(verdict_shown) * 1000,
        "dashboard_median_ms": statistics.median(dashboard_ms) * 1000,
        "dashboard_p95_ms": sorted(dashboard_ms)[int(0.95 * repeats)] * 1000,
        "batch_table_s": batch,
    }


def _batch_table_seconds(project) -> float:
    """Table 4 by dataset recomputed from the ratings (what a non-incremental GUI would do)."""
    from simrate.core.agreement.reports.report import alpha_table

    start = time.perf_counter()
    ratings = project.ratings()
    ratings = ratings[ratings["score"].notna()]
    items = project.items()
    group_of = dict(zip(items["item_id"], items["dataset"], strict=True))
    settled = project.flagged_ids() | set(project.adjudications()["item_id"])
    unadjudicated = [i for i in items["item_id"] if i not in settled]
    alpha_table(ratings, group_of, unadjudicated)
    return time.perf_counter() - start


STAGES = {"build": stage_build, "gui": stage_gui}


def run_stage(name: str, *args: object) -> dict:
    """Run one stage of this benchmark in a fresh interpreter (offscreen Qt)."""
    return stages.run_stage(__file__, name, *args, env={"QT_QPA_PLATFORM": "offscreen"})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=200)
    opts = stages.options_or_stage(parser, STAGES)
    if opts is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "bench.simrate")
        built = run_stage("build", path, opts.items)
        gui = run_stage("gui", path, opts.repeats)
    rows = [
        (f"(setup) project of {opts.items:,} items x 3 raters", f"{built['seconds']:.1f} s", "",
         f"{built['flagged']:,} flagged"),
        ("open the project (annotator session)", f"{gui['open_project_s']:.2f} s", "", ""),
        ("adjudication queue (flags, ordered queue)", f"{gui['queue_s']:.2f} s", "", ""),
        ("agreement by scope, built on first use (core)", f"{gui['engine_s']:.2f} s", "", ""),
        ("Project.live built on first use (core)", f"{gui['live_s']:.2f} s", "", ""),
        ("verdict saved + next item shown (median)", f"{gui['verdict_median_ms']:.2f} ms",
         "<= 16 ms", f"p95 {gui['verdict_p95_ms']:.2f} ms"),
        ("  ... and painted, dashboard refreshed (median)",
         f"{gui['verdict_painted_median_ms']:.2f} ms", "", ""),
        ("rating -> dashboard alpha updated (median)", f"{gui['dashboard_median_ms']:.2f} ms",
         "<= 100 ms", f"p95 {gui['dashboard_p95_ms']:.2f} ms"),
        ("  vs. per-dataset table recomputed in batch", f"{gui['batch_table_s'] * 1000:.0f} ms",
         "", "(what each rating would cost)"),
    ]
    print(f"{'measure':<50}{'measured':>12}{'target':>11}   notes")
    for label, value, target, note in rows:
        print(f"{label:<50}{value:>12}{target:>11}   {note}")
    print(f"peak RSS: build {built['peak_mb']:.0f} MB; organizer GUI {gui['gui_peak_mb']:.0f} MB "
          f"({gui['peak_mb']:.0f} MB with the batch comparison)")


if __name__ == "__main__":
    main()
