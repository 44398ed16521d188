"""The evaluation report as text: what `simrate evaluate` prints and the window shows."""

from __future__ import annotations

from pathlib import Path

from simrate.core.machine.evaluation import (
    DATASET_MEASURES,
    MEASURE_LABELS,
    TOTAL_MEASURES,
    DatasetResult,
    EvaluationReport,
)

TITLES = {"clss": "CLSS 2014", "sts": "STS 2012", "pit": "PIT 2015"}
TOTAL_TITLES = {"clss": "ranking score (sum of Pearson over the types given)",
                "sts": "over all datasets given", "pit": "over all datasets pooled"}



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
