"""What the hub benchmarks share: a throwaway server, its CPU time, the items, a team.

bench_hub.py and bench_hub_scale.py start the same kind of cluster (PostgreSQL's server
binaries on loopback, fsync on), read the server's CPU time the same way and give each
simulated annotator a login of their own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.hub.cluster import Cluster, server_bindir


@contextmanager
def throwaway_cluster(program: str, **settings) -> Iterator[Cluster]:
    """A running throwaway cluster with its default durability (fsync on), removed
    afterwards; the program exits with one line when the server binaries are missing."""
    bindir = server_bindir()
    if bindir is None:
        sys.exit(f"{program}: PostgreSQL server binaries not found (pg_config --bindir)")
    cluster = Cluster(bindir, fsync=True, **settings)
    cluster.init()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.remove()


def process_cpu(pid: int, children: bool = True) -> int:
    """CPU ticks of a process (user and system), with its reaped children's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15 if children else 13])


def server_cpu(cluster: Cluster) -> float:
    """CPU seconds of the postmaster, its reaped children and its live children."""
    pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    total = process_cpu(pid)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                total += int(stat[11]) + int(stat[12])
    return total / os.sysconf("SC_CLK_TCK")


def items_frame(n: int):
    """n plain items, ids d:1..n."""
    from simrate.core.base.frames import item_frame

    return item_frame({
        "item_id": [f"d:{i}" for i in range(1, n + 1)],
        "left": [f"left text number {i} about one thing" for i in range(1, n + 1)],
        "right": [f"right text number {i} about another" for i in range(1, n + 1)],
        "dataset": ["bench"] * n, "genre": [""] * n, "reference": [float("nan")] * n,
        "meta": [{}] * n, "line": list(range(1, n + 1))})


def add_annotators(hub, project, count: int, prefix: str) -> list[tuple[str, str]]:
    """Add `count` annotators to the project's hub, each with a login of their own
    (`<prefix>_<k>`, password `pw-<k>` in the hub's password file); returns
    [(name, login)], names "<Prefix> <k>"."""
    from simrate.hub.team.people import add_person

    team = []
    for k in range(count):
        name, login = f"{prefix.capitalize()} {k}", f"{prefix}_{k}"
        add_person(project, name, "annotator", f"pw-{k}", login=login)
        hub.remember(login, f"pw-{k}")
        team.append((name, login))
    return team
