"""simrate checks PROJECT [ITEM_ID...] [--from-reference] [--score X] [--remove] [--dataset D]"""

from __future__ import annotations

import argparse
import json

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.core.project import Project
from simrate.core.team.quality import check_scores, mark_checks_from_reference, set_checks

#: Check items listed in the text output; --json gives all.
LISTED = 20


def _check_options(args: argparse.Namespace, ids: list[str]) -> None:
    """Refuse combinations where one option would silently win over another."""
    ways = [flag for flag, on in (("--remove", args.remove), ("--score", args.score is not None),
                                  ("--from-reference", args.from_reference)) if on]
    if len(ways) > 1:
        raise SimrateError(f"give one of --remove, --score X, --from-reference, not "
                           f"{' and '.join(ways)}")
    if ids and args.dataset is not None:
        raise SimrateError("give either ITEM_IDs or --dataset D: with item ids, "
                           "--dataset would be ignored")
    if args.dataset is not None and (not ways or args.score is not None):
        raise SimrateError("--dataset chooses the items of --from-reference or --remove; "
                           + ("--score applies to the ITEM_IDs given" if ways
                              else "the listing shows every check item"))
    if args.by is not None and not ways:
        raise SimrateError("--by names who made a change for the log: give it with "
                           "--remove, --score or --from-reference")


def _change(project: Project, args: argparse.Namespace) -> str | None:
    """Apply the marking asked for; a line saying what changed, or None for a listing."""
    ids = list(args.item_ids)
    by = args.by or ""
    _check_options(args, ids)
    if args.remove:
        if not ids and args.dataset is None:
            raise SimrateError("--remove needs the ITEM_IDs (or --dataset D) to unmark")
        if not ids:
            items = project.items()
            in_dataset = set(items.loc[items["dataset"] == args.dataset, "item_id"])
            ids = [i for i in check_scores(project) if i in in_dataset]
        count = set_checks(project, {i: None for i in ids}, by=by)
        return f"{count} check items unmarked"
    if args.score is not None:
        if not ids:
            raise SimrateError("--score needs the ITEM_IDs it applies to")
        try:  # typed like a rating, so read like one: on the grid, never underflowing
            score = project.scale.grid_value(project.scale.parse(args.score))
        except SimrateError as exc:
            raise SimrateError(f"--score: {exc.message}") from None
        count = set_checks(project, {i: score for i in ids}, by=by)
        return f"{count} check items set to {fmt(score)}"
    if args.from_reference:
        count = mark_checks_from_reference(project, ids or None, dataset=args.dataset, by=by)
        return f"{count} items marked as checks with their reference scores"
    if ids:
        raise SimrateError("say how to mark them: --from-reference or --score X (or --remove)")
    return None


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate checks` (its item ids may come before or after its options)."""
    p = sub.add_parser("checks", help="mark items of known score as check items")
    p.add_argument("project")
    p.add_argument("item_ids", nargs="*", metavar="ITEM_ID")
    p.add_argument("--from-reference", action="store_true")
    p.add_argument("--score", help="the known score, a value of the project's scale")
    p.add_argument("--remove", action="store_true")
    p.add_argument("--dataset")
    p.add_argument("--by", default=None)
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Mark or unmark check items, then list them."""
    with Project.open(args.project) as project:
        said = _change(project, args)
        checks = check_scores(project)
    if args.json:
        print(json.dumps(checks, ensure_ascii=False))
        return 0
    if said:
        print(said)
    print(f"{len(checks)} check items")
    for item_id, score in list(checks.items())[:LISTED]:
        print(f"  {item_id}\t{score:g}")
    if len(checks) > LISTED:
        print(f"  ... and {len(checks) - LISTED} more (--json lists all)")
    return 0
