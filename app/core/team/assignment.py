"""Overlap assignment: give every item to k of n annotators, balanced and reproducible."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import name_problem
from simrate.core.base.names import nfc, rater_key
from simrate.core.data import meta as meta_table
from simrate.core.data.changelog import log_change
from simrate.core.data.store import read_meta
from simrate.core.edits.roster import kind_clash
from simrate.core.project import Project
from simrate.core.team.teamdb import ensure_team_tables, has_table


@dataclass(frozen=True)
class AssignmentPlan:
    """Which annotators rate which items, and how the plan was made."""

    items: dict[str, list[str]]  # annotator -> item ids, in the order the items were given
    per_item: int
    seed: int

    def loads(self) -> dict[str, int]:
        """Number of items per annotator."""
        return {name: len(ids) for name, ids in self.items.items()}

    def overlaps(self) -> dict[tuple[str, str], int]:
        """Number of items each pair of annotators shares."""
        sets = {name: set(ids) for name, ids in self.items.items()}
        names = list(sets)
        return {(a, b): len(sets[a] & sets[b])
                for i, a in enumerate(names) for b in names[i + 1:]}


def check_names(annotators: Sequence[str]) -> list[str]:
    """Stripped annotator names; SimrateError for an empty or repeated name."""
    names = [nfc(str(name).strip()) for name in annotators]
    for name in names:
        problem = name_problem(name)
        if problem:
            raise SimrateError(problem)
    keys = [rater_key(name) for name in names]  # `ana` and `ANA` are one annotator
    repeated = sorted({name for name, key in zip(names, keys, strict=True)
                       if keys.count(key) > 1})
    if repeated:
        raise SimrateError(f"annotator named twice: {', '.join(repeated)}")
    return names


def assign(item_ids: Sequence[str], annotators: Sequence[str], per_item: int,
           seed: int = 0) -> AssignmentPlan:
    """Give each item to `per_item` distinct annotators.

    Loads differ by at most one item between annotators. Among equally loaded choices the
    one that has shared the fewest items with the annotators already chosen for this item
    wins, so every pair of annotators overlaps on about the same number of items (pairwise
    agreement then rests on comparable evidence). Remaining ties are broken by a generator
    seeded with `seed`: the same inputs give the same plan.
    """
    names = check_names(annotators)
    n = len(names)
    if not names:
        raise SimrateError("assignment needs at least one annotator")
    if not 1 <= per_item <= n:
        raise SimrateError(f"each item can get 1 to {n} annotators, not {per_item}")
    rng = random.Random(seed)
    order = list(item_ids)
    rng.shuffle(order)  # so that no annotator gets a whole run of one dataset
    load = [0] * n
    shared = [[0] * n for _ in range(n)]
    chosen_for: dict[str, list[int]] = {}
    for item_id in order:
        chosen: list[int] = []
        ties = [rng.random() for _ in range(n)]
        for _slot in range(per_item):
            best = min((a for a in range(n) if a not in chosen),
                       key=lambda a: (load[a], sum(shared[a][c] for c in chosen), ties[a]))
            chosen.append(best)
        for a in chosen:
            load[a] += 1
            for c in chosen:
                if c != a:
                    shared[a][c] += 1
        chosen_for[item_id] = chosen
    by_name: dict[str, list[str]] = {name: [] for name in names}
    for item_id in item_ids:  # back to the caller's (project) order
        for a in chosen_for[item_id]:
            by_name[names[a]].append(item_id)
    return AssignmentPlan(by_name, per_item, seed)


def assign_project(project: Project, annotators: Sequence[str], per_item: int, seed: int = 0,
                   dataset: str | None = None, by: str = "") -> AssignmentPlan:
    """Assign the project's items (check items aside) and store the plan, replacing any other.

    Check items are left out because every package carries them anyway. With `dataset`, only
    that dataset's items are assigned. Packages made afterwards use the stored plan; the change
    is logged.
    """
    from simrate.core.team.quality import check_scores

    items = project.items()
    if dataset is not None:
        items = items[items["dataset"] == dataset]
        if items.empty:
            raise SimrateError(f"no items in dataset {dataset!r}", project.path)
    checks = check_scores(project)
    item_ids = [i for i in items["item_id"] if i not in checks]
    if not item_ids:
        raise SimrateError("no items to assign (only check items?)", project.path)
    known = project.roster.kinds()
    annotators = [project.roster.name_of(name) for name in check_names(annotators)]
    for name in annotators:  # an assignment is people's work
        if known.get(name, "human") != "human":
            raise SimrateError(kind_clash(name, known[name], "human"), project.path)
    plan = assign(item_ids, annotators, per_item, seed)
    rows = [(project.item_ord(item_id), name) for name, ids in plan.items.items()
            for item_id in ids]
    settings = {"annotators": list(plan.items), "per_item": per_item, "seed": seed,
                "dataset": dataset, "items": len(item_ids), "at": time.time()}
    with project.team_tables.transaction() as conn:
        ensure_team_tables(conn)
        old = read_meta(conn, "assignment")
        conn.execute("DELETE FROM assignment")
        conn.executemany("INSERT INTO assignment VALUES (?, ?)", rows)
        meta_table.set_assignment(conn, json.dumps(settings))
        log_change(conn, "assign", who=by, old=json.loads(old) if old else None, new=settings)
    return plan


def stored_assignment(project: Project) -> dict[str, list[str]]:
    """The stored plan: annotator -> item ids in project order ({} when none was made)."""
    if not has_table(project, "assignment"):
        return {}
    settings = assignment_settings(project)
    plan: dict[str, list[str]] = {name: [] for name in settings["annotators"]} if settings else {}
    for item_id, name in project.team_tables.read("SELECT i.id, a.annotator FROM assignment a "
                                      "JOIN items i ON i.ord = a.item_ord ORDER BY a.item_ord"):
        plan.setdefault(name, []).append(item_id)
    return plan


def assignment_settings(project: Project) -> dict | None:
    """How the stored plan was made (annotators, per_item, seed, dataset, items, at), or None."""
    settings = project.meta("assignment")
    return json.loads(settings) if settings else None
