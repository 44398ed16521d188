"""simrate crowd review PROJECT STUDY [--json] [--out DIR] [--qualified] [--tolerance X]
simrate crowd bonus PROJECT STUDY (--per-hour RATE | --per-rating AMOUNT) [--top-up-to RATE]
                    [--reward AMOUNT] [--out FILE] [--json]

The two actions after a web study (a part of crowd_cmd.py): the proposal of what to do with
each submission (app/core/team/crowdweb/review.py), and the bonus file Prolific's bulk bonus
takes (app/core/team/crowdweb/pay.py). On an organizer's replica of a hub the study's tasks
are read from the hub first, as `crowd status` does; its ratings are those of the last
`team sync`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parsers(crowd: argparse._SubParsersAction) -> None:
    """`crowd review` and `crowd bonus`."""
    from simrate.commands.base.option_types import finite_float

    q = crowd.add_parser("review", help="approve, ask to return or reject each worker of a "
                                        "web study, with reasons")
    q.add_argument("project")
    q.add_argument("study", metavar="STUDY")
    q.add_argument("--json", action="store_true")
    q.add_argument("--out", default=None, metavar="DIR")
    q.add_argument("--qualified", action="store_true")
    q.add_argument("--tolerance", type=finite_float, default=None, metavar="X")
    q = crowd.add_parser("bonus", help="the ID,amount bonus file of a web study, with totals")
    q.add_argument("project")
    q.add_argument("study", metavar="STUDY")
    pay = q.add_mutually_exclusive_group(required=True)
    pay.add_argument("--per-hour", default=None, metavar="RATE")
    pay.add_argument("--per-rating", default=None, metavar="AMOUNT")
    q.add_argument("--top-up-to", default=None, metavar="RATE")
    q.add_argument("--reward", default="0", metavar="AMOUNT")
    q.add_argument("--out", default=None, metavar="FILE")
    q.add_argument("--json", action="store_true")
    q.add_argument("--tolerance", type=finite_float, default=None, metavar="X")


def _review(args: argparse.Namespace):
    """The study's review, the hub's tasks read first on an organizer's replica."""
    from simrate.core.project import Project
    from simrate.core.team.crowdweb.review import review_study
    from simrate.core.team.web_study import refuse_annotator_replica

    with Project.open(args.project) as project:
        refuse_annotator_replica(project)
        if project.mode.organizer:
            from simrate.hub.team.web_hub import mirror_hub_studies

            mirror_hub_studies(project)
        return review_study(project, args.study, tolerance=args.tolerance)


def run_review(args: argparse.Namespace) -> int:
    """Print (or write) the proposed decision for every worker of the study."""
    review = _review(args)
    if args.out is not None:
        from simrate.services.crowd.crowd_review_files import write_review_files

        written = write_review_files(review, Path(args.out), args.qualified)
    elif args.qualified:
        if not args.json:
            for worker in review.of("approve"):
                print(worker.worker)
        written = []
    else:
        written = []
    if args.json:
        print(json.dumps(review.to_json(), ensure_ascii=False, indent=1))
        return 0
    if args.qualified and args.out is None:
        return 0
    _print_review(review)
    for path in written:
        print(f"wrote {path}")
    return 0


def _print_review(review) -> None:
    counts = review.counts()
    median = "no complete submission" if review.median_seconds is None else \
        f"median time {review.median_seconds / 60:.1f} min"
    print(f"study {review.study!r}: " + ", ".join(f"{n} {d.replace('_', ' ')}"
                                                for d, n in counts.items())
          + f"; {median}; checks fail beyond {review.tolerance:g}")
    for worker in review.workers:
        print(f"  {worker.worker}: {worker.decision.replace('_', ' ')}: "
              + "; ".join(worker.reasons))
        for note in worker.notes:
            print(f"      note: {note}")


def run_bonus(args: argparse.Namespace) -> int:
    """Write (or print) the ID,amount lines of the study's bonuses, with their total."""
    from simrate.core.team.crowdweb.pay import bonus_list, money

    rates = {name: None if getattr(args, name) is None else
             money(getattr(args, name), "--" + name.replace("_", "-"))
             for name in ("per_hour", "per_rating", "top_up_to")}
    reward = money(args.reward, "--reward")
    if args.out is not None:
        from simrate.formats.output.atomic import check_writable_target

        check_writable_target(args.out, [args.project])
    bonuses = bonus_list(_review(args), reward=reward, **rates)
    lines = "".join(f"{worker},{amount}\n" for worker, amount in bonuses.rows())
    if args.out is not None:
        from simrate.services.crowd.crowd_review_files import write_bonus_file

        write_bonus_file(bonuses, args.out)
    if args.json:
        print(json.dumps(bonuses.to_json(), ensure_ascii=False, indent=1))
        return 0
    if args.out is None:
        sys.stdout.write(lines)
    median = "no complete submission" if bonuses.median_seconds is None else \
        f"median time {bonuses.median_seconds / 60:.2f} min"
    where = sys.stdout if args.out is not None else sys.stderr
    print(f"{len(bonuses.bonuses)} bonuses, total {bonuses.total:.2f}; {median}; top-up "
          f"floor {bonuses.floor:.2f}; {len(bonuses.left_out)} workers without a bonus"
          + (f"; written to {args.out}" if args.out else ""), file=where)
    return 0
