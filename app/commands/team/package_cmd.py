"""simrate package PROJECT OUT.simrate --annotator NAME [--dataset D] [--sample N --seed S]"""

from __future__ import annotations

import argparse

from simrate.commands.base.option_types import count
from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted
from simrate.core.project import Project
from simrate.core.team.packages import make_package


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate package`."""
    p = sub.add_parser("package", help="write a standalone project for one annotator")
    p.add_argument("project")
    p.add_argument("out", metavar="OUT.simrate")
    p.add_argument("--annotator", required=True)
    p.add_argument("--dataset")
    p.add_argument("--sample", type=count)
    p.add_argument("--seed", type=count, default=None,
                   help="the draw of --sample and --checks (0)")
    p.add_argument("--checks", type=count, default=None, metavar="K",
                   help="mix in K check items (default: all)")


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
    print(f"{info.path}: package for {info.annotator}: {counted(info.items, 'item')} "
          f"({info.checks} of them check items){own}")
    return 0
