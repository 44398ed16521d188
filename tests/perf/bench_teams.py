"""Benchmark: team work on a large project (assignment, package, merge, annotator report).

Run: python tests/perf/bench_teams.py [N_ITEMS]   (default 100,000 items, 3 annotators)
Each step runs in a fresh subprocess (in this order: later steps use earlier results) so
that its peak memory is its own: ru_maxrss for the process, tracemalloc for the step.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

#: step name -> (project file it starts from, code run on `project`)
STEPS = {
    "assign 3 annotators, 2 per item": ("base", """
from simrate.core.team.assignment import assign_project
assign_project(project, ["a", "b", "c"], 2, seed=1)
"""),
    "package for one annotator": ("base", """
from simrate.core.team.packages import make_package
make_package(project, folder / f"pkg-{time.time_ns()}.simrate", "a")
"""),
    "merge package (all new ratings)": ("base", """
from simrate.core.team.package_merge import merge_package
merge_package(project, folder / "rated.simrate")
"""),
    "merge the same package again": ("merged", """
from simrate.core.team.package_merge import merge_package
merge_package(project, folder / "rated.simrate")
"""),
    "annotator report (3 raters x all items)": ("merged", """
from simrate.core.team.quality import annotator_report
annotator_report(project)
"""),
}

RUNNER = """
import json, resource, shutil, sys, time, tracemalloc
from pathlib import Path
sys.path.insert(0, {root!r})
from simrate.core.project import Project
folder = Path({folder!r})
work = folder / f"work-{{time.time_ns()}}.simrate"
shutil.copy(folder / "{start}.simrate", work)  # every run starts from the same state
project = Project.open(work)
if {trace}:
    tracemalloc.start()
started = time.perf_counter()
{code}
seconds = time.perf_counter() - started
step_mb = tracemalloc.get_traced_memory()[1] / 2**20 if {trace} else 0.0
project.close()
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": seconds, "step_mb": step_mb, "peak_mb": peak_mb}}))
"""


def build(folder: Path, n_items: int) -> None:
    """base: n items rated by b and c, 1% checks; rated: a's package, rated; merged: both."""
    from simrate.core.base.frames import item_frame, rating_frame
    from simrate.core.project import Project
    from simrate.core.team.package_merge import merge_package
    from simrate.core.team.packages import make_package
    from simrate.core.team.quality import set_checks

    ids = [f"d:{i}" for i in range(n_items)]
    rng = np.random.default_rng(0)
    with Project.create(folder / "base.simrate", scale="sts") as project:
        project.import_items(item_frame({
            "item_id": ids, "left": [f"left text {i}" for i in range(n_items)],
            "right": [f"right text {i}" for i in range(n_items)], "dataset": ["d"] * n_items,
            "genre": [""] * n_items, "reference": [float("nan")] * n_items,
            "meta": [{}] * n_items, "line": list(range(1, n_items + 1))}))
        for name in ("b", "c"):
            project.import_ratings(rating_frame({
                "item_id": ids, "annotator": [name] * n_items,
                "score": rng.integers(0, 21, n_items) * 0.25, "note": [""] * n_items,
                "line": list(range(1, n_items + 1))}))
        set_checks(project, {ids[i]: float(i % 6) for i in range(0, n_items, 100)})
        make_package(project, folder / "rated.simrate", "a")
    with Project.open(folder / "rated.simrate") as package:
        package.import_ratings(rating_frame({
            "item_id": package.item_ids(), "annotator": ["a"] * package.n_items,
            "score": rng.integers(0, 21, package.n_items) * 0.25,
            "note": [""] * package.n_items, "line": list(range(1, package.n_items + 1))}))
    shutil.copy(folder / "base.simrate", folder / "merged.simrate")
    with Project.open(folder / "merged.simrate") as project:
        merge_package(project, folder / "rated.simrate")


def _run_step(folder: Path, start: str, code: str, trace: bool) -> dict:
    """Run one step in a fresh interpreter on a copy of `start`; its figures as a dict."""
    script = RUNNER.format(root=str(ROOT), folder=str(folder), start=start, code=code.strip(),
                           trace=trace)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Build the project once, then time each step in its own process."""
    import stages  # tests/perf/stages.py, beside this script

    n_items = stages.positionals(__doc__, ("items", int, 100_000, "items")).items
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        build(folder, n_items)
        print(f"setup ({n_items:,} items, 2 raters, 1% checks): "
              f"{time.perf_counter() - started:.1f} s")
        print(f"{'step':<42} {'seconds':>8} {'peak MB':>8} {'of which step':>14}")
        for name, (start, code) in STEPS.items():
            timed = _run_step(folder, start, code, trace=False)
            traced = _run_step(folder, start, code, trace=True)
            print(f"{name:<42} {timed['seconds']:>8.2f} {timed['peak_mb']:>8.0f} "
                  f"{traced['step_mb']:>14.0f}")
        print("peak MB: whole process, ru_maxrss (Python, pandas, opening the project); "
              "of which step: peak allocated during the step (tracemalloc, in a second, "
              "untimed run)")


if __name__ == "__main__":
    main()
