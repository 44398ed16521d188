"""simrate evaluate --task {clss,sts,pit} GOLD SYSTEM [GOLD SYSTEM ...] [--json]"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from simrate.core.base.errors import SimrateError
from simrate.core.machine.evaluation_text import format_report
from simrate.services.imports.evaluation import evaluate_files


def file_pairs(files: Sequence[str]) -> list[tuple[str, str]]:
    """Split GOLD SYSTEM [GOLD SYSTEM ...] into pairs; SimrateError for an odd count."""
    if len(files) % 2:
        raise SimrateError(f"evaluate takes GOLD SYSTEM pairs, but {len(files)} file"
                           f"{'s were' if len(files) != 1 else ' was'} given")
    return [(files[i], files[i + 1]) for i in range(0, len(files), 2)]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate evaluate`."""
    p = sub.add_parser("evaluate", help="score system outputs against gold")
    p.add_argument("--task", choices=("clss", "sts", "pit"), required=True)
    p.add_argument("files", nargs="+", metavar="GOLD SYSTEM")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Score each SYSTEM file against the GOLD file before it; print tables or JSON."""
    report = evaluate_files(args.task, file_pairs(args.files))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(format_report(report))
    return 0
