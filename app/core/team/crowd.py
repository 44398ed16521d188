"""Crowd batches: tasks of K items plus C check items, and joining the platform's results back.

A batch is cut deterministically from a seed: the items that are not checks, shuffled, in
tasks of K (the last may be shorter); each task gets C check items (distinct within the
task) at random positions, as STS 2012 put one item of known score into every batch of
five. Which item sits in which slot of which task is kept in the project (table
`crowd_tasks`), so results name their task and are checked against it when they come back.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.data.changelog import log_change
from simrate.core.project import Project
from simrate.core.team.quality import check_scores
from simrate.core.team.teamdb import has_table

CROWD_SCHEMA = """
CREATE TABLE IF NOT EXISTS crowd_tasks (
    batch TEXT NOT NULL,
    task TEXT NOT NULL,
    slot INTEGER NOT NULL,
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    is_check INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch, task, slot)
) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class CrowdBatch:
    """Tasks of one batch: task name -> item ids by slot, and which slots hold checks."""

    name: str
    tasks: dict[str, list[str]]
    checks: dict[str, list[bool]]

    @property
    def width(self) -> int:
        """Slots per task (K + C); a shorter last task leaves the rest empty."""
        return max((len(ids) for ids in self.tasks.values()), default=0)


def batch_name(per_task: int, checks: int, seed: int) -> str:
    """The batch's name: the same settings name the same batch."""
    return f"seed{seed}-k{per_task}-c{checks}"


def plan_batch(item_ids: Sequence[str], check_ids: Sequence[str], per_task: int,
               checks: int = 0, seed: int = 0) -> CrowdBatch:
    """Cut items into tasks of `per_task` with `checks` check items each (deterministic)."""
    if per_task < 1:
        raise SimrateError(f"--per-task must be 1 or more, not {per_task}")
    if checks < 0:
        raise SimrateError(f"--checks must be 0 or more, not {checks}")
    if checks > len(check_ids):
        raise SimrateError(f"{checks} check items per task asked for, but the project has "
                           f"{len(check_ids)} (mark some: simrate checks)")
    chosen_ids = list(item_ids)
    if not chosen_ids:
        raise SimrateError("no items to put into tasks (every item is a check item?)")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(chosen_ids))
    tasks: dict[str, list[str]] = {}
    flags: dict[str, list[bool]] = {}
    count = -(-len(chosen_ids) // per_task)
    digits = len(str(count))
    for number in range(count):
        ids = [chosen_ids[i] for i in order[number * per_task:(number + 1) * per_task]]
        is_check = [False] * len(ids)
        if checks:
            for check in rng.choice(len(check_ids), size=checks, replace=False):
                position = int(rng.integers(0, len(ids) + 1))
                ids.insert(position, check_ids[int(check)])
                is_check.insert(position, True)
        name = f"t{number + 1:0{digits}d}"
        tasks[name], flags[name] = ids, is_check
    return CrowdBatch(batch_name(per_task, checks, seed), tasks, flags)


def make_batch(project: Project, per_task: int, checks: int = 0, seed: int = 0) -> CrowdBatch:
    """Plan a batch over the project's items (checks mixed in), writing nothing: the caller
    records it (record_batch) once the batch file is safely written, so that a failed
    export leaves the project as it was."""
    known = check_scores(project)
    items = [i for i in project.item_ids() if i not in known]
    return plan_batch(items, list(known), per_task, checks, seed)


def record_batch(project: Project, batch: CrowdBatch) -> None:
    """Keep which item went to which slot of which task (replacing a batch of that name),
    in one transaction."""
    rows = [(batch.name, task, slot, project.item_ord(item), int(flag))
            for task, ids in batch.tasks.items()
            for slot, (item, flag) in enumerate(zip(ids, batch.checks[task], strict=True), 1)]
    with project.team_tables.transaction() as conn:
        for statement in CROWD_SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("DELETE FROM crowd_tasks WHERE batch = ?", (batch.name,))
        conn.executemany("INSERT INTO crowd_tasks VALUES (?, ?, ?, ?, ?)", rows)
        log_change(conn, "crowd_batch", "", new={"batch": batch.name, "tasks": len(batch.tasks),
                                                "slots": len(rows), "at": time.time()})


def batch_frame(batch: CrowdBatch, project: Project) -> pd.DataFrame:
    """One row per task: batch, task, id1..idN, left1..leftN, right1..rightN (N = K + C)."""
    items = project.items().set_index("item_id")[["left", "right"]]
    width = batch.width
    columns: dict[str, list[str]] = {"batch": [], "task": []}
    for part in ("id", "left", "right"):
        for slot in range(1, width + 1):
            columns[f"{part}{slot}"] = []
    for task, ids in batch.tasks.items():
        columns["batch"].append(batch.name)
        columns["task"].append(task)
        padded = list(ids) + [None] * (width - len(ids))
        for slot, item in enumerate(padded, 1):
            columns[f"id{slot}"].append(item or "")
            columns[f"left{slot}"].append(items.at[item, "left"] if item else "")
            columns[f"right{slot}"].append(items.at[item, "right"] if item else "")
    return pd.DataFrame(columns)


def recorded_slots(project: Project) -> dict[tuple[str, str, int], str]:
    """{(batch, task, slot): item id} of every recorded batch."""
    if not has_table(project, "crowd_tasks"):
        return {}
    rows = project.team_tables.read("SELECT c.batch, c.task, c.slot, i.id FROM crowd_tasks c "
                        "JOIN items i ON i.ord = c.item_ord")
    return {(batch, task, slot): item for batch, task, slot, item in rows}
