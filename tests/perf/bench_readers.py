"""Benchmark the item readers on 200,000 pairs: time and peak memory, side by side.

Run: python tests/perf/bench_readers.py [N_PAIRS]
Each case runs in a fresh interpreter; memory is the growth of the peak resident set
over the interpreter after imports (resource.getrusage), times the best of 3 runs
(wall clock, and CPU time, which is steadier on a busy machine).
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORDS = ("the a of river city council train night new old small large blue quick voted "
         "opened closed said will after before during market bread music film team players "
         "scored goal early late morning evening summer winter rain snow because although").split()
BUDGET_SECONDS = 2.0

CASE_SCRIPT = r"""
import gc, json, resource, sys, time
sys.path.insert(0, {root!r})
import pandas as pd
from simrate.formats.readers.detect import detect_format, read_items
from simrate.formats.readers.pairs import read_pairs
from simrate.formats.readers.sts import read_sts
from simrate.formats.readers.ratings import read_ratings
calls = {{
    "pairs_tsv": lambda: read_pairs({tsv!r}),
    "pairs_csv_quoted": lambda: read_pairs({csv!r}),
    "sts": lambda: read_sts({sts!r}),
    "detect+read_items": lambda: read_items({tsv!r}, detect_format({tsv!r})),
    "ratings_wide": lambda: read_ratings({wide!r}),
    "pandas.read_csv (baseline, no checks)": lambda: pd.read_csv(
        {tsv!r}, sep="\t", dtype=str, keep_default_na=False, quoting=3),
}}
call = calls[{case!r}]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times, cpu = [], []
for _ in range(3):
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    frame = call()
    times.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
    rows = len(frame)
    del frame
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": min(times), "cpu": min(cpu), "rows": rows,
                  "peak_mb": (peak - base) / 1024}}))
"""


def sentence(rng: random.Random) -> str:
    """A 10-14 word sentence of filler words."""
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 14))).capitalize() + "."


def write_inputs(folder: Path, n_pairs: int) -> dict[str, str]:
    """Write the generated input files; return their paths by role."""
    rng = random.Random(1)
    pairs = [(f"p{n}", sentence(rng), sentence(rng), rng.choice(("news", "travel"))) for n in
             range(n_pairs)]
    tsv = folder / "big.tsv"
    with tsv.open("w", encoding="utf-8", newline="") as out:
        out.write("item_id\tleft\tright\tgenre\n")
        out.writelines(f"{i}\t{a}\t{b}\t{g}\n" for i, a, b, g in pairs)
    quoted = folder / "big.csv"
    with quoted.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(("item_id", "left", "right", "genre"))
        writer.writerows((i, f'"{a}", she said', b, g) for i, a, b, g in pairs)
    sts = folder / "STS.input.big.txt"
    with sts.open("w", encoding="utf-8", newline="") as out:
        out.writelines(f"{a}\t{b}\n" for _, a, b, _ in pairs)
    wide = folder / "ratings.tsv"
    with wide.open("w", encoding="utf-8", newline="") as out:
        out.write("item_id\tana\tben\tchloe\n")
        out.writelines(f"{i}\t{rng.randint(0, 16) / 4}\t{rng.randint(0, 16) / 4}\t\n"
                       for i, _, _, _ in pairs)
    return {"tsv": str(tsv), "csv": str(quoted), "sts": str(sts), "wide": str(wide)}


def run_case(case: str, paths: dict[str, str]) -> dict:
    """Time one case in a fresh interpreter."""
    script = CASE_SCRIPT.format(root=str(ROOT), case=case, **paths)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    """Generate the files, run every case, print the table."""
    import stages  # tests/perf/stages.py, beside this script

    n_pairs = stages.positionals(__doc__, ("pairs", int, 200_000, "pairs to write")).pairs
    cases = ("pairs_tsv", "pairs_csv_quoted", "sts", "detect+read_items", "ratings_wide",
             "pandas.read_csv (baseline, no checks)")
    with tempfile.TemporaryDirectory() as folder:
        paths = write_inputs(Path(folder), n_pairs)
        size_mb = Path(paths["tsv"]).stat().st_size / 1e6
        print(f"{n_pairs:,} pairs; TSV {size_mb:.1f} MB; best of 3; budget {BUDGET_SECONDS} s")
        print(f"{'case':40} {'rows':>9} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
        for case in cases:
            figures = run_case(case, paths)
            print(f"{case:40} {figures['rows']:>9,} {figures['seconds']:>8.3f} "
                  f"{figures['cpu']:>8.3f} {figures['peak_mb']:>8.0f}")


if __name__ == "__main__":
    main()
