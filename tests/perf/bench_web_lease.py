"""Benchmark: the hub's cost of one task start (`simrate.web_lease`) as the study grows.

Run: python tests/perf/bench_web_lease.py [--starts 200]
Needs PostgreSQL's server binaries (pg_config --bindir) and, as root, the `postgres` user.

Two studies on one throwaway server, side by side in one run: a small one (2,000 pairs,
10 open tasks) and the goal's size (200,000 pairs, 1,000 open tasks without a rating).
Each start is timed by the server itself (EXPLAIN ANALYZE's execution time, so no round
trip and no client is counted); reported: median and p95 per start for each study and
the ratio large / small. Goal: at most 2 ms per start at the large size, and a ratio near
1 (a start does a constant amount of work whatever the pool and the open tasks).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hub.hubs import Hub  # noqa: E402
from tests.hub.webhub import published_study  # noqa: E402
from tests.perf.hub_setup import throwaway_cluster  # noqa: E402

GOAL_MS = 2.0
LEASE = "SELECT * FROM simrate.web_lease('s', %s, '', '', %s)"


def _address(n: int) -> str:
    return f"198.18.{n // 250}.{n % 250 + 1}"


def _study(cluster, folder: Path, name: str, pairs: int, open_tasks: int, starts: int
           ) -> list[float]:
    """Milliseconds of server time per start, after `open_tasks` unrated leases."""
    folder.mkdir(parents=True, exist_ok=True)
    hub = Hub(cluster, name, folder)
    os.environ["PGPASSFILE"] = str(hub.passfile)
    published_study(hub, folder, items=pairs, checks=3, per_task=10, n_checks=1,
                    per_item=3, annotator=None)
    times = []
    with hub.admin() as conn:
        for n in range(open_tasks):
            conn.execute(LEASE, (f"open{n}", _address(n)))
        conn.execute("ANALYZE")
        for n in range(starts):
            plan = conn.execute("EXPLAIN (ANALYZE, TIMING OFF) " + LEASE,
                                (f"new{n}", _address(open_tasks + n))).fetchall()
            found = re.search(r"Execution Time: ([0-9.]+) ms", "\n".join(r[0] for r in plan))
            times.append(float(found.group(1)))
            conn.execute("SELECT simrate.web_release('s', ARRAY(SELECT task FROM "
                         "simrate.web_tasks WHERE worker = %s), true)", (f"new{n}",))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=200, help="timed starts per study")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    with throwaway_cluster("bench_web_lease") as cluster, \
            tempfile.TemporaryDirectory() as tmp:
        small = _study(cluster, Path(tmp) / "small", "small", 2_000, 10, args.starts)
        large = _study(cluster, Path(tmp) / "large", "large", 200_000, 1_000, args.starts)
    res = {name: {"median_ms": statistics.median(t),
                  "p95_ms": statistics.quantiles(t, n=20)[-1]}
           for name, t in (("small", small), ("large", large))}
    res["ratio"] = res["large"]["median_ms"] / res["small"]["median_ms"]
    print(f"small (2,000 pairs, 10 open tasks):       median {res['small']['median_ms']:.2f} "
          f"ms, p95 {res['small']['p95_ms']:.2f} ms")
    print(f"large (200,000 pairs, 1,000 open tasks): median {res['large']['median_ms']:.2f} "
          f"ms, p95 {res['large']['p95_ms']:.2f} ms (goal {GOAL_MS} ms)")
    print(f"large / small: {res['ratio']:.2f}")
    if args.json:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
