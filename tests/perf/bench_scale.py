"""Benchmark simrate at scale: every command, whole-process, beside a reference from the same run.

Run: python tests/perf/bench_scale.py [--sizes 200000,1000000] [--repeat 3] [--only info,...]

For each size N it writes N pairs (TSV) and 3N ratings (long CSV), then runs each simrate
command as its own process (`python -m simrate ...`), median of --repeat runs, with the peak
RSS of the process (from `resource.getrusage(RUSAGE_CHILDREN)` of a one-shot wrapper).
Beside each command it prints a reference measured in the same run, also whole-process:
pandas reading the same files (`pd.read_csv`), or for alpha the one-pass numpy floor; the
ratio command / reference is what to compare across machines.

Targets (issue 18): info 0.3 s at 200k, 1 s at 1M; agreement --level all 1.5 s / 5 s;
import of 600k ratings 4 s, 3M ratings 20 s; XLSX export at 200k 30 s and 600 MB; file at
most 1.5x the raw data; batch alpha within 3x of the floor; peak RSS under 1.5 GB at 1M.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORDS = ("the a cat dog runs quickly over under market price rises falls bank river "
         "report says minister city team wins loses game plan new old man woman child").split()
#: A wrapper that runs one command and prints its wall time and its peak RSS (of children).
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if done.returncode:
    sys.stderr.write(done.stderr.decode())
print(json.dumps({"seconds": seconds, "peak_mb": peak, "rc": done.returncode}))
"""
PANDAS_READ = ("import pandas as pd, sys\n"
               "for f in sys.argv[1:]: pd.read_csv(f, sep='\\t' if f.endswith('.tsv') else ',')")


def write_data(folder: Path, n: int) -> tuple[Path, Path]:
    """pairs.tsv with n pairs (about 12 words per text) and ratings.csv with 3 raters each."""
    rng = random.Random(1)
    pairs, ratings = folder / "pairs.tsv", folder / "ratings.csv"
    with open(pairs, "w", encoding="utf-8") as fh:
        fh.write("id\tsentence1\tsentence2\tgenre\n")
        for i in range(n):
            left, right = " ".join(rng.choices(WORDS, k=12)), " ".join(rng.choices(WORDS, k=12))
            fh.write(f"p{i}\t{left}\t{right}\t{('news', 'forum', 'fiction')[i % 3]}\n")
    with open(ratings, "w", encoding="utf-8") as fh:
        fh.write("item_id,annotator,score,note\n")
        for r in range(3):
            for i in range(n):
                base = (i * 7919) % 21
                code = min(20, max(0, base + rng.choice((-2, -1, 0, 0, 0, 1, 2))))
                fh.write(f"p{i},rater{r + 1},{code * 0.25:g},\n")
    return pairs, ratings


def timed(argv: list[str], repeat: int, before: list[str] | None = None) -> dict:
    """Median wall time and largest peak RSS of `repeat` runs of argv (each after `before`)."""
    runs = []
    for _ in range(repeat):
        if before:
            subprocess.run(before, check=True, capture_output=True)
        out = subprocess.run([sys.executable, "-c", WRAPPER, *argv], capture_output=True,
                             text=True, check=True)
        result = json.loads(out.stdout)
        if result["rc"]:
            raise SystemExit(f"failed: {' '.join(argv)}\n{out.stderr}")
        runs.append(result)
    return {"seconds": statistics.median(r["seconds"] for r in runs),
            "peak_mb": max(r["peak_mb"] for r in runs)}


def simrate(*args: object) -> list[str]:
    """The argv of one simrate command."""
    return [sys.executable, "-m", "simrate", *map(str, args)]


def measure_size(n: int, repeat: int, only: set[str], folder: Path) -> list[tuple]:
    """Rows (what, measured, reference name, reference) for one size."""
    pairs, ratings = write_data(folder, n)
    project, fresh = folder / "p.simrate", folder / "fresh.simrate"
    rows = []
    ref_pairs = timed([sys.executable, "-c", PANDAS_READ, str(pairs)], repeat)
    ref_ratings = timed([sys.executable, "-c", PANDAS_READ, str(ratings)], repeat)
    ref_both = timed([sys.executable, "-c", PANDAS_READ, str(pairs), str(ratings)], repeat)
    subprocess.run(simrate("new", fresh, "--scale", "sts"), check=True, capture_output=True)
    if "import" in only:
        make_empty = [sys.executable, "-c", f"import shutil; shutil.copy({str(fresh)!r}, "
                      f"{str(project)!r})"]
        rows.append((f"import {n:,} pairs", timed(simrate("import", project, pairs), repeat,
                                                  make_empty), "pandas reads the TSV", ref_pairs))
    _fresh_project(fresh, project, pairs)
    with_items = folder / "items.simrate"
    shutil.copy(project, with_items)
    restore = [sys.executable, "-c", f"import shutil; shutil.copy({str(with_items)!r}, "
               f"{str(project)!r})"]
    if "import" in only:
        rows.append((f"import {3 * n:,} ratings",
                     timed(simrate("import", project, ratings), repeat, restore),
                     "pandas reads the CSV", ref_ratings))
    subprocess.run(restore, check=True)
    subprocess.run(simrate("import", project, ratings), check=True, capture_output=True)
    for name, argv in (("info", simrate("info", project)),
                       ("agreement --level all --ci",
                        simrate("agreement", project, "--level", "all", "--ci")),
                       ("flagged", simrate("flagged", project, "--json"))):
        if name.split()[0] in only:
            rows.append((name, timed(argv, repeat), "pandas reads both files", ref_both))
    if "xlsx" in only:
        out = folder / "out.xlsx"
        rows.append(("export xlsx", timed(simrate("export", project, out, "--allow-unresolved"),
                                          max(1, repeat // 2)),
                     "pandas reads both files", ref_both))
    if "size" in only:
        raw = pairs.stat().st_size + ratings.stat().st_size
        rows.append(("file size", {"mb": project.stat().st_size / 2 ** 20},
                     "the two input files", {"mb": raw / 2 ** 20}))
    if "alpha" in only:
        rows += _alpha_rows(n, repeat)
    return rows


def _fresh_project(fresh: Path, project: Path, pairs: Path) -> None:
    shutil.copy(fresh, project)
    subprocess.run(simrate("import", project, pairs), check=True, capture_output=True)


def _alpha_rows(n: int, repeat: int) -> list[tuple]:
    """Batch alpha per level against the numpy floor, in-process (both median of repeat)."""
    out = subprocess.run([sys.executable, str(HERE / "bench_alpha_floor.py"), str(n),
                          str(max(repeat, 5))], capture_output=True, text=True, check=True)
    rows = []
    for level, (ours, floor) in json.loads(out.stdout).items():
        rows.append((f"batch alpha, {level}", {"seconds": ours}, "numpy floor",
                     {"seconds": floor}))
    return rows


def render(n: int, rows: list[tuple]) -> list[str]:
    """Table lines for one size."""
    lines = [f"\n{n:,} items x 3 ratings",
             f"{'what':<32}{'measured':>10}{'peak':>9}   {'reference':<26}{'ref':>9}{'ratio':>7}"]
    for what, got, ref_name, ref in rows:
        if "mb" in got:
            lines.append(f"{what:<32}{got['mb']:>7.0f} MB{'':>9}   {ref_name:<26}"
                         f"{ref['mb']:>6.0f} MB{got['mb'] / ref['mb']:>7.2f}")
            continue
        peak = f"{got['peak_mb']:>6.0f} MB" if "peak_mb" in got else f"{'':>9}"
        unit, scale = ("ms", 1000) if got["seconds"] < 0.1 else ("s", 1)
        lines.append(f"{what:<32}{got['seconds'] * scale:>8.2f} {unit:<2}{peak}   "
                     f"{ref_name:<26}{ref['seconds'] * scale:>6.2f} {unit:<2}"
                     f"{got['seconds'] / ref['seconds']:>7.2f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="import,info,agreement,flagged,xlsx,size,alpha")
    opts = parser.parse_args()
    only = set(opts.only.split(","))
    os.chdir(ROOT)  # `python -m simrate` from the checkout
    for n in (int(s) for s in opts.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            print("\n".join(render(n, measure_size(n, opts.repeat, only, Path(tmp)))),
                  flush=True)


if __name__ == "__main__":
    main()
