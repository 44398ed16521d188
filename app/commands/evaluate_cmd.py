"""simrate evaluate --task {clss,sts,pit} GOLD SYSTEM [GOLD SYSTEM ...] [--json]"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from app.core.errors import SimrateError
from app.core.evaluation import (
    DATASET_MEASURES,
    MEASURE_LABELS,
    TOTAL_MEASURES,
    EvaluationReport,
    evaluate_files,
)

TITLES = {"clss": "CLSS 2014", "sts": "STS 2012", "pit": "PIT 2015"}
TOTAL_TITLES = {"clss": "ranking score", "sts": "over all datasets",
                "pit": "over all datasets together"}


def file_pairs(files: Sequence[str]) -> list[tuple[str, str]]:
    """Split GOLD SYSTEM [GOLD SYSTEM ...] into pairs; SimrateError for an odd count."""
    if len(files) % 2:
        raise SimrateError(f"evaluate takes GOLD SYSTEM pairs, but {len(files)} file"
                           f"{'s were' if len(files) != 1 else ' was'} given")
    return [(files[i], files[i + 1]) for i in range(0, len(files), 2)]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned text columns two spaces apart; numbers right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = []
        for i, cell in enumerate(cells):
            numeric = i > 0 and (cell[:1].isdigit() or cell[:1] == "-")
            parts.append(cell.rjust(widths[i]) if numeric else cell.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    return [line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def format_report(report: EvaluationReport) -> str:
    """The human-readable tables: one row per dataset, then the task's totals."""
    keys = DATASET_MEASURES[report.task]
    header = ["dataset", "n"] + (["n binary"] if report.task == "pit" else [])
    header += [MEASURE_LABELS[k] for k in keys] + ["gold", "system"]
    rows = []
    for result in report.datasets:
        row = [result.name, str(result.n)]
        if report.task == "pit":
            row.append(str(result.counts.get("n_binary", "")))
        row += [result.measures[k].text() for k in keys]
        row += [Path(result.gold_path).name, Path(result.system_path).name]
        rows.append(row)
    lines = [f"{TITLES[report.task]}: {len(report.datasets)} dataset"
             f"{'s' if len(report.datasets) != 1 else ''}", ""]
    lines += _table(header, rows)
    excluded = [(r.name, r.counts["excluded"]) for r in report.datasets if r.counts.get("excluded")]
    for name, count in excluded:
        lines.append(f"({name}: {count} item{'s' if count != 1 else ''} without gold left out)")
    if report.task != "pit" or len(report.datasets) > 1:
        lines += ["", f"{TITLES[report.task]} {TOTAL_TITLES[report.task]}:"]
        label_width = max(len(MEASURE_LABELS[k]) for k in TOTAL_MEASURES[report.task])
        for key in TOTAL_MEASURES[report.task]:
            lines.append(f"  {MEASURE_LABELS[key].ljust(label_width)}  "
                         f"{report.totals[key].text()}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Score each SYSTEM file against the GOLD file before it; print tables or JSON."""
    report = evaluate_files(args.task, file_pairs(args.files))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(format_report(report))
    return 0
