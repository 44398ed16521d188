"""Benchmark: the dataset folder against the JSONL export, 200,000 items x 3 raters.

Run: python tests/perf/bench_dataset.py [--items N] [--repeat R]

Builds the project of bench_export.py once, then runs `simrate export ... --allow-unresolved`
(the real command, each in a fresh subprocess) as JSONL and as `--format dataset`, taking
turns so that other work on the machine weighs on both alike. Prints each run, the medians
and their ratio; the issue's goal is a dataset export in at most twice the JSONL time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.perf.bench_export import RATERS, build_project  # noqa: E402

GOAL = 2.0
CHILD = """
import resource, sys, time
from simrate.cli import main
start, cpu = time.perf_counter(), time.process_time()
status = main(["export", *sys.argv[1:], "--allow-unresolved"])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"RESULT {status} {seconds:.3f} {cpu:.3f} {peak:.1f}")
"""


def run(args: list[str]) -> tuple[float, float, float]:
    """(seconds inside the command, CPU seconds, peak MB) of one export in a fresh process."""
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT")), None)
    if line is None or line.split()[1] != "0":
        raise SystemExit(f"export failed:\n{done.stdout}\n{done.stderr}")
    _, _, seconds, cpu, peak = line.split()
    return float(seconds), float(cpu), float(peak)


def folder_size(path: Path) -> float:
    """MB of the files under `path` (or of the file)."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 2**20


def main() -> None:
    """Build once; JSONL and dataset exports in turn; medians and ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        project = folder / "bench.simrate"
        built = build_project(project, args.items)
        print(f"built {args.items:,} items x {len(RATERS)} ratings in {built:.1f} s "
              f"(python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average "
              f"{os.getloadavg()[0]:.1f}, {args.repeat} runs each, in turns)\n")
        times: dict[str, list[float]] = {"jsonl": [], "dataset": []}
        cpus: dict[str, list[float]] = {"jsonl": [], "dataset": []}
        peaks: dict[str, float] = {"jsonl": 0.0, "dataset": 0.0}
        outs = {"jsonl": folder / "gold.jsonl", "dataset": folder / "dataset-0"}
        for n in range(args.repeat):
            for fmt in ("jsonl", "dataset"):
                out = outs[fmt] if fmt == "jsonl" else folder / f"dataset-{n}"
                extra = ["--format", "dataset"] if fmt == "dataset" else []
                seconds, cpu, peak = run([str(project), str(out), *extra])
                times[fmt].append(seconds)
                cpus[fmt].append(cpu)
                peaks[fmt] = max(peaks[fmt], peak)
                print(f"run {n + 1}: {fmt:<8}{seconds:>8.2f} s, {cpu:.2f} s CPU, load "
                      f"{os.getloadavg()[0]:.1f}")
        report(times, cpus, peaks, outs)


def report(times: dict, cpus: dict, peaks: dict, outs: dict) -> None:
    """The medians side by side and the ratios (wall clock, and CPU time)."""
    print(f"\n{'format':<9}{'median s':>10}{'CPU s':>8}{'peak MB':>10}{'size MB':>10}")
    medians = {fmt: statistics.median(values) for fmt, values in times.items()}
    cpu = {fmt: statistics.median(values) for fmt, values in cpus.items()}
    for fmt in times:
        print(f"{fmt:<9}{medians[fmt]:>10.2f}{cpu[fmt]:>8.2f}{peaks[fmt]:>10.0f}"
              f"{folder_size(outs[fmt]):>10.1f}")
    ratio = medians["dataset"] / medians["jsonl"]
    print(f"\ndataset / jsonl = {ratio:.2f} (goal <= {GOAL:g}): "
          + ("ok" if ratio <= GOAL else "OVER")
          + f"; CPU time {cpu['dataset'] / cpu['jsonl']:.2f}")


if __name__ == "__main__":
    main()
