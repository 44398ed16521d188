"""simrate import PROJECT FILE... [--format ...] [--annotator NAME] [--dataset NAME]"""

from __future__ import annotations

import argparse
import sys

from app.core.errors import SimrateError
from app.core.project import Project


def _read(path: str, fmt: str, args: argparse.Namespace):
    """Read one file into ('items'|'ratings', frame, chosen format)."""
    from app.formats.detect import detect_format, read_items
    from app.formats.ratings import read_ratings

    chosen = detect_format(path) if fmt == "auto" else fmt
    if fmt == "auto":
        print(f"{path}: detected format '{chosen}'", file=sys.stderr)
    if chosen == "ratings":
        return "ratings", read_ratings(path, annotator=args.annotator), chosen
    if chosen == "project":
        return "project", None, chosen
    options = {}
    if args.dataset:
        options["dataset"] = args.dataset
    if chosen == "pyramid":
        from app.formats.pyramid import parse_negatives

        options = {"negatives": parse_negatives(args.negatives), "seed": args.seed}
    return "items", read_items(path, chosen, **options), chosen


def _undo(args: argparse.Namespace) -> int:
    """Undo one bulk import: its rows go, the rows it replaced come back."""
    if args.files:
        raise SimrateError("give files to import or --undo, not both")
    if args.undo != "last" and not args.undo.isdigit():
        raise SimrateError(f"--undo takes an import's change-log id, not {args.undo!r}")
    with Project.open(args.project) as project:
        done = project.undo_import(None if args.undo == "last" else int(args.undo))
    what = "items" if done["kind"] == "import_items" else "ratings"
    restored = f", {done['restored']} earlier ratings restored" if done["restored"] else ""
    print(f"undid import {done['batch']} ({done['source'] or 'no source'}): "
          f"{done['removed']} {what} removed{restored}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Import each file in turn; each file is all or nothing."""
    if args.undo is not None:
        return _undo(args)
    if not args.files:
        raise SimrateError("give at least one FILE to import (or --undo)")
    with Project.open(args.project) as project:
        for path in args.files:
            kind, frame, chosen = _read(path, args.format, args)
            if frame is not None and frame.attrs.get("encoding") == "cp1252":
                print(f"{path}: not UTF-8; read as Windows-1252 (cp1252)", file=sys.stderr)
            for warning in (frame.attrs.get("warnings", []) if frame is not None else []):
                print(f"{path}: warning: {warning}", file=sys.stderr)
            if kind == "items":
                added, present = project.import_items(frame, source=path)
                note = f", {present} already present" if present else ""
                print(f"{path}: {added} items added{note} ({chosen})")
            elif kind == "ratings":
                counts = project.import_ratings(frame, source=path)
                print(f"{path}: {counts['added']} ratings added, {counts['changed']} changed, "
                      f"{counts['unchanged']} unchanged")
            else:
                from app.core.team.packages import merge_package

                report = merge_package(project, path, resolve=args.resolve)
                print(report.summary())
    return 0
