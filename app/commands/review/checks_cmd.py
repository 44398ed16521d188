"""simrate checks PROJECT [ITEM_ID...] [--from-reference [--sample N|P%|all] [--seed S]] [--score X]
[--remove] [--dataset D]"""

from __future__ import annotations

import argparse
import json
import sys

from simrate.commands.base.option_types import count
from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import fmt
from simrate.core.base.wording import counted
from simrate.core.project import Project
from simrate.core.team.quality import check_scores, mark_checks_from_reference, set_checks

#: Check items listed in the text output; --json gives all.
LISTED = 20
#: Share (%) of the items --from-reference marks where every item has a reference score:
#: about one check per ten rated items, as a task of 10 items with 1 check serves them.
DEFAULT_SHARE = 10.0


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
    if (args.sample is not None or args.seed is not None) and not args.from_reference:
        raise SimrateError("--sample and --seed choose among the items --from-reference marks")
    if args.by is not None and not ways:
        raise SimrateError("--by names who made a change for the log: give it with "
                           "--remove, --score or --from-reference")


def sample_option(text: str) -> str:
    """--sample: a number of items, a share such as 10%, or `all`."""
    value = text.strip().lower()
    try:
        number = float(value[:-1]) if value.endswith("%") else int(value)
    except ValueError:
        if value == "all":
            return value
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a number of items, a share such as 10%, nor all") from None
    if not (0 < number <= 100 if value.endswith("%") else number >= 1):
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 item or more, or a share of "
                                         "more than 0% and at most 100%")
    return value


def _sample_size(project: Project, args: argparse.Namespace, ids: list[str]) -> int | None:
    """How many of the items with a reference score --from-reference marks (None: all).

    Where every item has a reference score (a shared task's test set read with its gold),
    marking them all would leave nothing to rate: unless told, a share is drawn, and said.
    """
    if ids:
        if args.sample is not None:
            raise SimrateError("--sample draws among the items with a reference score: "
                               "give it without ITEM_IDs")
        return None
    items = project.items()
    if args.dataset is not None:
        items = items[items["dataset"] == args.dataset]
    known = int(items["reference"].notna().sum())
    asked = args.sample
    if asked is None:
        if known < len(items) or known < 2:
            return None  # some items carry a reference: those are the checks meant
        asked = f"{DEFAULT_SHARE:g}%"
        size = max(1, round(known * DEFAULT_SHARE / 100))
        print(f"every one of the {known:,} items has a reference score: {size:,} of them "
              f"({asked}) drawn as check items, the others left to rate (--sample N or P% "
              "for another number, --sample all for every one)", file=sys.stderr)
        return size
    if asked == "all":
        return None
    if asked.endswith("%"):
        return max(1, round(known * float(asked[:-1]) / 100))
    return int(asked)


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
        return f"{counted(count, 'check item')} unmarked"
    if args.score is not None:
        if not ids:
            raise SimrateError("--score needs the ITEM_IDs it applies to")
        try:  # typed like a rating, so read like one: on the grid, never underflowing
            score = project.scale.grid_value(project.scale.parse(args.score))
        except SimrateError as exc:
            raise SimrateError(f"--score: {exc.message}") from None
        count = set_checks(project, {i: score for i in ids}, by=by)
        return f"{counted(count, 'check item')} set to {fmt(score)}"
    if args.from_reference:
        count = mark_checks_from_reference(project, ids or None, dataset=args.dataset, by=by,
                                           sample=_sample_size(project, args, ids),
                                           seed=args.seed or 0)
        return f"{counted(count, 'item')} marked as checks with their reference scores"
    if ids:
        raise SimrateError("say how to mark them: --from-reference or --score X (or --remove)")
    return None


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate checks` (its item ids may come before or after its options)."""
    p = sub.add_parser("checks", help="mark items of known score as check items")
    p.add_argument("project")
    p.add_argument("item_ids", nargs="*", metavar="ITEM_ID")
    p.add_argument("--from-reference", action="store_true")
    p.add_argument("--sample", type=sample_option, default=None, metavar="N|P%|all",
                   help="with --from-reference: how many of the items with a reference score "
                        f"to mark, drawn at random (default: all of them, but {DEFAULT_SHARE:g}%% "
                        "where every item has one)")
    p.add_argument("--seed", type=count, default=None, metavar="S",
                   help="with --sample: the draw (0); the same seed draws the same items")
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
    print(counted(len(checks), "check item"))
    for item_id, score in list(checks.items())[:LISTED]:
        print(f"  {item_id}\t{score:g}")
    if len(checks) > LISTED:
        print(f"  ... and {len(checks) - LISTED} more (--json lists all)")
    return 0
