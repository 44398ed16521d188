"""simrate package PROJECT OUT.simrate --annotator NAME [--dataset D] [--sample N --seed S]"""

from __future__ import annotations

import argparse

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.packages import make_package


def run(args: argparse.Namespace) -> int:
    """Write one annotator's package and say what went into it."""
    if args.seed is not None and args.sample is None and args.checks is None:
        raise SimrateError("--seed chooses the draw of --sample N (or --checks K); without "
                           "either every item goes in, so give --sample N or leave --seed out")
    with Project.open(args.project) as project:
        info = make_package(
            project, args.out, args.annotator, dataset=args.dataset, sample=args.sample,
            seed=args.seed or 0, checks=args.checks,
        )
    own = f", {info.own_ratings} of their earlier ratings" if info.own_ratings else ""
    print(f"{info.path}: package for {info.annotator}: {info.items} items "
          f"({info.checks} of them check items){own}")
    return 0
