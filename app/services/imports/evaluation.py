"""Evaluation of files: read gold and system files, then score them (app/core/machine/evaluation.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simrate.core.base.frames import DatasetInput
from simrate.core.machine.evaluation import EvaluationReport, evaluate
from simrate.formats.readers.system_scores import read_pair


def evaluate_files(task: str, pairs: Sequence[tuple[str | Path, str | Path]]) -> EvaluationReport:
    """Read each (gold, system) pair of files and evaluate them together as `task`."""
    inputs: list[DatasetInput] = []
    for gold_path, system_path in pairs:
        inputs.extend(read_pair(task, gold_path, system_path))
    return evaluate(task, inputs)
