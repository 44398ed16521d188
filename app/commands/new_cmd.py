"""simrate new PROJECT --scale {clss,sts,FILE} [--title TEXT]"""

from __future__ import annotations

import argparse

from simrate.core.project import Project


def run(args: argparse.Namespace) -> int:
    """Create an empty project with the chosen scale."""
    project = Project.create(args.project, scale=args.scale, title=args.title)
    print(f"created {args.project} (scale {project.scale.describe()})")
    project.close()
    return 0
