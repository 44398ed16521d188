"""Gold keys and system outputs of the CLSS 2014, STS 2012 and PIT 2015 tasks, and our exports.

Every reader returns a `ScoreFile` (one entry per item, with the 1-based source line of
each) and raises SimrateError naming the file and line of anything it cannot read:
blank lines inside a file, `NaN`, text where a number belongs, a line in another task's
format. Blank lines after the last score are ignored (editors add them).
System outputs, read against a gold file: app/formats/readers/system_scores.py.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import DEBATABLE, FALSE, TRUE
from simrate.core.base.scale import foreign_characters, load_scale
from simrate.formats.intake.pipeline import load_table, read_text
from simrate.formats.intake.textio import (
    parse_number,
    without_trailing_blank_lines,
)
from simrate.formats.intake.xlsx_read import is_xlsx
from simrate.formats.readers.clss import LEVELS as CLSS_LEVELS
from simrate.formats.readers.clss import clss_gold_level
from simrate.formats.readers.jsonl import load_json_line
from simrate.formats.readers.pit import (
    CROWD_VOTES,
    EXPERT_DIGIT,
    LABEL_FILE_WORDS,
    label_of_digit,
    label_of_score,
    label_of_votes,
)
from simrate.formats.readers.sts import sts_gold_dataset

TASK_NAMES = {"clss": "CLSS", "sts": "STS", "pit": "PIT"}
#: The built-in scale whose range each task's gold scores keep (PIT: the 0-5 expert scale
#: of our exports, the sts scale's range); the bounds themselves live in the scale files.
GOLD_SCALE = {"clss": "clss", "sts": "sts", "pit": "sts"}


@functools.cache
def gold_range(task: str) -> tuple[float, float]:
    """(low, high) of a task's gold scores: its built-in scale's (core/base/scale.py)."""
    scale = load_scale(GOLD_SCALE[task])
    return scale.low, scale.high
#: The evaluation's code of each PIT reading (app/formats/readers/pit.py owns the readings).
PIT_CODES = {"paraphrase": TRUE, "debatable": DEBATABLE, "not": FALSE}
PIT_GOLD_LABELS = {word: PIT_CODES[reading] for reading, word in LABEL_FILE_WORDS.items()}
PIT_SYSTEM_LABELS = {word: code for word, code in PIT_GOLD_LABELS.items() if code != DEBATABLE}
EXPORT_SUFFIXES = (".jsonl", ".json", ".xlsx", ".xlsm")

Line = tuple[int, str]


@dataclass(frozen=True)
class ScoreFile:
    """Scores read from one file, in item order, with each item's 1-based source line."""

    path: Path
    kind: str  # "key", "system", "pit-label", "pit-expert", "pit-votes", "pit-system", "export"
    scores: np.ndarray
    lines: np.ndarray
    labels: np.ndarray | None = None  # PIT: TRUE / FALSE / DEBATABLE per item
    item_ids: tuple[str, ...] | None = None  # exports and keyed system files
    datasets: tuple[str, ...] | None = None  # exports: each item's dataset

    def __len__(self) -> int:
        return int(self.scores.size)


def dataset_name(path: str | Path, task: str) -> str:
    """STS: `MSRvid` from STS.gs.MSRvid.txt; CLSS: the level of <level>.<split>.gs.tsv; else the stem."""
    path = Path(path)
    official = {"sts": sts_gold_dataset, "clss": clss_gold_level}.get(task)
    return (official(path) if official else None) or path.stem


def is_number(text: str) -> bool:
    """True for a finite decimal number, read as every reader reads one (textio.parse_number)."""
    return parse_number(text) is not None


def required_number(text: str, path: Path, line: int, what: str = "score") -> float:
    """A finite decimal number, else SimrateError naming the file, line and text."""
    text = text.strip()
    if not text:
        raise SimrateError(f"empty {what}", path, line)
    value = parse_number(text)
    if value is None:
        try:
            infinite = not math.isfinite(float(text))  # 'nan', 'inf', '1e999'
        except ValueError:
            infinite = False
        kind = "not a finite number" if infinite else "not a number"
        if foreign_characters(text):
            kind += f": it {foreign_characters(text)}"
        raise SimrateError(f"{what} {text!r} is {kind}", path, line)
    return value


def content_lines(path: str | Path) -> list[Line]:
    """The (line number, text) of every line; a blank line before the last score is an error."""
    source = read_text(path)
    lines = without_trailing_blank_lines(source.lines())
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            raise SimrateError("blank line: every line must hold one item", source.path, number)
    return list(enumerate(lines, start=1))


def tab_fields(text: str) -> list[str]:
    return [field.strip() for field in text.split("\t")]


def _foreign_format(fields: list[str], task: str) -> str | None:
    """Why a line looks like another task's file, or None."""
    first = fields[0].lower()
    if task != "pit" and first in PIT_GOLD_LABELS:
        return "a PIT label line (label<TAB>score); use --task pit"
    if task != "pit" and len(fields) in (6, 7):
        return f"a PIT data line ({len(fields)} columns); use --task pit"
    if task == "pit" and len(fields) == 1 and is_number(fields[0]):
        return "a single score, as in STS/CLSS files; use --task sts or --task clss"
    if task != "pit" and len(fields) == 2 and is_number(fields[1]) and not (
            is_number(fields[0])):
        return (f"an item id and a score ({fields[0][:30]!r}): such lines are matched only"
                " against one of our exports; other gold files are aligned by line")
    if task != "pit" and len(fields) in (2, 3, 4) and not is_number(fields[0]):
        return f"text, not a score ({fields[0][:30]!r}): an input file rather than scores?"
    return None


def _refuse_foreign(fields: list[str], task: str, path: Path, line: int) -> None:
    reason = _foreign_format(fields, task)
    if reason:
        raise SimrateError(f"not a {TASK_NAMES[task]} line: {reason}", path, line)


def score_fields(fields: list[str], task: str, path: Path, line: int) -> float:
    """The score of a `score[<TAB>confidence]` line of an STS/CLSS gold key or output."""
    _refuse_foreign(fields, task, path, line)
    if len(fields) > 2:
        raise SimrateError(f"expected a score and an optional confidence, found {len(fields)}"
                           " tab-separated fields", path, line)
    if len(fields) == 2:
        required_number(fields[1], path, line, "confidence")
    return required_number(fields[0], path, line)


def _check_name(path: Path, task: str) -> None:
    """Refuse a gold file whose official name belongs to another task."""
    if task != "sts" and sts_gold_dataset(path):
        raise SimrateError(f"named like an STS gold file; use --task sts, not {task}", path)
    if task != "clss" and (clss_gold_level(path) or "").lower() in CLSS_LEVELS:
        raise SimrateError(f"named like a CLSS gold key; use --task clss, not {task}", path)


def _check_gold_range(value: float, task: str, path: Path, line: int) -> None:
    low, high = gold_range(task)
    if not low <= value <= high:
        hint = " (an STS gold file? use --task sts)" if task == "clss" and value <= 5 else ""
        raise SimrateError(f"gold score {value:g} is outside the {TASK_NAMES[task]} range"
                           f" {low:g}-{high:g}{hint}", path, line)


def read_score_key(path: str | Path, task: str) -> ScoreFile:
    """An STS or CLSS gold key: one score per line (optionally a tab and a confidence)."""
    path = Path(path)
    _check_name(path, task)
    lines = content_lines(path)
    scores = []
    for number, text in lines:
        value = score_fields(tab_fields(text), task, path, number)
        _check_gold_range(value, task, path, number)
        scores.append(value)
    return ScoreFile(path, "key", np.array(scores, dtype=np.float64),
                     np.array([n for n, _ in lines], dtype=np.int64))


def pit_output_fields(fields: list[str], path: Path, line: int) -> tuple[int, float]:
    """(label, score) of a `true|false<TAB>score` system line."""
    _refuse_foreign(fields, "pit", path, line)
    if len(fields) in (6, 7):
        raise SimrateError(f"a PIT data line ({len(fields)} columns), not a system output"
                           " (true|false<TAB>score)", path, line)
    if len(fields) != 2:
        raise SimrateError(f"expected true|false<TAB>score, found {len(fields)} tab-separated"
                           " fields", path, line)
    label = PIT_SYSTEM_LABELS.get(fields[0].lower())
    if label is None:
        raise SimrateError(f"label {fields[0]!r} must be true or false", path, line)
    score = required_number(fields[1], path, line)
    if not 0 <= score <= 1:
        raise SimrateError(f"score {fields[1]} is outside 0-1", path, line)
    return label, score


def _pit_gold_fields(fields: list[str], path: Path, line: int) -> tuple[str, int, float]:
    """(kind, label, degreed gold score in 0-1) of a PIT label line or a 7-column data line."""
    _refuse_foreign(fields, "pit", path, line)
    if len(fields) == 2:
        label = PIT_GOLD_LABELS.get(fields[0].lower())
        if label is None:
            raise SimrateError(f"label {fields[0]!r} must be true, false or ----", path, line)
        score = required_number(fields[1], path, line, "gold score")
        if not 0 <= score <= 1:
            raise SimrateError(f"gold score {fields[1]} is outside 0-1", path, line)
        return "pit-label", label, score
    if len(fields) == 6:
        raise SimrateError("a PIT data line without the Label column holds no gold", path, line)
    if len(fields) != 7:
        raise SimrateError(f"expected label<TAB>score or a 7-column PIT data line, found"
                           f" {len(fields)} tab-separated fields", path, line)
    return _pit_data_label(fields[4], path, line)


def _pit_data_label(text: str, path: Path, line: int) -> tuple[str, int, float]:
    """Test data: expert digit 0-5 (4-5 true, 3 debatable); train/dev: votes `(p, n)`, p of 5."""
    if EXPERT_DIGIT.match(text) and int(text) <= 5:
        digit = int(text)
        return "pit-expert", PIT_CODES[label_of_digit(digit)], digit / 5
    votes = CROWD_VOTES.match(text)
    yes, no = (int(votes.group(1)), int(votes.group(2))) if votes else (0, 0)
    if yes + no > 0:
        return "pit-votes", PIT_CODES[label_of_votes(yes, no)], yes / (yes + no)
    raise SimrateError(f"Label {text!r} is neither an expert score 0-5 nor crowd votes like"
                       " '(2, 3)'", path, line)


def read_pit_gold(path: str | Path) -> ScoreFile:
    """PIT gold: the label file (`true|false|----<TAB>score`) or a 7-column data file."""
    path = Path(path)
    _check_name(path, "pit")
    lines = content_lines(path)
    kinds: list[str] = []
    labels: list[int] = []
    scores: list[float] = []
    for number, text in lines:
        kind, label, score = _pit_gold_fields(tab_fields(text), path, number)
        if kinds and kind != kinds[0]:
            raise SimrateError(f"a {kind} line in a {kinds[0]} file", path, number)
        kinds.append(kind)
        labels.append(label)
        scores.append(score)
    return ScoreFile(path, kinds[0], np.array(scores, dtype=np.float64),
                     np.array([n for n, _ in lines], dtype=np.int64),
                     labels=np.array(labels, dtype=np.int8))


# ---------------------------------------------------------------- our exports


def is_export(path: str | Path) -> bool:
    """True for one of our gold exports (JSONL, XLSX, or CSV/TSV with item_id and gold)."""
    path = Path(path)
    if path.suffix.lower() in EXPORT_SUFFIXES:
        return True
    first = next((text for _, text in content_lines(path)), "")
    if first.lstrip().startswith("{"):
        return True
    for delimiter in ("\t", ","):
        names = {name.strip().strip('"').lower() for name in first.split(delimiter)}
        if {"item_id", "gold"} <= names:
            return True
    return False


def _json_rows(lines: list[Line], path: Path) -> Iterator[tuple[int, dict]]:
    """(line, object) of each line of a JSONL export."""
    for number, text in lines:
        row = load_json_line(text, path, number)
        if not isinstance(row, dict):
            raise SimrateError("not a JSON object", path, number)
        yield number, row


def _export_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(line, {column: value}) of each item of a JSONL, CSV, TSV or XLSX export."""
    if not is_xlsx(path):  # a workbook's bytes are no text lines to check
        lines = content_lines(path)
        if path.suffix.lower() in (".jsonl", ".json") or lines[0][1].lstrip().startswith("{"):
            yield from _json_rows(lines, path)
            return
    records = load_table(path).records
    header = [name.strip().lower() for name in records[0][1]]
    for column in ("item_id", "gold"):
        if column not in header:
            raise SimrateError(f"no {column!r} column in the header row", path, records[0][0])
    for number, fields in records[1:]:
        if len(fields) > len(header):
            raise SimrateError(f"{len(fields)} fields but the header names {len(header)}",
                               path, number)
        yield number, dict(zip(header, fields + [""] * (len(header) - len(fields)), strict=True))


def _export_gold_value(raw: object, task: str, path: Path, line: int) -> float:
    """The gold of an export row (NaN when the item has none), within the task's range."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return math.nan
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise SimrateError(f"gold {raw!r} is not a number", path, line)
    value = required_number(str(raw), path, line, "gold")
    _check_gold_range(value, task, path, line)
    return value


def read_export_gold(path: str | Path, task: str) -> ScoreFile:
    """Gold from one of our exports, matched to system scores by item id."""
    path = Path(path)
    ids: list[str] = []
    seen: dict[str, int] = {}
    datasets, scores, lines = [], [], []
    for number, row in _export_rows(path):
        item_id = str(row.get("item_id") if row.get("item_id") is not None else "").strip()
        if not item_id:
            raise SimrateError("item without an item_id", path, number)
        if item_id in seen:
            raise SimrateError(f"item {item_id!r} again (first on line {seen[item_id]})",
                               path, number)
        seen[item_id] = number
        ids.append(item_id)
        datasets.append(str(row.get("dataset") or "").strip() or path.stem)
        scores.append(_export_gold_value(row.get("gold"), task, path, number))
        lines.append(number)
    if not ids:
        raise SimrateError("the export holds no items", path)
    gold = np.array(scores, dtype=np.float64)
    labels = None
    if task == "pit":
        # read as the pit export writes it; items without gold are left out of scoring
        labels = np.array([PIT_CODES[label_of_score(g)] if g == g else FALSE
                           for g in gold.tolist()], dtype=np.int8)
        gold = gold / gold_range("pit")[1]
    return ScoreFile(path, "export", gold, np.array(lines, dtype=np.int64), labels,
                     tuple(ids), tuple(datasets))


def read_gold(path: str | Path, task: str) -> ScoreFile:
    """A gold file of `task`, or one of our exports."""
    if is_export(path):
        return read_export_gold(path, task)
    return read_pit_gold(path) if task == "pit" else read_score_key(path, task)
