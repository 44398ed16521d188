"""The long multi-process soak of issue 22 (the CI test runs it for 60 s).

    python tests/perf/bench_soak.py [--seconds 600] [--rounds 3]

Each round: a window (offscreen) typing ratings into an annotator's replica, two CLI readers
(`info`, `flagged`) in a loop and a `team sync` loop on the same file, kill -9 of the window
and of syncs at random moments; then every rating the window acknowledged is looked up on
the hub and in the organizer's replica. Prints one line per round and the totals; a round
that lost or misplaced a rating, or saw a deleted WAL, makes the exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.hub.cluster import Cluster, server_bindir  # noqa: E402
from tests.hub.hubs import Hub  # noqa: E402
from tests.hub.soak import run_soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    bindir = server_bindir()
    if bindir is None:
        print("PostgreSQL server binaries not found (pg_config --bindir)", file=sys.stderr)
        return 1
    cluster = Cluster(bindir, fsync=True)
    cluster.init()
    cluster.start()
    bad = 0
    totals = {"acknowledged": 0, "window_kills": 0, "sync_kills": 0, "reads": 0, "syncs": 0}
    try:
        for k in range(args.rounds):
            with tempfile.TemporaryDirectory() as folder:
                hub = Hub(cluster, f"soak_{k}", Path(folder))
                os.environ["PGPASSFILE"] = str(hub.passfile)
                result = run_soak(hub, Path(folder), args.seconds, seed=k + 1,
                                  n_items=max(1500, int(args.seconds * 25)))
                hub.drop()
            lost = (len(result.missing_on_hub) + len(result.missing_at_organizer)
                    + len(result.deleted_seen) + len(result.errors))
            bad += lost > 0
            print(f"round {k + 1}: {result.seconds:.0f} s, {len(result.acknowledged)} ratings "
                  f"acknowledged, {result.window_kills} window kills, {result.sync_kills} sync "
                  f"kills, {result.reads} CLI reads, {result.syncs} syncs; missing on hub "
                  f"{len(result.missing_on_hub)}, at organizer "
                  f"{len(result.missing_at_organizer)}, deleted WAL seen "
                  f"{len(result.deleted_seen)}, errors {result.errors[:3]}", flush=True)
            totals["acknowledged"] += len(result.acknowledged)
            for key in ("window_kills", "sync_kills", "reads", "syncs"):
                totals[key] += getattr(result, key)
    finally:
        cluster.remove()
    print("total: " + ", ".join(f"{key} {value}" for key, value in totals.items())
          + f"; rounds with a loss: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
