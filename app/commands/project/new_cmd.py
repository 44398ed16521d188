"""simrate new PROJECT --scale {clss,sts,FILE} [--title TEXT]"""

from __future__ import annotations

import argparse

from simrate.commands.base.option_types import text_option
from simrate.core.project import Project


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate new`."""
    p = sub.add_parser("new", help="create a project")
    p.add_argument("project")
    p.add_argument("--scale", required=True, help="clss, sts or a scale JSON file")
    p.add_argument("--title", type=text_option, default="")


def run(args: argparse.Namespace) -> int:
    """Create an empty project with the chosen scale."""
    project = Project.create(args.project, scale=args.scale, title=args.title)
    print(f"created {args.project} (scale {project.scale.describe()})")
    project.close()
    return 0
