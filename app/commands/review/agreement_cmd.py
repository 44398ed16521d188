"""simrate agreement (PROJECT | --ratings FILE) [--level L] [--by dataset|genre] [--ci] [--json]"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence

import numpy as np

from simrate.commands.base.option_types import count
from simrate.commands.base.progress import TerminalProgress
from simrate.core.agreement.batch import LEVELS
from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP
from simrate.core.agreement.intervals import DEFAULT_CI_METHOD
from simrate.core.agreement.reports.long_report import CI_REPLICATES, long_agreement_report
from simrate.core.agreement.reports.report import Report
from simrate.core.agreement.sparse import LongRatings
from simrate.core.base.errors import SimrateError
from simrate.core.base.names import UNDISPUTED_NAME, UNDISPUTED_NOTE

CI_NAMES = {"units": "unit bootstrap", "hayes": "Hayes & Krippendorff bootstrap"}


def _natural_key(name: str) -> list[object]:
    """Sort key that puts rater2 before rater10."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


#: Above this many annotators the text output lists Pearson against the rest, lowest
#: first, instead of the pairwise table (--json gives every pair).
TABLE_RATERS = 12


def _ratings_file_inputs(path: str) -> LongRatings:
    import pandas as pd  # here, not at the top: a project's figures need no pandas

    from simrate.formats.readers.ratings import read_ratings

    frame = read_ratings(path)
    raters = sorted(map(str, pd.unique(frame["annotator"])), key=_natural_key)
    return LongRatings.from_frame(frame, raters=raters)


def _project_inputs(path: str, by: str | None, with_machines: bool
                    ) -> tuple[LongRatings, np.ndarray, dict[str, str] | None]:
    """(ratings over every item, unadjudicated items as a mask over them, {item: group} or
    None), read as columns from the file (app/core/agreement/inputs.py)."""
    from simrate.core.agreement.inputs import project_columns

    return project_columns(path, by, with_machines)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate agreement`."""
    p = sub.add_parser("agreement", help="Krippendorff's alpha and correlations",
                       description="Krippendorff's alpha over all items (the figure to "
                       "report), and over the undisputed ones. " + UNDISPUTED_NOTE + ".")
    p.add_argument("project", nargs="?")
    p.add_argument("--ratings", metavar="FILE")
    p.add_argument("--level", choices=(*LEVELS, "all"), default="interval")
    p.add_argument("--by", choices=("dataset", "genre"))
    p.add_argument("--ci", action="store_true")
    p.add_argument("--ci-method", choices=("units", "hayes"), default=None)
    p.add_argument("--min-overlap", type=count, default=DEFAULT_MIN_OVERLAP, metavar="K",
                   help="pairwise Pearson only for raters sharing at least K items (10; "
                   "never fewer than 3, over which r is always +1 or -1)")
    p.add_argument("--with-machines", action="store_true",
                   help="project: count machine raters in alpha and Pearson too")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Compute and print agreement for a project or a ratings file."""
    if bool(args.project) == bool(args.ratings):
        raise SimrateError("give either a PROJECT or --ratings FILE")
    levels = list(LEVELS) if args.level == "all" else [args.level]
    if args.min_overlap < 2:
        raise SimrateError(f"--min-overlap must be 2 or more, not {args.min_overlap}")
    ci = bool(args.ci or args.ci_method)
    method = args.ci_method or DEFAULT_CI_METHOD
    if args.ratings:
        if args.by:
            raise SimrateError(f"--by {args.by} needs a project (a ratings file has no "
                               f"{args.by} per item)")
        if args.with_machines:
            raise SimrateError("--with-machines needs a project (a ratings file does not "
                               "mark machine raters: every rater in it counts)")
        long, subset, group_of = _ratings_file_inputs(args.ratings), None, None
    else:
        long, subset, group_of = _project_inputs(args.project, args.by, args.with_machines)
    scopes = 1 + (len({group_of.get(u, "") for u in long.units}) if group_of else 0)
    with TerminalProgress("agreement --ci", "replicates") as progress:  # on a terminal only
        drawn = [0]

        def tick(n: int) -> None:
            drawn[0] += n
            progress(drawn[0], CI_REPLICATES * len(levels) * scopes)
        report = long_agreement_report(long, levels, group_of, subset, ci, method,
                                       min_overlap=args.min_overlap, tick=tick if ci else None)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, allow_nan=False))
    else:
        print("\n".join(render(report, levels, method, args.by)))
    return 0


# ---------------------------------------------------------------- human-readable output
class _Notes:
    """Numbered footnotes giving the reason for each undefined figure."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def mark(self, value: float | None, reason: str | None) -> str:
        """The value to three decimals, or `n/a [k]` with k the reason's footnote."""
        if value is not None:
            return f"{value:.3f}"
        text = reason or "undefined"
        number = self.numbers.setdefault(text, len(self.numbers) + 1)
        return f"n/a [{number}]"

    def lines(self) -> list[str]:
        """The footnotes, one per line."""
        return [f"  [{n}] {text}" for text, n in self.numbers.items()]


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Left-aligned first column, right-aligned others, two spaces apart."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in
                                             zip(row[1:], widths[1:], strict=True)]
        out.append(indent + "  ".join(cells).rstrip())
    return out


def _alpha_lines(report: Report, levels: Sequence[str], method: str, notes: _Notes) -> list[str]:
    figures, why = report.figures, report.reasons
    header = ["Krippendorff's alpha", "all items"]
    if "alpha_unadjudicated" in figures:
        header.append(f"{UNDISPUTED_NAME} items")
    if "ci95" in figures:
        header.append(f"95% CI, all items ({CI_NAMES[method]})")
    rows = [header]
    for level in levels:
        row = [level, notes.mark(figures["alpha"][level], why.get(("alpha", level)))]
        if "alpha_unadjudicated" in figures:
            row.append(notes.mark(figures["alpha_unadjudicated"][level],
                                  why.get(("alpha_unadjudicated", level))))
        if "ci95" in figures:
            interval = figures["ci95"][level]
            row.append(f"{interval[0]:.3f} to {interval[1]:.3f}" if interval is not None
                       else notes.mark(None, why.get(("ci95", level))))
        rows.append(row)
    return _table(rows)


def _pearson_lines(report: Report, notes: _Notes) -> list[str]:
    names = report.figures["annotators"]
    if not names:
        return ["  Pearson r: no ratings"]
    pearson, rest = report.figures["pearson"], report.figures["pearson_vs_rest"]
    if len(names) > TABLE_RATERS:
        return _rest_lines(report, notes)
    rows = [["Pearson r", *names, "vs rest"]]
    for a in names:
        cells = [notes.mark(pearson[a][b], report.reasons.get(("pearson", a, b)))
                 for b in names]
        rows.append([a, *cells, notes.mark(rest[a], report.reasons.get(("pearson_vs_rest", a)))])
    return _table(rows)


def _rest_lines(report: Report, notes: _Notes) -> list[str]:
    """Many annotators: Pearson against the rest, lowest (most in doubt) first."""
    rest = report.figures["pearson_vs_rest"]
    ordered = sorted(rest, key=lambda a: (rest[a] is not None, rest[a] or 0.0))
    rows = [["annotator", "Pearson vs rest"]]
    rows += [[a, notes.mark(rest[a], report.reasons.get(("pearson_vs_rest", a)))]
             for a in ordered]
    return (_table(rows) + [f"  pairwise Pearson of {len(rest)} annotators "
                            f"(pairs sharing at least {report.figures['min_overlap']} items): "
                            "--json"])


def _reliability_lines(report: Report) -> list[str]:
    """How reliable the gold (the mean of each item's ratings) is, and the panel it needs."""
    gold, needed = report.figures.get("gold_reliability"), report.figures.get("raters_needed")
    if not gold or gold["value"] is None:
        return []
    ci = gold["ci"]
    interval = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    panel = ", ".join(f"{target}: {n if n is not None else 'never'}"
                      for target, n in (needed or {}).items())
    return [f"  gold reliability (Spearman-Brown, mean of {gold['raters_per_item']:g} "
            f"ratings per item): {gold['value']:.3f}{interval}",
            f"  raters per item needed for a reliability of {panel}"]


def _scope_lines(title: str, report: Report, levels: Sequence[str], method: str) -> list[str]:
    figures, notes = report.figures, _Notes()
    names = figures["annotators"]
    lines = [f"{title}: {figures['items']} items, {figures['pairable_items']} with two or more "
             f"ratings; {len(names)} annotator{'s' if len(names) != 1 else ''}"
             + (f" ({', '.join(names)})" if 0 < len(names) <= TABLE_RATERS else "")]
    lines += _alpha_lines(report, levels, method, notes)
    lines += _reliability_lines(report)
    lines += [""] + _pearson_lines(report, notes)
    if notes.numbers:
        lines += ["", "  n/a: undefined because"] + notes.lines()
    return lines


def render(report: Report, levels: Sequence[str], method: str, by: str | None) -> list[str]:
    """The human-readable report: one block for all items, then one per group."""
    lines = _scope_lines("All items", report, levels, method)
    for name, group in report.groups.items():
        lines += [""] + _scope_lines(f"{by} {name or '(none)'}", group, levels, method)
    if "alpha_unadjudicated" in report.figures:
        lines += ["", UNDISPUTED_NOTE]
    return lines
