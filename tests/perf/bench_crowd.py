"""Benchmark the crowd shape of issue 17: 200,000 items x 5 ratings from 500 skewed workers.

Run: python tests/perf/bench_crowd.py [--items 200000] [--turk-rows 1000000] [--repeats 3]
Side by side in one run, each measurement in a fresh process (median wall time, peak RSS):
- `simrate agreement --ratings FILE --level all --json`, whole process (target <= 5 s, 1 GB);
- the same inside a project (`simrate agreement PROJECT --level all --json`);
- batch alpha (all four levels) from long-form ratings beside the dense batch alpha on the
  500 x 200,000 matrix (the reference of the same run; the issue measured 6 s and 1.6 GB);
- importing a Turk batch results file of N rows, one item per row (target <= 30 s at 1M).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script
from crowd_data import crowd_ratings, write_long_csv

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def whole_process(args: list[str], repeats: int) -> dict:
    """Median wall time and the largest peak RSS of `python -m simrate ARGS` over `repeats` runs."""
    times, peaks = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "simrate", *args],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        times.append(time.perf_counter() - start)
        peaks.append(int(out.stderr.strip().splitlines()[-1]) / 1024)
    return {"seconds": statistics.median(times), "peak_mb": max(peaks)}


def stage_alpha(impl: str, items: int) -> dict:
    import numpy as np

    from simrate.core.agreement.sparse import LEVELS, LongRatings, long_alpha

    item, worker, score = crowd_ratings(items)
    start = time.perf_counter()
    if impl == "dense":
        from simrate.core.agreement import alpha

        data = np.full((500, items), np.nan)
        data[worker, item] = score
        values = [alpha(data, level) for level in LEVELS]
    else:
        long = LongRatings(item, worker, score, [str(i) for i in range(items)],
                           [str(w) for w in range(500)])
        values = [long_alpha(long, level)[0] for level in LEVELS]
    return {"seconds": time.perf_counter() - start, "values": values}


def write_turk(path: Path, rows: int) -> None:
    """A Turk results file of `rows` assignments, one item each (texts quoted, entities)."""
    item, worker, score = crowd_ratings(rows // 5 + 1)
    head = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
            "Input.id1", "Input.left1", "Input.right1", "Answer.score1"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(head)
        for n in range(rows):
            writer.writerow([f"H{item[n]}", f"A{n}", f"W{worker[n]}", "Approved", "31",
                             f"i{item[n]}", f"A man&#44; {item[n]}", "A woman", score[n]])


def stage_project(folder: str, items: int) -> dict:
    """Build a project with the crowd ratings (not timed)."""
    import pandas as pd

    from simrate.core.base.frames import item_frame
    from simrate.core.project import Project
    from simrate.formats.readers.ratings import read_ratings

    path = Path(folder) / "crowd.simrate"
    with Project.create(path, scale="sts") as project:
        ids = [f"i{n}" for n in range(items)]
        project.import_items(item_frame({
            "item_id": ids, "left": ids, "right": ids, "dataset": [""] * items,
            "genre": [""] * items, "reference": [float("nan")] * items,
            "meta": [{}] * items, "line": list(range(1, items + 1))}), source="x")
        frame = read_ratings(Path(folder) / "crowd.csv")
        project.import_ratings(pd.DataFrame(frame), source="crowd.csv")
    return {"path": str(path)}


STAGES = {"alpha": stage_alpha, "project": stage_project}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--turk-rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    opts = stages.options_or_stage(parser, STAGES)
    if opts is None:
        return
    with tempfile.TemporaryDirectory() as folder:
        ratings = write_long_csv(Path(folder) / "crowd.csv", opts.items)
        print(f"crowd shape: {opts.items:,} items x 5 ratings from 500 skewed workers")
        cli = whole_process(["agreement", "--ratings", str(ratings), "--level", "all",
                             "--json"], opts.repeats)
        print(f"  agreement --ratings FILE --level all --json: {cli['seconds']:.2f} s, "
              f"{cli['peak_mb']:.0f} MB   target <= 5 s, <= 1024 MB: "
              f"{'ok' if cli['seconds'] <= 5 and cli['peak_mb'] <= 1024 else 'MISSED'}")
        project = stages.run_stage(__file__, "project", folder, opts.items)["path"]
        inside = whole_process(["agreement", project, "--level", "all", "--json"], opts.repeats)
        print(f"  agreement PROJECT --level all --json:       {inside['seconds']:.2f} s, "
              f"{inside['peak_mb']:.0f} MB   target <= 5 s, <= 1024 MB: "
              f"{'ok' if inside['seconds'] <= 5 and inside['peak_mb'] <= 1024 else 'MISSED'}")
        dense = stages.run_stage(__file__, "alpha", "dense", opts.items)
        long = stages.run_stage(__file__, "alpha", "long", opts.items)
        same = all(abs(a - b) < 1e-9 for a, b in zip(dense["values"], long["values"],
                                                      strict=True))
        print(f"  batch alpha, 4 levels: long-form {long['seconds']:.2f} s "
              f"({long['peak_mb']:.0f} MB), dense matrix {dense['seconds']:.2f} s "
              f"({dense['peak_mb']:.0f} MB): {dense['seconds'] / long['seconds']:.0f}x, "
              f"same values: {same}")
        turk = Path(folder) / "Batch_1_batch_results.csv"
        write_turk(turk, opts.turk_rows)
        subprocess.run([sys.executable, "-m", "simrate", "new", str(Path(folder) / "t.simrate"),
                        "--scale", "sts"], check=True, capture_output=True, cwd=ROOT)
        done = whole_process(["import", str(Path(folder) / "t.simrate"), str(turk)], 1)
        print(f"  import of {opts.turk_rows:,} Turk result rows: {done['seconds']:.1f} s, "
              f"{done['peak_mb']:.0f} MB   target <= 30 s: "
              f"{'ok' if done['seconds'] <= 30 else 'MISSED'}")
    print(json.dumps({"cli": cli, "project": inside, "dense": dense["seconds"],
                      "long": long["seconds"], "turk": done}))


if __name__ == "__main__":
    main()
