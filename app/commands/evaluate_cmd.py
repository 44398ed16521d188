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
    DatasetResult,
    EvaluationReport,
)
from app.services.evaluation import evaluate_files

TITLES = {"clss": "CLSS 2014", "sts": "STS 2012", "pit": "PIT 2015"}
TOTAL_TITLES = {"clss": "ranking score (sum of Pearson over the types given)",
                "sts": "over all datasets given", "pit": "over all datasets pooled"}


def file_pairs(files: Sequence[str]) -> list[tuple[str, str]]:
    """Split GOLD SYSTEM [GOLD SYSTEM ...] into pairs; SimrateError for an odd count."""
    if len(files) % 2:
        raise SimrateError(f"evaluate takes GOLD SYSTEM pairs, but {len(files)} file"
                           f"{'s were' if len(files) != 1 else ' was'} given")
    return [(files[i], files[i + 1]) for i in range(0, len(files), 2)]


def _rows(pairs: list[tuple[str, str]], indent: str = "  ") -> list[str]:
    """Label/value lines with the values in one column."""
    width = max(len(label) for label, _ in pairs)
    return [f"{indent}{label.ljust(width)}  {value}" for label, value in pairs]


def _dataset_block(task: str, result: DatasetResult) -> list[str]:
    """The table of one pair of files: its size, then each measure."""
    pairs = [("pairs", str(result.n))]
    if result.counts.get("excluded"):
        pairs.append(("left out", f"{result.counts['excluded']} without gold"))
    if task == "pit":
        c = result.counts
        pairs.append(("true/false gold", f"{c['n_binary']}  (tp {c['tp']}, fp {c['fp']},"
                                         f" fn {c['fn']}, tn {c['tn']})"))
    for key in DATASET_MEASURES[task]:
        value = result.measures[key].text()
        threshold = result.measures.get("max_f1_threshold")
        if key == "max_f1" and threshold is not None and threshold.defined:
            value += f"  (scores >= {threshold.text()})"
        pairs.append((MEASURE_LABELS[key], value))
    gold, system = Path(result.gold_path).name, Path(result.system_path).name
    return [f"{result.name}: {system} against {gold}", *_rows(pairs)]


def format_report(report: EvaluationReport) -> str:
    """The human-readable report: a table per pair of files, then the task's totals."""
    count = len(report.datasets)
    lines = [f"{TITLES[report.task]}: {count} dataset{'s' if count != 1 else ''}"]
    for result in report.datasets:
        lines += ["", *_dataset_block(report.task, result)]
    if report.task != "pit" or count > 1:
        lines += ["", f"{TITLES[report.task]} {TOTAL_TITLES[report.task]}:"]
        lines += _rows([(MEASURE_LABELS[key], report.totals[key].text())
                        for key in TOTAL_MEASURES[report.task]])
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Score each SYSTEM file against the GOLD file before it; print tables or JSON."""
    report = evaluate_files(args.task, file_pairs(args.files))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(format_report(report))
    return 0
