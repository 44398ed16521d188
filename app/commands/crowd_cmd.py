"""simrate crowd export PROJECT OUT.csv --per-task K [--checks C] [--seed S]"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from app.core.project import Project
from app.core.team.crowd import batch_frame, make_batch, record_batch


def run(args: argparse.Namespace) -> int:
    """Write the batch CSV a Turk-style platform reads, and record the batch in the project.

    The batch is recorded only once the file is written in full and on disk (before it
    takes its name): a write that fails (a full disk) records nothing, and a record that
    fails leaves no file. Either way the project is as it was."""
    from app.formats.atomic import atomic_open, check_writable_target
    from app.formats.leftovers import is_special

    # a device or pipe (/dev/stdout) is written last, from a finished temporary file
    special = is_special(Path(args.out))
    check_writable_target(args.out, [args.project])  # before the batch is recorded
    with Project.open(args.project) as project:
        batch = make_batch(project, args.per_task, args.checks, args.seed)
        frame = batch_frame(batch, project)
        with atomic_open(args.out) as handle:
            frame.to_csv(handle, index=False, lineterminator="\r\n")
            handle.flush()
            os.fsync(handle.fileno())  # a full disk shows here at the latest
            if not special:
                record_batch(project, batch)
        if special:
            record_batch(project, batch)
    slots = sum(len(ids) for ids in batch.tasks.values())
    print(f"{args.out}: {len(batch.tasks)} tasks of up to {batch.width} items "
          f"({args.per_task} + {args.checks} checks), {slots} slots; batch {batch.name!r} "
          "recorded in the project")
    if frame.shape[0] and len(batch.tasks[frame["task"].iat[-1]]) < batch.width:
        print(f"{args.out}: the last task is shorter; its empty slots have an empty id",
              file=sys.stderr)
    return 0
