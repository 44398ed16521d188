"""simrate flagged PROJECT [--threshold POINTS] [--json]"""

from __future__ import annotations

import argparse
import json

import pandas as pd

from simrate.commands.option_types import finite_float
from simrate.core.base.scale import fmt, points
from simrate.core.project import Project
from simrate.core.review.gold import flagged_list


def flagged_items(project: Project, threshold: float | None = None) -> pd.DataFrame:
    """Flagged items (item_id, spread, ratings), largest spread first.

    With no threshold, or the project's own, this is the project's live flag index;
    another threshold is a one-off view that does not change the project's setting.
    """
    if threshold is None or threshold == project.threshold:
        return project.flagged()
    threshold = project.scale.check_threshold(threshold, "--threshold")
    return flagged_list(project.gold(threshold=threshold))


def as_json(listing: pd.DataFrame) -> list[dict]:
    """The DESIGN.md shape: [{item_id, ratings: {annotator: score}, spread}]."""
    return [{"item_id": item_id, "ratings": dict(ratings), "spread": float(spread)}
            for item_id, spread, ratings in listing[["item_id", "spread", "ratings"]]
            .itertuples(index=False)]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate flagged`."""
    p = sub.add_parser("flagged", help="list items whose ratings disagree")
    p.add_argument("project")
    p.add_argument("--threshold", type=finite_float)
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """List the items whose ratings disagree by the threshold or more."""
    with Project.open(args.project) as project:
        threshold = project.threshold if args.threshold is None else args.threshold
        listing = flagged_items(project, args.threshold)
        if args.json:
            print(json.dumps(as_json(listing), ensure_ascii=False))
            return 0
        second_look = sorted(project.second_look_ids(), key=project.position)
        own = "" if threshold == project.threshold else \
            f" (this listing only; the project's threshold is {fmt(project.threshold)})"
        print(f"{len(listing)} flagged item{'s' * (len(listing) != 1)}: spread >= "
              f"{points(threshold)}, not adjudicated{own}")
        for item_id, spread, ratings in listing.itertuples(index=False):
            scores = "  ".join(f"{name}={fmt(score)}" for name, score in ratings.items())
            print(f"  {item_id}\tspread {fmt(spread)}\t{scores}")
        if second_look:
            many = len(second_look) != 1
            print(f"{len(second_look)} adjudicated item{'s' * many} need{'' if many else 's'} "
                  "a second look (a later rating disagrees with the verdict): "
                  + ", ".join(second_look))
    return 0
