"""System outputs of the CLSS 2014, STS 2012 and PIT 2015 tasks, read against a gold file.

A system file lines up with the gold file line by line, except against one of our exports
(which name their items), where it may instead hold `item_id<TAB>score` lines (PIT:
`item_id<TAB>label<TAB>score`). It is read that way when its first line is a header
starting with `item_id`, or when its first field is an item id of the gold file and not a
number; otherwise it is aligned by line with the export's rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import FALSE, DatasetInput
from simrate.formats.readers.scores import (
    Line,
    ScoreFile,
    content_lines,
    dataset_name,
    is_number,
    pit_output_fields,
    read_gold,
    score_fields,
    tab_fields,
)


def _system_line(fields: list[str], task: str, path: Path, line: int) -> tuple[int, float]:
    if task == "pit":
        return pit_output_fields(fields, path, line)
    return FALSE, score_fields(fields, task, path, line)


def _is_keyed(first: Line, gold: ScoreFile) -> bool:
    if gold.item_ids is None:
        return False
    head = tab_fields(first[1])[0]
    return head.lower() == "item_id" or (head in set(gold.item_ids)
                                         and not is_number(head))


def _aligned_system(lines: list[Line], task: str, path: Path, gold: ScoreFile) -> ScoreFile:
    parsed = [_system_line(tab_fields(text), task, path, number) for number, text in lines]
    if len(lines) != len(gold):
        short = len(lines) < len(gold)
        where = len(lines) + 1 if short else lines[len(gold)][0]
        problem = (f"no score for gold line {gold.lines[len(lines)]}" if short
                   else "a score beyond the last gold item")
        raise SimrateError(f"{problem}: the system file has {len(lines)} lines, the gold file"
                           f" {gold.path.name} has {len(gold)} items", path, where)
    return ScoreFile(path, "system", np.array([s for _, s in parsed], dtype=np.float64),
                     np.array([n for n, _ in lines], dtype=np.int64),
                     labels=np.array([label for label, _ in parsed], dtype=np.int8))


def _keyed_system(lines: list[Line], task: str, path: Path, gold: ScoreFile) -> ScoreFile:
    if tab_fields(lines[0][1])[0].lower() == "item_id":
        lines = lines[1:]
    position = {item_id: i for i, item_id in enumerate(gold.item_ids or ())}
    scores = np.full(len(gold), np.nan)
    labels = np.zeros(len(gold), dtype=np.int8)
    source = np.zeros(len(gold), dtype=np.int64)
    for number, text in lines:
        fields = tab_fields(text)
        index = position.get(fields[0])
        if index is None:
            raise SimrateError(f"item {fields[0]!r} is not in the gold file {gold.path.name}",
                               path, number)
        if source[index]:
            raise SimrateError(f"item {fields[0]!r} again (first on line {source[index]})",
                               path, number)
        labels[index], scores[index] = _system_line(fields[1:] or [""], task, path, number)
        source[index] = number
    # Items without gold are left out of scoring, so they need no system score either.
    unscored = np.flatnonzero((source == 0) & ~np.isnan(gold.scores))
    missing = [gold.item_ids[i] for i in unscored] if gold.item_ids else []
    if missing:
        raise SimrateError(f"no score for {len(missing)} gold item(s), first {missing[0]!r}",
                           path)
    return ScoreFile(path, "system", scores, source, labels, gold.item_ids)


def read_system(path: str | Path, task: str, gold: ScoreFile) -> ScoreFile:
    """A system output, its items in the order of `gold` (by line, or by item id)."""
    path = Path(path)
    lines = content_lines(path)
    if _is_keyed(lines[0], gold):
        return _keyed_system(lines, task, path, gold)
    return _aligned_system(lines, task, path, gold)


def read_pair(task: str, gold_path: str | Path, system_path: str | Path) -> list[DatasetInput]:
    """The datasets of one gold/system pair (an export may hold several), ready to evaluate."""
    gold = read_gold(gold_path, task)
    system = read_system(system_path, task, gold)
    names = gold.datasets or (dataset_name(gold.path, task),) * len(gold)
    inputs = []
    for name in dict.fromkeys(names):
        in_dataset = np.array([n == name for n in names])
        keep = in_dataset & ~np.isnan(gold.scores)
        pit = task == "pit"
        inputs.append(DatasetInput(
            name=name, gold=gold.scores[keep], system=system.scores[keep],
            gold_labels=gold.labels[keep] if pit and gold.labels is not None else None,
            system_labels=system.labels[keep] if pit and system.labels is not None else None,
            gold_path=str(gold.path), system_path=str(system.path),
            excluded=int(np.sum(in_dataset & np.isnan(gold.scores)))))
    return inputs
