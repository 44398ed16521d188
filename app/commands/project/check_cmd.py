"""simrate check PROJECT [--json] [--salvage NEW]: an integrity check of the file, and the
way out: what can still be read, copied into a new file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simrate.commands.base.progress import TerminalProgress
from simrate.core.base.errors import SimrateError
from simrate.core.check.check_open import check_openable
from simrate.core.check.integrity import CannotCheck, find_problems, hub_notes


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate check`."""
    p = sub.add_parser("check", help="integrity check of a project file: what is damaged, "
                       "and the way out")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    p.add_argument("--salvage", metavar="NEW", default=None,
                   help="copy what can still be read into the new project file NEW (the "
                        "damaged file is only read)")


def run(args: argparse.Namespace) -> int:
    """Check the file; print what is damaged. Exit 0 when nothing is, 2 when something is."""
    path = Path(args.project)
    check_openable(path)  # a FIFO, a device, a folder, a name too long: said, never opened
    if args.salvage is not None:
        return salvage(path, Path(args.salvage), args.json)
    try:
        problems = find_problems(path)
    except CannotCheck as exc:
        raise SimrateError(f"cannot be read, so not checked: {exc}", path) from None
    notes = hub_notes(path)  # not damage: said beside it
    if args.json:
        print(json.dumps({"ok": not problems, "problems": problems, "notes": notes},
                         ensure_ascii=False))
    elif not problems:
        print(f"{path}: no damage found (SQLite integrity check, tables and columns, "
              "texts, scores, web studies)")
    elif problems[0].startswith("the file itself is sound"):
        print(f"{path}: {problems[0]}")
    else:
        print(f"{path}: {len(problems)} problem(s) found")
        for problem in problems:
            print(f"  {problem}")
        print("The way out: go back to a copy made before the damage, if you have one. "
              "Otherwise copy what can still be read into a new file:")
        print(f"  simrate check {path} --salvage recovered.simrate")
        print("then run 'simrate check recovered.simrate' and open that file.")
    for note in [] if args.json else notes:
        print(f"{path}: note: {note}")
    if problems:
        raise SimrateError(f"damaged project: {len(problems)} problem(s) found"
                           + ("" if args.json else " (listed above)"), path)
    return 0


def salvage(path: Path, out: Path, as_json: bool) -> int:
    """Copy what can be read into `out`, then check the new file; exit 0 when it is sound."""
    from simrate.core.check.salvage import salvage_project

    if out.exists() or out.is_symlink():
        raise SimrateError("already exists; give the name of a new file to salvage into", out)
    with TerminalProgress(f"salvage {path.name}", "tables") as progress:  # terminal only
        done = salvage_project(path, out, progress)
    problems = find_problems(out)
    if as_json:
        print(json.dumps({"out": str(out), "copied": done.copied, "unreadable": done.unreadable,
                          "given_up": done.given_up, "dropped": done.dropped,
                          "texts_mended": done.texts_mended, "left_behind": done.left_behind,
                          "problems": problems},
                         ensure_ascii=False))
    else:
        print("\n".join(f"{path}: {line}" for line in done.lines()))
        print(f"{out}: " + ("no damage found; open this file from now on" if not problems
                             else f"{len(problems)} problem(s) remain: " + "; ".join(problems)))
    if problems:
        raise SimrateError(f"the salvaged file still has {len(problems)} problem(s)", out)
    return 0
