"""simrate annotators PROJECT [--json] [--exclude NAME] [--include NAME] [--check-threshold R]
                     [--min-overlap K] [--exclude-careless | --restore-careless]"""

from __future__ import annotations

import argparse
import json
import sys

from simrate.commands.base.option_types import count, finite_float, login_name
from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP
from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted
from simrate.core.project import Project
from simrate.core.team.exclusion import exclude_careless, restore_careless
from simrate.core.team.quality import DEFAULT_CHECK_THRESHOLD, annotator_report

HEADER = ("annotator", "rated", "skipped", "mean", "sd", "vs_rest", "check_r", "check_mae",
          "bias", "reliab.", "s/item", "")


def _cell(value: object) -> str:
    """A table cell: numbers to 3 decimals, None as '-'."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _row(entry: dict) -> list[str]:
    marks = [m for m, on in (("MACHINE", entry.get("machine")), ("EXCLUDED", entry["excluded"]),
                             ("FLAGGED", entry["flagged"])) if on]
    seconds = entry["seconds_per_item"]
    return [entry["annotator"], str(entry["rated"]), str(entry["skipped"]),
            _cell(entry["mean"]), _cell(entry["sd"]),
            "n/a" if entry.get("pearson_vs_rest_reason") else _cell(entry["pearson_vs_rest"]),
            _cell(entry["check_pearson"]), _cell(entry["check_mae"]),
            _cell(entry.get("bias")), _cell(entry.get("reliability")),
            "-" if seconds is None else f"{seconds:.1f}", " ".join(marks)]


def print_table(report: list[dict]) -> None:
    """The report as aligned text columns, with a legend for the marks."""
    rows = [list(HEADER)] + [_row(entry) for entry in report]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    if not report:
        print("(no annotators yet)")
    for entry in report:  # the wording of `agreement`'s n/a notes
        if entry.get("pearson_vs_rest_reason"):
            print(f"n/a: {entry['annotator']}'s vs_rest undefined because "
                  f"{entry['pearson_vs_rest_reason']}")
    for entry in report:
        if entry["flagged"]:
            print(f"FLAGGED {entry['annotator']}: {entry['flag_reason']}")


def _apply_exclusions(project: Project, args: argparse.Namespace, threshold: float) -> None:
    """--exclude / --include NAME: one logged, reversible change each; the check-item rule
    (--exclude-careless, --restore-careless): one action for all the workers it names."""
    by = args.by or login_name()
    for names, excluded in ((args.exclude, True), (args.include, False)):
        for name in names:
            already = name in project.excluded_annotators()
            if name in project.annotators() and already == excluded:
                state = "excluded already" if excluded else "not excluded (counted already)"
                print(f"{name} is {state}: nothing changed", file=sys.stderr)
                continue
            project.set_excluded(name, excluded, by=by)
    if args.exclude_careless:
        done = exclude_careless(project, threshold, by=by)
        for name in done.annotators:
            print(f"excluded {name}: {done.reasons[name]}", file=sys.stderr)
        print(f"{counted(len(done.annotators), 'annotator')} excluded by the check-item rule "
              f"(Pearson with check items below {threshold:g})", file=sys.stderr)
    if args.restore_careless:
        done = restore_careless(project, by=by)
        print(f"{counted(len(done.annotators), 'annotator')} taken back "
              f"({', '.join(done.annotators) or 'none still excluded'})", file=sys.stderr)


def _check_options(args: argparse.Namespace) -> None:
    """Refuse combinations where one option would undo or ignore another."""
    if args.min_overlap < 2:
        raise SimrateError(f"--min-overlap must be 2 or more, not {args.min_overlap}")
    if args.exclude_careless and args.restore_careless:
        raise SimrateError("give either --exclude-careless or --restore-careless")
    both = [name for name in args.exclude if name in args.include]
    if both:
        raise SimrateError(f"{both[0]!r} is given to both --exclude and --include: "
                           "say which one you mean")
    changes = args.exclude or args.include or args.exclude_careless or args.restore_careless
    if args.by is not None and not changes:
        raise SimrateError("--by names who made a change for the log: give it with "
                           "--exclude, --include, --exclude-careless or --restore-careless")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate annotators`."""
    p = sub.add_parser("annotators", help="per-annotator report")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    p.add_argument("--exclude", action="append", default=[], metavar="NAME",
                   help="leave NAME out of agreement and gold (reversible)")
    p.add_argument("--include", action="append", default=[], metavar="NAME",
                   help="take an excluded annotator back")
    p.add_argument("--by", default=None)
    p.add_argument("--check-threshold", type=finite_float, default=None, metavar="R",
                   help="flag raters whose Pearson with check items is below R (0.5)")
    p.add_argument("--min-overlap", type=count, default=DEFAULT_MIN_OVERLAP, metavar="K",
                   help="fewest items a rater must share with the others for an r vs rest "
                        "(as `agreement --min-overlap`)")
    p.add_argument("--exclude-careless", action="store_true",
                   help="exclude, in one reversible action, every worker the check rule flags")
    p.add_argument("--restore-careless", action="store_true",
                   help="take back the workers the last --exclude-careless excluded")


def run(args: argparse.Namespace) -> int:
    """Print the per-annotator report (after any exclusion changes asked for)."""
    threshold = DEFAULT_CHECK_THRESHOLD if args.check_threshold is None else args.check_threshold
    with Project.open(args.project) as project:
        _check_options(args)
        _apply_exclusions(project, args, threshold)
        report = annotator_report(project, threshold=threshold, min_overlap=args.min_overlap)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_table(report)
    return 0
