"""simrate package PROJECT OUT.simrate --annotator NAME [--dataset D] [--sample N --seed S]"""

from __future__ import annotations

import argparse

from app.core.project import Project
from app.core.team.packages import make_package


def run(args: argparse.Namespace) -> int:
    """Write one annotator's package and say what went into it."""
    with Project.open(args.project) as project:
        info = make_package(
            project, args.out, args.annotator, dataset=args.dataset, sample=args.sample,
            seed=args.seed, checks=args.checks,
        )
    own = f", {info.own_ratings} of their earlier ratings" if info.own_ratings else ""
    print(f"{info.path}: package for {info.annotator}: {info.items} items "
          f"({info.checks} of them check items){own}")
    return 0
