"""simrate check PROJECT [--json]: an integrity check of the file, and the way out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.core.errors import SimrateError
from app.core.integrity import CannotCheck, find_problems


def run(args: argparse.Namespace) -> int:
    """Check the file; print what is damaged. Exit 0 when nothing is, 2 when something is."""
    path = Path(args.project)
    if not path.exists():
        raise SimrateError("no such project file", path)
    if path.is_dir():
        raise SimrateError("is a folder, not a project file", path)
    try:
        problems = find_problems(path)
    except CannotCheck as exc:
        raise SimrateError(f"cannot be read, so not checked: {exc}", path) from None
    if args.json:
        print(json.dumps({"ok": not problems, "problems": problems}, ensure_ascii=False))
    elif not problems:
        print(f"{path}: no damage found (SQLite integrity check, tables and columns, "
              "texts, scores)")
    else:
        print(f"{path}: {len(problems)} problem(s) found")
        for problem in problems:
            print(f"  {problem}")
        print("The way out: go back to a copy made before the damage, if you have one. "
              "Otherwise recover what SQLite can still read into a new file:")
        print(f"  sqlite3 {path} .recover | sqlite3 recovered.simrate")
        print("then run 'simrate check recovered.simrate' and open that file.")
    if problems:
        raise SimrateError(f"damaged project: {len(problems)} problem(s) found"
                           + ("" if args.json else " (listed above)"), path)
    return 0
