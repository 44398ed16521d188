"""Benchmark the project file: import 200,000 pairs, open with 600,000 ratings, commit a rating.

Run: python tests/perf/bench_project.py [--items 200000]
Each stage runs in its own process so that its peak memory (max RSS) is its own.
Targets (issue 2): import <= 5 s and <= 500 MB peak; open to DataFrames <= 2 s;
one durable rating commit <= 5 ms median.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import stages  # tests/perf/stages.py, beside this script

WORDS = ("the a cat dog runs quickly over under market price rises falls bank river "
         "report says minister city team wins loses game plan new old man woman child").split()


def write_pairs(path: Path, n: int) -> None:
    """A TSV of n pairs with a header, about 12 words per text."""
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("id\tsentence1\tsentence2\tgenre\n")
        for i in range(n):
            left = " ".join(rng.choices(WORDS, k=12))
            right = " ".join(rng.choices(WORDS, k=12))
            fh.write(f"p{i}\t{left}\t{right}\tnews\n")


def stage_import(tsv: str, project: str) -> dict:
    from simrate.core.project import Project
    from simrate.formats.readers.detect import read_items

    start = time.perf_counter()
    frame = read_items(tsv, "pairs")
    with Project.create(project, scale="sts") as p:
        added, _ = p.import_items(frame, source=tsv)
    return {"seconds": time.perf_counter() - start, "added": added}


def stage_rate_bulk(project: str, n_raters: int) -> dict:
    """Give every item n_raters ratings through the ratings import path."""
    import numpy as np

    from simrate.core.base.frames import rating_frame
    from simrate.core.project import Project

    with Project.open(project) as p:
        ids = p.item_ids()
        rng = np.random.default_rng(2)
        rows = {"item_id": [], "annotator": [], "score": [], "note": [], "line": []}
        for r in range(n_raters):
            rows["item_id"] += ids
            rows["annotator"] += [f"rater{r + 1}"] * len(ids)
            rows["score"] += list(rng.integers(0, 21, len(ids)) * 0.25)
        n = len(rows["item_id"])
        rows["note"] = [""] * n
        rows["line"] = list(range(2, n + 2))
        start = time.perf_counter()
        counts = p.import_ratings(rating_frame(rows), source="bench")
    return {"seconds": time.perf_counter() - start, **counts}


def stage_open(project: str) -> dict:
    from simrate.core.project import Project

    start = time.perf_counter()
    p = Project.open(project)
    items = p.items()
    ratings = p.ratings()
    seconds = time.perf_counter() - start
    p.close()
    return {"seconds": seconds, "items": len(items), "ratings": len(ratings)}


def stage_commit(project: str, n: int = 500) -> dict:
    from simrate.core.project import Project

    with Project.open(project) as p:
        ids = p.item_ids()
        times = []
        for i in range(n):
            start = time.perf_counter()
            p.rate(ids[i * 97 % len(ids)], "rater1", (i % 21) * 0.25)
            times.append(time.perf_counter() - start)
    return {"median_ms": statistics.median(times) * 1000,
            "p95_ms": sorted(times)[int(0.95 * n)] * 1000}


STAGES = {"import": stage_import, "bulk": stage_rate_bulk, "open": stage_open,
          "commit": stage_commit}


def run_stage(name: str, *args: object) -> dict:
    """Run one stage of this benchmark in a fresh interpreter."""
    return stages.run_stage(__file__, name, *args)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    opts = stages.options_or_stage(parser, STAGES)
    if opts is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        tsv, project = Path(tmp) / "pairs.tsv", Path(tmp) / "bench.simrate"
        write_pairs(tsv, opts.items)
        imp = run_stage("import", tsv, project)
        bulk = run_stage("bulk", project, 3)
        opened = run_stage("open", project)
        commit = run_stage("commit", project)
    print(f"{'stage':<44}{'measured':>14}{'target':>12}{'peak RSS':>12}")
    print(f"{'import ' + format(opts.items, ',') + ' pairs from TSV':<44}"
          f"{imp['seconds']:>12.2f} s{'<= 5 s':>12}{imp['peak_mb']:>9.0f} MB")
    print(f"{'(setup) import ' + format(bulk['added'], ',') + ' ratings':<44}"
          f"{bulk['seconds']:>12.2f} s{'':>12}{bulk['peak_mb']:>9.0f} MB")
    print(f"{'open, items + ratings as DataFrames':<44}{opened['seconds']:>12.2f} s"
          f"{'<= 2 s':>12}{opened['peak_mb']:>9.0f} MB")
    print(f"{'one rating committed (median of 500)':<44}{commit['median_ms']:>11.2f} ms"
          f"{'<= 5 ms':>12}{commit['peak_mb']:>9.0f} MB")
    print(f"{'  (95th percentile)':<44}{commit['p95_ms']:>11.2f} ms")


if __name__ == "__main__":
    main()
