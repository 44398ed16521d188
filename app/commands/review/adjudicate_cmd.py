"""simrate adjudicate PROJECT ITEM_ID SCORE [--note TEXT] [--by NAME] [--withdraw]"""

from __future__ import annotations

import argparse

from simrate.commands.base.option_types import login_name, text_option
from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.core.project import Project


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate adjudicate`."""
    p = sub.add_parser("adjudicate", help="set an item's adjudicated score")
    p.add_argument("project")
    p.add_argument("item_id", metavar="ITEM_ID")
    p.add_argument("score", metavar="SCORE", nargs="?", help="omit with --withdraw")
    p.add_argument("--note", type=text_option, default="")
    p.add_argument("--by", default=None)
    p.add_argument("--withdraw", action="store_true", help="withdraw the adjudication")


def run(args: argparse.Namespace) -> int:
    """Set, revise or (with --withdraw) withdraw an item's adjudicated score."""
    score = None if args.score == "-" else args.score  # "-" stands for no score
    if args.withdraw and (score is not None or args.note):
        given = f"SCORE {score}" if score is not None else "--note"
        raise SimrateError(f"--withdraw takes no SCORE or --note ({given} given): give "
                           "either a SCORE to set or --withdraw")
    by = args.by if args.by is not None else login_name()
    with Project.open(args.project) as project:
        if not project.has_item(args.item_id):
            raise SimrateError(f"no item with id {args.item_id!r} in this project",
                               args.project)
        before = project.adjudications().set_index("item_id")["score"]
        old = before.get(args.item_id)  # the score adjudicated so far, None if none
        if args.withdraw:
            project.adjudicate(args.item_id, None, by=by)
            print(f"{args.item_id}: adjudication {fmt(old)} withdrawn"
                  + (f" by {by}" if by else ""))
            if args.item_id in project.flagged_ids():
                print(f"{args.item_id}: its ratings disagree, so it is flagged again")
            return 0
        if args.score is None:
            raise SimrateError("give the adjudicated SCORE (or --withdraw)")
        code = project.scale.parse(args.score)
        value = project.scale.from_code(code)
        project.adjudicate(args.item_id, value, note=args.note, by=by)
        was = f" (was {fmt(old)})" if old is not None else ""
        print(f"{args.item_id}: adjudicated {fmt(value)}{was}" + (f" by {by}" if by else ""))
    return 0
