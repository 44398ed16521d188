"""SemEval STS 2012: STS.input.<dataset>.txt (two sentences per line) and STS.gs.<dataset>.txt."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame
from simrate.formats.intake.pipeline import read_text
from simrate.formats.intake.textio import (
    parse_number,
    with_encoding,
    with_reference_from,
    without_gc,
    without_trailing_blank_lines,
)

INPUT_NAME = re.compile(r"^STS\.input\.(?P<dataset>.+)\.txt$", re.IGNORECASE)
GOLD_NAME = re.compile(r"^STS\.gs\.(?P<dataset>.+)\.txt$", re.IGNORECASE)


def sts_dataset_name(path: Path) -> str | None:
    """`MSRpar` from `STS.input.MSRpar.txt`; None for other names."""
    match = INPUT_NAME.match(path.name)
    return match.group("dataset") if match else None


def sts_gold_dataset(path: Path) -> str | None:
    """`MSRpar` from the gold key name `STS.gs.MSRpar.txt`; None for other names."""
    match = GOLD_NAME.match(path.name)
    return match.group("dataset") if match else None


def sts_gold_path(path: Path) -> Path | None:
    """The `STS.gs.<dataset>.txt` beside an input file, when there is one."""
    dataset = sts_dataset_name(path)
    if dataset is None:
        return None
    prefix = path.name[: len("STS.")]  # keep the case the file uses
    gold = path.with_name(f"{prefix}gs.{dataset}.txt")
    return gold if gold.is_file() else None


def read_gold_key(gold_path: Path, input_lines: int) -> list[float]:
    """Scores aligned with the input's lines: one per line, a blank line meaning no score.

    Later STS years leave a gold line blank for a pair that got no gold score (the
    official scorer skips those pairs), so a blank line is NaN here rather than an error.
    Lines past the input's end must be blank; a shorter key is an error.
    """
    lines = read_text(gold_path).lines()
    if len(lines) < input_lines or any(line.strip() for line in lines[input_lines:]):
        raise SimrateError(
            f"the gold key has {len(without_trailing_blank_lines(lines))} lines but its input has {input_lines}; "
            "they must align line by line", gold_path)
    scores: list[float] = []
    for number, line in enumerate(lines[:input_lines], start=1):
        text = line.split("\t")[0].strip()
        if not text:
            scores.append(float("nan"))
            continue
        value = parse_number(text)
        if value is None:
            raise SimrateError(f"{text!r} is not a score (leave the line empty for none)",
                               gold_path, number)
        scores.append(value)
    return scores


@without_gc
def read_sts(path: str | Path, dataset: str | None = None) -> pd.DataFrame:
    """Read an STS input file (and its gold key, when beside it) into an item frame."""
    path = Path(path)
    dataset = dataset or sts_dataset_name(path) or path.stem
    source = read_text(path)
    lines = without_trailing_blank_lines(source.lines())
    rows: dict[str, list] = {"item_id": [], "left": [], "right": [], "line": []}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        # quotes are ordinary characters in STS files: split on the tab only
        fields = line.split("\t")
        if len(fields) != 2:
            raise SimrateError(f"expected two tab-separated sentences, found {len(fields)} "
                               "fields", path, number)
        for side, text in zip(("first", "second"), fields, strict=True):
            if not text.strip():
                raise SimrateError(f"the {side} sentence is empty", path, number)
        rows["item_id"].append(f"{dataset}:{number}")
        rows["left"].append(fields[0])
        rows["right"].append(fields[1])
        rows["line"].append(number)
    if not rows["line"]:
        raise SimrateError("file is empty", path)
    gold_path = sts_gold_path(path)
    if gold_path is not None:
        scores = read_gold_key(gold_path, len(lines))
        reference = [scores[number - 1] for number in rows["line"]]
    else:
        reference = [float("nan")] * len(rows["line"])
    count = len(rows["line"])
    rows.update(dataset=[dataset] * count, genre=[""] * count, reference=reference,
                meta=[{} for _ in range(count)])
    frame = with_encoding(item_frame(rows), source.encoding)
    return with_reference_from(frame, gold_path, sum(r == r for r in reference))
