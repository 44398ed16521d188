"""A simulated web study with planted careless workers, run through the same core calls the
server makes (lease and rate_slot), on a clock of our own so that time on task is known."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from simrate.core.base.frames import item_frame
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.quality import set_checks

KINDS = ("careful", "random", "straight", "fast")
T0 = 1_800_000_000.0


@dataclass
class Planted:
    """What the simulation made: each worker's kind, server-side seconds and ratings."""

    kinds: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    ratings: dict[str, int] = field(default_factory=dict)
    end: float = T0


def make_items(path: Path, items: int, checks: int, rng: random.Random) -> dict[str, float]:
    """A CLSS project of `items` pairs and `checks` check items; returns every item's truth."""
    ids = [f"i{n:04d}" for n in range(items)] + [f"c{n:02d}" for n in range(checks)]
    truth = {i: rng.uniform(0.25, 3.75) for i in ids}
    frame = item_frame({"item_id": ids, "left": [f"left {i}" for i in ids],
                        "right": [f"right {i}" for i in ids], "dataset": [""] * len(ids),
                        "genre": [""] * len(ids), "reference": [float("nan")] * len(ids),
                        "meta": [{} for _ in ids], "line": list(range(1, len(ids) + 1))})
    with Project.create(path, "clss") as project:
        project.import_items(frame, source="test")
        set_checks(project, {i: round(truth[i] * 4) / 4 for i in ids if i.startswith("c")})
    return truth


def _score(kind: str, truth: float, bias: float, noise: float, rng: random.Random,
           constant: float) -> str:
    if kind == "random":
        value = rng.randrange(17) / 4
    elif kind == "straight":
        value = constant
    else:
        value = truth + bias + rng.gauss(0, noise)
    return f"{min(4.0, max(0.0, round(value * 4) / 4)):g}"


def _pace(kind: str, rng: random.Random) -> float:
    return rng.uniform(0.4, 1.5) if kind == "fast" else rng.uniform(8, 30)


def run_worker(project: Project, study: str, worker: str, kind: str, truth: dict,
               start: float, rng: random.Random, stop_after: int | None = None) -> float:
    """One worker's task from Start to the last rating (or `stop_after` ratings); returns
    the time of the last rating."""
    lease = web.lease(project, study, worker, session=f"S{worker}", now=start)
    bias, noise = rng.uniform(-0.3, 0.3), rng.uniform(0.25, 0.55)
    if kind == "fast":
        noise = 1.0
    constant, now, done = rng.choice([2.0, 3.0, 4.0]), start, 0
    while (slot := web.next_slot(project, lease)) is not None:
        if stop_after is not None and done == stop_after:
            break
        now += _pace(kind, rng)
        item = slot.left.removeprefix("left ")
        score = _score(kind, truth[item], bias, noise, rng, constant)
        lease, _ = web.rate_slot(project, study, lease.cookie, lease.token, slot.slot, score,
                                 now=now)
        done += 1
    return now


def simulate(path: Path, workers: int = 200, careless_share: float = 0.2,
             timed_out: int = 4, seed: int = 7) -> Planted:
    """A study `s` of tasks of 10 pairs and 4 checks, `workers` workers of whom a share is
    careless (random, straight-lining, too fast in turn), then `timed_out` who stop early."""
    rng = random.Random(seed)
    truth = make_items(path, items=workers * 2 + 40, checks=24, rng=rng)
    planted = Planted()
    careless = round(workers * careless_share)
    kinds = [KINDS[1 + n % 3] for n in range(careless)] + ["careful"] * (workers - careless)
    rng.shuffle(kinds)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=10, checks=4, per_item=5, lease_minutes=60)
        for n, kind in enumerate(kinds):
            worker, start = f"W{n:03d}", T0 + 40 * n
            end = run_worker(project, "s", worker, kind, truth, start, rng)
            planted.kinds[worker] = kind
            planted.seconds[worker] = end - start
            planted.ratings[worker] = 14
            planted.end = max(planted.end, end)
        for n in range(timed_out):
            worker = f"T{n:02d}"
            start = T0 + 40 * (workers + n)
            run_worker(project, "s", worker, "careful", truth, start, rng, stop_after=3)
            planted.kinds[worker] = "timed_out"
    return planted
