"""Benchmark: exporting 200,000 items with 3 ratings each, in every format.

Run: python tests/perf/bench_export.py [--items N] [--formats tsv,xlsx,...]

Builds the project once (Project.import_items + import_ratings), then runs each export in a
fresh subprocess (`simrate export ... --allow-unresolved`, the real command) and reports
wall time and the child's peak resident memory (ru_maxrss), side by side. Budgets from
the issue: TSV at most 3 s; XLSX at most 60 s and 1 GB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from simrate.core.base.frames import item_frame, rating_frame  # noqa: E402
from simrate.core.project import Project  # noqa: E402

BUDGETS = {"tsv": (3.0, None), "xlsx": (60.0, 1024.0)}
EXTENSIONS = {"tsv": "tsv", "csv": "csv", "jsonl": "jsonl", "sts": "txt", "pit": "label",
              "xlsx": "xlsx"}
RATERS = ("ann", "bob", "cy")


def build_project(path: Path, n_items: int) -> float:
    """A 0-5 project with n items and 3 ratings per item; returns seconds taken."""
    start = time.perf_counter()
    rng = np.random.default_rng(2012)
    ids = [f"bench:{i}" for i in range(1, n_items + 1)]
    words = np.array("a man is playing the guitar while woman slices onion on board".split())
    lefts = [" ".join(words[rng.integers(0, len(words), 9)]) for _ in range(n_items)]
    rights = [" ".join(words[rng.integers(0, len(words), 8)]) for _ in range(n_items)]
    datasets = np.array(["MSRpar", "MSRvid", "SMTeuroparl", "OnWN"])[np.arange(n_items) % 4]
    items = item_frame({
        "item_id": ids, "left": lefts, "right": rights, "dataset": datasets.tolist(),
        "genre": [""] * n_items, "reference": [float("nan")] * n_items,
        "meta": [{}] * n_items, "line": list(range(1, n_items + 1)),
    })
    truth = rng.integers(0, 21, n_items)
    noise = rng.integers(-2, 3, (len(RATERS), n_items))
    codes = np.clip(truth + noise, 0, 20)
    ratings = rating_frame({
        "item_id": ids * len(RATERS),
        "annotator": [name for name in RATERS for _ in range(n_items)],
        "score": (codes.reshape(-1) * 0.25).tolist(),
        "note": [""] * (n_items * len(RATERS)),
        "line": list(range(2, n_items * len(RATERS) + 2)),
    })
    with Project.create(path, scale="sts", title="benchmark") as project:
        project.import_items(items, source="bench")
        project.import_ratings(ratings, source="bench")
    return time.perf_counter() - start


CHILD = """
import resource, sys, time
from simrate.cli import main
start = time.perf_counter()
status = main(["export", sys.argv[1], sys.argv[2], "--allow-unresolved"])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"RESULT {status} {seconds:.3f} {peak:.1f}")
"""


def run_export(project: Path, out: Path) -> tuple[int, float, float, float]:
    """(exit status, seconds inside the command, seconds with start-up, peak MB)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(project), str(out)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT")), None)
    if line is None:
        raise SystemExit(f"export failed:\n{done.stdout}\n{done.stderr}")
    _, status, seconds, peak = line.split()
    return int(status), float(seconds), wall, float(peak)


def main() -> None:
    """Build once, export in each format, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--formats", default="tsv,csv,jsonl,sts,pit,xlsx")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per format; the fastest is shown (other work on the "
                             "machine only ever slows a run down)")
    args = parser.parse_args()
    formats = args.formats.split(",")
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "bench.simrate"
        built = build_project(project, args.items)
        print(f"built {args.items:,} items x {len(RATERS)} ratings in {built:.1f} s "
              f"(python {sys.version.split()[0]}, pandas {pd.__version__}, "
              f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}, "
              f"best of {args.repeat})\n")
        print(f"{'format':<7}{'command s':>11}{'with start-up s':>17}{'peak MB':>10}"
              f"{'file MB':>10}  budget")
        for fmt in formats:
            out = Path(folder) / f"gold.{EXTENSIONS[fmt]}"
            runs = [run_export(project, out) for _ in range(args.repeat)]
            status = max(r[0] for r in runs)
            seconds, wall = min(r[1] for r in runs), min(r[2] for r in runs)
            peak = max(r[3] for r in runs)
            size = out.stat().st_size / 2**20
            limit_s, limit_mb = BUDGETS.get(fmt, (None, None))
            verdict = ""
            if limit_s is not None:
                ok = seconds <= limit_s and (limit_mb is None or peak <= limit_mb)
                verdict = (f"<= {limit_s:g} s" + (f", <= {limit_mb:g} MB" if limit_mb else "")
                           + ("  ok" if ok else "  OVER"))
            print(f"{fmt:<7}{seconds:>11.2f}{wall:>17.2f}{peak:>10.0f}{size:>10.1f}  {verdict}"
                  + ("" if status == 0 else f"  (exit {status})"))


if __name__ == "__main__":
    main()
