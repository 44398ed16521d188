"""simrate info PROJECT [--json]"""

from __future__ import annotations

import argparse
import json

from app.core.project import Project
from app.core.scale import points


def summary(project: Project) -> dict:
    """The facts `info` reports, with the keys of DESIGN.md."""
    ratings = project.ratings()
    rated = ratings[~ratings["skipped"]]
    return {
        "items": project.n_items,
        "annotators": project.annotators(),
        "ratings": int(len(rated)),
        "flagged": len(project.flagged_ids()),
        "adjudicated": int(len(project.adjudications())),
        "scale": {"low": project.scale.low, "high": project.scale.high,
                  "step": project.scale.step},
        "title": project.title,
        "skipped": int(ratings["skipped"].sum()),
        "datasets": {str(k): int(v) for k, v in
                     project.items()["dataset"].value_counts(sort=False).items()},
    }


def run(args: argparse.Namespace) -> int:
    """Print a summary of the project."""
    with Project.open(args.project) as project:
        facts = summary(project)
        if args.json:
            print(json.dumps(facts, ensure_ascii=False))
            return 0
        scale = project.scale
        print(f"project     {args.project}" + (f"  ({facts['title']})" if facts["title"] else ""))
        print(f"scale       {scale.describe()}")
        print(f"items       {facts['items']}")
        for name, count in facts["datasets"].items():
            print(f"  {name or '(no dataset)'}: {count}")
        print(f"annotators  {', '.join(facts['annotators']) or '(none yet)'}")
        print(f"ratings     {facts['ratings']}" +
              (f" (+{facts['skipped']} skipped)" if facts["skipped"] else ""))
        print(f"flagged     {facts['flagged']} (spread >= {points(project.threshold)}, "
              "not adjudicated)")
        print(f"adjudicated {facts['adjudicated']}")
    return 0
