"""simrate flagged PROJECT [--rule {auto,range,uncertain}] [--threshold POINTS] [--json]"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from simrate.commands.base.option_types import finite_float
from simrate.core.base.flagrule import RULES, FlagRule
from simrate.core.base.scale import fmt
from simrate.core.project import Project
from simrate.core.review.gold import flagged_list


def flagged_items(project: Project, threshold: float | None = None) -> pd.DataFrame:
    """Flagged items (item_id, spread, ratings), largest spread first.

    With no threshold, or the project's own, this is the project's live flag index under
    its rule; another threshold is a one-off view that does not change the project's
    setting: the `uncertain` rule at that SD when the project's rule is `uncertain`, else
    the `range` rule at that spread (the meaning --threshold had before there were rules).
    """
    rule = project.flag_rule
    if threshold is None or threshold == rule.threshold and rule.name != "auto":
        return project.flagged()
    threshold = project.scale.check_threshold(threshold, "--threshold")
    if rule.name == "uncertain":
        one_off = FlagRule("uncertain", rule.range_threshold, threshold)
    else:
        one_off = FlagRule("range", threshold, rule.uncertain_threshold)
    return flagged_list(project.gold(threshold=one_off))


def as_json(listing: pd.DataFrame) -> list[dict]:
    """The DESIGN.md shape: [{item_id, ratings: {annotator: score}, spread}]."""
    return [{"item_id": item_id, "ratings": dict(ratings), "spread": float(spread)}
            for item_id, spread, ratings in listing[["item_id", "spread", "ratings"]]
            .itertuples(index=False)]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate flagged`."""
    p = sub.add_parser("flagged", help="list items whose ratings disagree; show or set the "
                                       "flag rule")
    p.add_argument("project")
    p.add_argument("--rule", choices=RULES, default=None)
    p.add_argument("--threshold", type=finite_float)
    p.add_argument("--json", action="store_true")


def _set_rule(project: Project, args: argparse.Namespace) -> FlagRule:
    """`--rule R [--threshold X]`: the project's rule set (and logged) before listing."""
    before = project.flag_rule
    rule = project.set_flag_rule(args.rule, args.threshold)
    if rule != before and not args.json:
        print(f"flag rule set: {rule.describe()} (was {before.describe()})")
    return rule


def run(args: argparse.Namespace) -> int:
    """List the items the flag rule picks; with --rule, set the rule first."""
    with Project.open(args.project) as project:
        if args.rule is not None:
            _set_rule(project, args)
            one_off = None
        else:
            one_off = args.threshold
        listing = flagged_items(project, one_off)
        if args.json:
            print(json.dumps(as_json(listing), ensure_ascii=False))
            return 0
        _print_listing(project, listing, one_off)
    return 0


def _heading(project: Project, listing: pd.DataFrame, one_off: float | None) -> str:
    rule = project.flag_rule
    shown = rule
    if one_off is not None and not (one_off == rule.threshold and rule.name != "auto"):
        shown = FlagRule("uncertain", rule.range_threshold, one_off) \
            if rule.name == "uncertain" else FlagRule("range", one_off)
    own = "" if shown == rule else \
        f" (this listing only; the project's rule is {rule.describe()})"
    return (f"{len(listing)} flagged item{'s' * (len(listing) != 1)} under rule "
            f"{shown.describe()}, not adjudicated{own}")


def _print_listing(project: Project, listing: pd.DataFrame, one_off: float | None) -> None:
    print(_heading(project, listing, one_off))
    for item_id, spread, ratings in listing.itertuples(index=False):
        scores = "  ".join(f"{name}={fmt(score)}" for name, score in ratings.items())
        print(f"  {item_id}\tspread {fmt(spread)}\t{scores}")
    second_look = sorted(project.second_look_ids(), key=project.position)
    if second_look:
        many = len(second_look) != 1
        print(f"{len(second_look)} adjudicated item{'s' * many} need{'' if many else 's'} "
              "a second look (a later rating disagrees with the verdict): "
              + ", ".join(second_look))
