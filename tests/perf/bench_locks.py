"""Benchmark lock waits: the worst time one rating takes while others write at once.

Run: python tests/perf/bench_locks.py [--seconds 20] [--writers 4] [--import-items 20000]
Four processes rate as fast as they can (each rating its own durable transaction) while a
fifth imports batches of new items; every rate() call is timed. The reference, in the same
run, is one process rating alone. Target (issue 13): the worst wait stays below 1 s, and no
call fails with "database is locked".
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import tempfile
import time
from pathlib import Path


def _items(n: int, prefix: str):
    from simrate.core.base.frames import item_frame
    return item_frame({
        "item_id": [f"{prefix}:{i}" for i in range(n)],
        "left": [f"left text number {i} of {prefix}" for i in range(n)],
        "right": [f"right text number {i} of {prefix}" for i in range(n)],
        "dataset": ["d"] * n, "genre": [""] * n, "reference": [float("nan")] * n,
        "meta": [None] * n, "line": list(range(1, n + 1))})


def rater(path: str, name: str, until: float, out) -> None:
    """Rate items round and round until `until`; send back each call's seconds."""
    from simrate.core.base.errors import SimrateError
    from simrate.core.project import Project
    project = Project.open(path)
    ids, times, failures, k = project.item_ids()[:500], [], 0, 0
    while time.time() < until:
        start = time.perf_counter()
        try:
            project.rate(ids[k % len(ids)], name, float(k % 5))
        except SimrateError:
            failures += 1
        times.append(time.perf_counter() - start)
        k += 1
    out.put((name, times, failures))


def importer(path: str, n: int, until: float, out) -> None:
    """Import batches of n new items until `until`; send back each import's seconds."""
    from simrate.core.project import Project
    project = Project.open(path)
    times, batch = [], 0
    while time.time() < until:
        start = time.perf_counter()
        project.import_items(_items(n, f"batch{batch}"), "bench")
        times.append(time.perf_counter() - start)
        batch += 1
    out.put(("import", times, 0))


def run(path: str, writers: int, seconds: float, import_items: int) -> dict:
    """Start the processes, wait, and collect their timings."""
    out = mp.Queue()
    until = time.time() + 1.5 + seconds  # all have opened the project before the start
    procs = [mp.Process(target=rater, args=(path, f"rater{w}", until, out))
             for w in range(writers)]
    if import_items:
        procs.append(mp.Process(target=importer, args=(path, import_items, until, out)))
    for proc in procs:
        proc.start()
    results = [out.get() for _ in procs]
    for proc in procs:
        proc.join()
    return {name: (times, failures) for name, times, failures in results}


def summary(label: str, times: list[float], failures: int) -> str:
    times = sorted(times)
    p99 = times[int(0.99 * (len(times) - 1))]
    return (f"{label:<26} calls {len(times):>7}  median {statistics.median(times) * 1e3:7.2f} ms"
            f"  p99 {p99 * 1e3:7.2f} ms  worst {times[-1] * 1e3:8.1f} ms  failed {failures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--import-items", type=int, default=20_000)
    args = parser.parse_args()
    from simrate.core.project import Project
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "bench.simrate")
        project = Project.create(path)
        project.import_items(_items(1000, "base"))
        project.close()
        alone = run(path, 1, args.seconds / 2, 0)
        busy = run(path, args.writers, args.seconds, args.import_items)
    times, failures = alone["rater0"]
    print(summary("reference: one rater alone", times, failures))
    all_times = [t for name, (ts, _) in busy.items() if name != "import" for t in ts]
    all_failures = sum(f for name, (_, f) in busy.items() if name != "import")
    print(summary(f"{args.writers} raters + an import", all_times, all_failures))
    imports = busy["import"][0] if "import" in busy else []
    if imports:
        print(f"imports of {args.import_items} items: {len(imports)}, median "
              f"{statistics.median(imports):.2f} s")
    worst = max(all_times)
    print(f"worst wait {worst:.3f} s (target < 1 s): {'met' if worst < 1 and not all_failures else 'NOT met'}; "
          f"median ratio busy/alone {statistics.median(all_times) / statistics.median(times):.1f}x")


if __name__ == "__main__":
    main()
