"""simrate info PROJECT [--json]"""

from __future__ import annotations

import argparse
import json

from simrate.core.data.counts import describe_switches, summary

#: Keys of `info --json` (DESIGN.md); the summary carries two more for the text output.
JSON_KEYS = ("items", "annotators", "ratings", "flagged", "adjudicated", "scale", "title",
             "skipped", "datasets")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate info`."""
    p = sub.add_parser("info", help="summarize a project")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Print a summary of the project."""
    facts = summary(args.project)
    if args.json:
        print(json.dumps({key: facts[key] for key in JSON_KEYS}, ensure_ascii=False))
        return 0
    print(f"project     {args.project}" + (f"  ({facts['title']})" if facts["title"] else ""))
    print(f"scale       {facts['describe']}")
    print(f"items       {facts['items']}")
    for name, count in facts["datasets"].items():
        print(f"  {name or '(no dataset)'}: {count}")
    print(f"annotators  {', '.join(facts['annotators']) or '(none yet)'}")
    print(f"ratings     {facts['ratings']}" +
          (f" (+{facts['skipped']} skipped)" if facts["skipped"] else ""))
    print(f"flagged     {facts['flagged']} (rule {facts['flag_rule']['description']}, "
          "not adjudicated)")
    print(f"adjudicated {facts['adjudicated']}")
    switched = describe_switches(facts["organizer_mode"])
    if switched:  # in a plain file blindness is trust: the organizer sees who left it
        print(f"organizer mode switched on by {switched}")
    return 0
