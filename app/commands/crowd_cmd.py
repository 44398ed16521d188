"""simrate crowd export PROJECT OUT.csv --per-task K [--checks C] [--seed S]"""

from __future__ import annotations

import argparse
import sys

from app.core.project import Project
from app.core.team.crowd import batch_frame, make_batch


def run(args: argparse.Namespace) -> int:
    """Write the batch CSV a Turk-style platform reads, and record the batch in the project."""
    from app.formats.atomic import atomic_open, check_writable_target

    check_writable_target(args.out, [args.project])  # before the batch is recorded
    with Project.open(args.project) as project:
        batch = make_batch(project, args.per_task, args.checks, args.seed)
        frame = batch_frame(batch, project)
    with atomic_open(args.out) as handle:
        frame.to_csv(handle, index=False, lineterminator="\r\n")
    slots = sum(len(ids) for ids in batch.tasks.values())
    print(f"{args.out}: {len(batch.tasks)} tasks of up to {batch.width} items "
          f"({args.per_task} + {args.checks} checks), {slots} slots; batch {batch.name!r} "
          "recorded in the project")
    if frame.shape[0] and len(batch.tasks[frame["task"].iat[-1]]) < batch.width:
        print(f"{args.out}: the last task is shorter; its empty slots have an empty id",
              file=sys.stderr)
    return 0
