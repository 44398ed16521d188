"""simrate assign PROJECT NAME... --per-item K [--seed S] [--dataset D] [--json]"""

from __future__ import annotations

import argparse
import json

from simrate.commands.base.option_types import count as count_option
from simrate.core.base.wording import counted
from simrate.core.project import Project
from simrate.core.team.assignment import assign_project


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate assign`."""
    p = sub.add_parser("assign", help="split items among annotators, K per item")
    p.add_argument("project")
    p.add_argument("annotators", nargs="+", metavar="NAME")
    p.add_argument("--per-item", type=count_option, required=True, metavar="K")
    p.add_argument("--seed", type=count_option, default=0)
    p.add_argument("--dataset")
    p.add_argument("--by", default=None)
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Split the project's items among the annotators, k per item, and store the plan."""
    with Project.open(args.project) as project:
        plan = assign_project(project, args.annotators, args.per_item, seed=args.seed,
                              dataset=args.dataset, by=args.by or "")
    loads, overlaps = plan.loads(), plan.overlaps()
    if args.json:
        print(json.dumps({
            "per_item": plan.per_item, "seed": plan.seed, "items": loads,
            "overlap": {f"{a}|{b}": n for (a, b), n in overlaps.items()},
        }, ensure_ascii=False))
        return 0
    print(f"{args.project}: each item to {plan.per_item} of {len(loads)} annotators "
          f"(seed {plan.seed}); packages now follow this plan")
    for name, count in loads.items():
        print(f"  {name}: {counted(count, 'item')}")
    for (a, b), count in overlaps.items():
        print(f"  {a} & {b}: {counted(count, 'item')} in common")
    return 0
