"""simrate export PROJECT OUT [--format {tsv,csv,xlsx,sts,pit,jsonl}] [--allow-unresolved]"""

from __future__ import annotations

import argparse
import sys

from simrate.core.project import Project
from simrate.services.export import export_project


def run(args: argparse.Namespace) -> int:
    """Write the project's gold scores; refused (exit 3) while items are unresolved."""
    with Project.open(args.project) as project:
        report = export_project(project, args.out, args.format, args.allow_unresolved)
    how = "chosen from the file name; --format overrides" if report.format_from_extension \
        else "as asked"
    sources = ", ".join(f"{count} {source}" for source, count in sorted(report.sources.items()))
    print(f"{report.path}: {report.items} items written as {report.format} ({how}); "
          f"gold from: {sources or 'nothing'}")
    if report.flagged or report.unrated:
        print(f"simrate: warning: exported with {report.flagged} flagged item(s) not "
              f"adjudicated and {report.unrated} item(s) without gold (--allow-unresolved)",
              file=sys.stderr)
    if report.second_look:
        print(f"simrate: warning: {report.second_look} adjudicated item(s) have later ratings "
              "that disagree with the verdict (see `simrate flagged`)", file=sys.stderr)
    for warning in report.warnings:
        print(f"simrate: warning: {warning}", file=sys.stderr)
    return 0
