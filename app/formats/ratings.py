"""Ratings files: CSV, TSV or XLSX, long (item_id, annotator, score[, note]) or wide."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from app.core.errors import SimrateError
from app.formats.base import rating_frame
from app.formats.pairs import HEADER_SCAN_ROWS, ID_NAMES, TEXT_NAME_PAIRS
from app.formats.textio import (
    Record,
    fit_fields,
    normalise_name,
    parse_number,
    read_table,
    without_gc,
)

ITEM_NAMES = ID_NAMES + ("item",)
ANNOTATOR_NAMES = ("annotator", "rater", "coder")
SCORE_NAMES = ("score", "rating")
NOTE_NAMES = ("note", "notes", "comment")
#: Our own export's per-annotator columns are `rating:<annotator>`.
RATING_PREFIX = "rating:"
#: Columns of a wide file that describe the item rather than name an annotator.
ITEM_DETAIL_NAMES = frozenset(
    tuple(n for pair in TEXT_NAME_PAIRS for n in pair) + ("dataset", "genre") + NOTE_NAMES
)
MISSING_HINT = "leave the cell empty for a missing rating"


def _first(loose: list[str], names: tuple[str, ...]) -> int | None:
    """Index of the first column whose loose name is in `names`."""
    return next((i for i, n in enumerate(loose) if n in names), None)


def _locate_header(records: list[Record], spreadsheet: bool, path: Path) -> int:
    """Position of the header row: the first (spreadsheets: within the top rows) naming items."""
    candidates = records[:HEADER_SCAN_ROWS] if spreadsheet else records[:1]
    for position, (_, fields) in enumerate(candidates):
        if _first([normalise_name(f) for f in fields], ITEM_NAMES) is not None:
            return position
    raise SimrateError("a ratings file needs a header row with an item_id column "
                       "(long: item_id, annotator, score; wide: item_id, then one column "
                       "per annotator)", path, records[0][0])


def _score(cell: str, column: str, path: Path, line: int) -> float | None:
    """The number in a score cell; None for an empty cell; an error for anything else."""
    text = cell.strip()
    if not text:
        return None
    value = parse_number(text)
    if value is None:
        raise SimrateError(f"column {column!r}: {text!r} is not a number ({MISSING_HINT})",
                           path, line)
    return value


class _Collector:
    """Accumulates rating rows, refusing a second rating of an item by one annotator."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, list] = {"item_id": [], "annotator": [], "score": [],
                                      "note": [], "line": []}
        self.seen: dict[tuple[str, str], int] = {}

    def add(self, item_id: str, annotator: str, score: float, note: str, line: int) -> None:
        """Record one rating."""
        key = (item_id, annotator)
        if key in self.seen:
            raise SimrateError(f"{annotator!r} rates item {item_id!r} twice (lines "
                               f"{self.seen[key]} and {line})", self.path, line)
        self.seen[key] = line
        for column, value in zip(self.rows, (item_id, annotator, score, note, line), strict=True):
            self.rows[column].append(value)


def _item_id(fields: list[str], index: int, path: Path, line: int) -> str:
    """The item id of a row; an error when it is empty."""
    item_id = fields[index].strip()
    if not item_id:
        raise SimrateError("empty item id", path, line)
    return item_id


def _read_long(data: list[Record], names: list[str], spreadsheet: bool, path: Path,
               annotator: str | None) -> _Collector:
    """item_id, [annotator,] score[, note] rows; an empty score is a missing rating."""
    loose = [normalise_name(n) for n in names]
    item_col, score_col = _first(loose, ITEM_NAMES), _first(loose, SCORE_NAMES)
    annotator_col, note_col = _first(loose, ANNOTATOR_NAMES), _first(loose, NOTE_NAMES)
    if annotator_col is None and not annotator:
        raise SimrateError("no annotator column: add one, or name the annotator "
                           "(--annotator NAME)", path)
    collector = _Collector(path)
    for line, raw in data:
        fields = fit_fields(raw, len(names), line, path, spreadsheet)
        score = _score(fields[score_col], names[score_col], path, line)
        if score is None:
            continue
        who = fields[annotator_col].strip() if annotator_col is not None else annotator
        if not who:
            raise SimrateError("empty annotator name", path, line)
        note = fields[note_col] if note_col is not None else ""
        collector.add(_item_id(fields, item_col, path, line), who, score, note, line)
    return collector


def _wide_annotators(names: list[str], item_col: int, path: Path) -> list[tuple[int, str]]:
    """(column, annotator) of a wide file: `rating:<name>` columns, else all the others."""
    prefixed = [(i, n[len(RATING_PREFIX):].strip()) for i, n in enumerate(names)
                if n.lower().startswith(RATING_PREFIX)]
    if prefixed:
        return prefixed
    columns = [(i, n) for i, n in enumerate(names)
               if i != item_col and normalise_name(n) not in ITEM_DETAIL_NAMES]
    for i, name in columns:
        if not name:
            raise SimrateError(f"column {i + 1} has no annotator name in the header", path)
    if not columns:
        raise SimrateError("no annotator columns after the item_id column", path)
    return columns


def _read_wide(data: list[Record], names: list[str], spreadsheet: bool,
               path: Path) -> _Collector:
    """item_id then one column per annotator; empty cells are missing ratings."""
    item_col = _first([normalise_name(n) for n in names], ITEM_NAMES)
    annotators = _wide_annotators(names, item_col, path)
    collector = _Collector(path)
    first_line: dict[str, int] = {}
    for line, raw in data:
        fields = fit_fields(raw, len(names), line, path, spreadsheet)
        item_id = _item_id(fields, item_col, path, line)
        if item_id in first_line:
            raise SimrateError(f"item {item_id!r} has two rows (lines {first_line[item_id]} "
                               f"and {line})", path, line)
        first_line[item_id] = line
        for column, who in annotators:
            score = _score(fields[column], names[column], path, line)
            if score is not None:
                collector.add(item_id, who, score, "", line)
    return collector


@without_gc
def read_ratings(path: str | Path, annotator: str | None = None) -> pd.DataFrame:
    """Read a ratings file (long or wide) into a rating frame; `annotator` fills a missing column."""
    path = Path(path)
    records, spreadsheet = read_table(path)
    header_at = _locate_header(records, spreadsheet, path)
    names = [n.strip() for n in records[header_at][1]]
    data = records[header_at + 1:]
    loose = [normalise_name(n) for n in names]
    if _first(loose, SCORE_NAMES) is not None:
        collector = _read_long(data, names, spreadsheet, path, annotator)
    elif _first(loose, ANNOTATOR_NAMES) is not None:
        raise SimrateError("an annotator column but no score column: a long ratings file "
                           "has columns item_id, annotator, score", path, records[header_at][0])
    else:
        collector = _read_wide(data, names, spreadsheet, path)
    if not collector.rows["line"]:
        raise SimrateError("no ratings in the file", path)
    return rating_frame(collector.rows)


def is_wide_or_long_header(fields: list[str]) -> bool:
    """True when a header row reads as a ratings file (an item id column and no texts)."""
    loose = [normalise_name(f) for f in fields]
    has_texts = any(a in loose and b in loose for a, b in TEXT_NAME_PAIRS)
    return _first(loose, ITEM_NAMES) is not None and not has_texts
