"""Benchmark the dashboard's interval job on the crowd shape: old (dense) beside new (long form).

Run: python tests/perf/bench_intervals.py [--items 200000] [--repeats 3] [--level interval]
                                          [--baseline REV]
The crowd ratings of issue 17 (tests/perf/crowd_data.py: 5 ratings per item from 500 skewed
workers) are held as the engine holds them, an items x raters array of step codes, with the
crowd project's scopes (one dataset, one genre; all items and the unadjudicated ones, here the
items whose ratings span at most 1.5 points). Each measurement runs in a fresh interpreter:
- "old": the code of commit REV (default: the one before the long-form bootstrap), extracted
  with `git archive` to a temporary folder: the job's snapshot copy, then `scope_intervals`;
- "new": this checkout: `scope_ratings` (what the GUI thread now hands over), then
  `scope_intervals`.
Reported per variant: median wall time of the job (hand-over included; the hand-over alone
is what the GUI thread spends), the job's peak RSS
above the process before it (VmHWM reset through /proc/self/clear_refs), the process' peak
RSS, and whether both variants gave the same intervals. Target: job under 1 GB, not slower.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script
from crowd_data import crowd_ratings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("SIMRATE_BENCH_ROOT", str(ROOT)))

#: The commit before the interval job worked in long form.
BASELINE = "928a5af"


def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise KeyError(field)


def _snapshot(items: int):
    """The engine's snapshot of the crowd project (codes 0-20 for 0-5 in quarter points)."""
    import numpy as np

    from simrate.core.agreement.scopes import MISSING, Snapshot

    item, worker, score = crowd_ratings(items)
    codes = np.full((items, 500), MISSING, dtype=np.int16)
    codes[item, worker] = np.rint(score * 4).astype(np.int16)
    spread = np.ptp(np.rint(score * 4).reshape(items, -1), axis=1)
    try:  # this tree holds the codes sparsely; the baseline's engine held the dense array
        from simrate.core.agreement.snapshot import SparseCodes

        codes = SparseCodes.from_dense(codes)
    except ImportError:
        pass
    groups = {"dataset": np.zeros(items, np.int32), "genre": np.zeros(items, np.int32)}
    return Snapshot([f"i{n}" for n in range(items)], {"dataset": [""], "genre": [""]},
                    groups, [f"w{n}" for n in range(500)], codes, spread <= 6, [], 21,
                    0.0, 0.25)


def stage_job(impl: str, items: int, level: str) -> dict:
    """Time one interval job over every scope; memory above the process before it."""
    from simrate.core.agreement import scopes

    snapshot = _snapshot(items)
    keys = [(grouping, "" if grouping else scopes.OVERALL, subset)
            for subset in scopes.SUBSETS for grouping in (scopes.OVERALL, "dataset", "genre")]
    gc.collect()
    before = _status_mb("VmRSS")
    with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")  # the high-water mark starts again from here
    start = time.perf_counter()
    handed = snapshot.copy() if impl == "old" else scopes.scope_ratings(snapshot)
    handover = time.perf_counter() - start
    result = scopes.scope_intervals(handed, level, keys)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "handover_ms": handover * 1000,
            "job_mb": _status_mb("VmHWM") - before, "before_mb": before,
            "intervals": [list(result[key]) if result[key] else None for key in keys]}


STAGES = {"job": stage_job}


def baseline_tree(rev: str, folder: str) -> str:
    """The `app` package of commit `rev`, unpacked under `folder`."""
    archive = Path(folder) / "baseline.tar"
    subprocess.run(["git", "archive", "-o", str(archive), rev, "app"], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--level", default="interval")
    parser.add_argument("--baseline", default=BASELINE)
    opts = stages.options_or_stage(parser, STAGES)
    if opts is None:
        return
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as folder:
        roots = {"old": baseline_tree(opts.baseline, folder), "new": str(ROOT)}
        for _ in range(opts.repeats):  # alternated, so both see the same machine load
            for impl in ("old", "new"):
                runs[impl].append(stages.run_stage(
                    __file__, "job", impl, opts.items, opts.level,
                    env={"SIMRATE_BENCH_ROOT": roots[impl]}))
    print(f"interval job, {opts.items:,} items x 5 ratings from 500 workers, 6 scopes, "
          f"{opts.level}, 1000 replicates; medians of {opts.repeats} (old = {opts.baseline})")
    summary = {}
    for impl, results in runs.items():
        summary[impl] = {key: statistics.median(r[key] for r in results)
                         for key in ("seconds", "handover_ms", "job_mb", "before_mb",
                                    "peak_mb")}
        summary[impl]["job_mb_max"] = max(r["job_mb"] for r in results)
        s = summary[impl]
        print(f"  {impl}: {s['seconds']:.2f} s (hand-over on the GUI thread "
              f"{s['handover_ms']:.0f} ms), job peak +{s['job_mb']:.0f} MB "
              f"(max +{s['job_mb_max']:.0f}) over {s['before_mb']:.0f} MB, "
              f"process peak {s['peak_mb']:.0f} MB")
    same = runs["old"][0]["intervals"] == runs["new"][0]["intervals"]
    old, new = summary["old"], summary["new"]
    print(f"  new/old: time {new['seconds'] / old['seconds']:.2f}x, job memory "
          f"{new['job_mb'] / old['job_mb']:.3f}x; same intervals: {same}")
    print(json.dumps({**summary, "same": same, "intervals": runs["new"][0]["intervals"]}))


if __name__ == "__main__":
    main()
