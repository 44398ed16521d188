"""Ratings files: CSV, TSV or XLSX, long (item_id, annotator, score[, note]) or wide."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import rating_frame
from simrate.core.base.scale import cut, foreign_characters, underflows
from simrate.formats.intake.pipeline import load_table, read
from simrate.formats.intake.textio import (
    Record,
    Table,
    TextFile,
    fit_fields,
    normalise_name,
    parse_number,
    table_of,
    with_encoding,
    without_gc,
)
from simrate.formats.readers.pairs import (  # noqa: F401  (the column names are re-exported)
    ANNOTATOR_NAMES,
    HEADER_SCAN_ROWS,
    ID_NAMES,
    ITEM_NAMES,
    NOTE_NAMES,
    SCORE_NAMES,
    TEXT_NAME_PAIRS,
)

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


def _required(loose: list[str], names: tuple[str, ...], what: str, path: Path) -> int:
    """Index of the first column named as one of `names`; SimrateError when there is none
    (the header row was chosen for naming the item id, a score column sends a file here)."""
    found = _first(loose, names)
    if found is None:
        raise SimrateError(f"no {what} column", path)
    return found


def _locate_header(records: list[Record], spreadsheet: bool, path: Path) -> int:
    """Position of the header row: the first (spreadsheets: within the top rows) naming items."""
    candidates = records[:HEADER_SCAN_ROWS] if spreadsheet else records[:1]
    for position, (_, fields) in enumerate(candidates):
        if _first([normalise_name(f) for f in fields], ITEM_NAMES) is not None:
            return position
    raise SimrateError("a ratings file needs a header row with an item_id column "
                       "(long: item_id, annotator, score; wide: item_id, then one column "
                       "per annotator)", path, records[0][0])


def _scores(cells: list[str], lines: list[int], column: str, path: Path) -> list[float | None]:
    """The numbers of a column (cells stripped), None for empty cells; an error for text."""
    try:
        values = [float(cell) if cell else None for cell in cells]
        if all(v is None or math.isfinite(v) for v in values) and not any(
                "_" in cell or not cell.isascii() for cell in cells) and not any(
                v == 0 and underflows(c, v) for v, c in zip(values, cells, strict=True)):
            return values
    except ValueError:
        pass
    for cell, line in zip(cells, lines, strict=True):
        if cell and parse_number(cell) is None:
            what = ("is too small to be held as a number (it would read as 0), so it is "
                    "not on the grid" if _underflow(cell) else
                    f"is not a number: it {foreign_characters(cell)}"
                    if foreign_characters(cell) else
                    f"is not a number ({MISSING_HINT})")
            raise SimrateError(f"column {column!r}: {cut(cell)!r} {what}", path, line)
    raise AssertionError("unreachable: some cell failed float()")


def _underflow(cell: str) -> bool:
    """True for a nonzero number that reads as 0 (1e-400)."""
    try:
        return underflows(cell, float(cell))
    except ValueError:
        return False


def _check_unique(keys: list, lines: list[int], what: str, path: Path) -> None:
    """Refuse an empty or repeated key, naming the lines; `what` formats the message."""
    distinct = set(keys)
    if len(distinct) == len(keys):
        return
    first_line: dict = {}
    for key, line in zip(keys, lines, strict=True):
        if key in first_line:
            raise SimrateError(what.format(*key if isinstance(key, tuple) else (key,),
                                           first=first_line[key], line=line), path, line)
        first_line[key] = line


def _fitted(data: list[Record], width: int, path: Path, spreadsheet: bool) -> list[Record]:
    """Records with exactly `width` fields (or an error naming the line)."""
    return [(line, fields if len(fields) == width
             else fit_fields(fields, width, line, path, spreadsheet)) for line, fields in data]


def _column(rows: list[Record], index: int) -> list[str]:
    """The stripped cells of one column."""
    return [fields[index].strip() for _, fields in rows]


def _refuse_empty(cells: list[str], lines: list[int], what: str, path: Path) -> None:
    """An error naming the first line whose cell is empty."""
    if "" in cells:
        raise SimrateError(f"empty {what}", path, lines[cells.index("")])


NO_ANNOTATOR = "no annotator column: add one, or name the annotator (--annotator NAME)"


def _read_long(data: list[Record], names: list[str], spreadsheet: bool, path: Path,
               annotator: str | None, given: bool = True) -> dict[str, list]:
    """item_id, [annotator,] score[, note] rows; an empty score is a missing rating.
    `annotator` names the rater of a file without an annotator column; `given`: it was
    asked for (--annotator), so a file that names its raters is refused."""
    loose = [normalise_name(n) for n in names]
    item_col = _required(loose, ITEM_NAMES, "item id", path)
    score_col = _required(loose, SCORE_NAMES, "score", path)
    annotator_col, note_col = _first(loose, ANNOTATOR_NAMES), _first(loose, NOTE_NAMES)
    if annotator_col is None and not annotator:
        raise SimrateError(NO_ANNOTATOR, path)
    if annotator_col is not None and annotator and given:
        raise SimrateError(f"the file names its annotators (column {names[annotator_col]!r}), "
                           f"so --annotator {annotator!r} would be ignored: leave it out",
                           path)
    rows = _fitted(data, len(names), path, spreadsheet)
    scores = _scores(_column(rows, score_col), [line for line, _ in rows], names[score_col], path)
    rated = [row for row, score in zip(rows, scores, strict=True) if score is not None]
    lines = [line for line, _ in rated]
    item_ids = _column(rated, item_col)
    _refuse_empty(item_ids, lines, "item id", path)
    who = (_column(rated, annotator_col) if annotator_col is not None
           else [annotator or ""] * len(rated))  # a name: refused above when none
    _refuse_empty(who, lines, "annotator name", path)
    _check_unique(list(zip(item_ids, who, strict=True)), lines,
                  "{1!r} rates item {0!r} twice (lines {first} and {line})", path)
    return {"item_id": item_ids, "annotator": who,
            "score": [score for score in scores if score is not None],
            "note": [f[note_col] for _, f in rated] if note_col is not None else [""] * len(rated),
            "line": lines, **_texts(names, rated)}


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


def _refuse_repeated_annotators(columns: list[tuple[int, str]], path: Path) -> None:
    """Two columns for one annotator would give an item two ratings by one person."""
    seen: set[str] = set()
    for _, name in columns:
        if name in seen:
            raise SimrateError(f"annotator {name!r} has two columns", path)
        seen.add(name)


def _read_wide(data: list[Record], names: list[str], spreadsheet: bool,
               path: Path) -> dict[str, list]:
    """item_id then one column per annotator; empty cells are missing ratings."""
    item_col = _required([normalise_name(n) for n in names], ITEM_NAMES, "item id", path)
    annotators = _wide_annotators(names, item_col, path)
    _refuse_repeated_annotators(annotators, path)
    rows = _fitted(data, len(names), path, spreadsheet)
    lines = [line for line, _ in rows]
    item_ids = _column(rows, item_col)
    _refuse_empty(item_ids, lines, "item id", path)
    _check_unique(item_ids, lines, "item {0!r} has two rows (lines {first} and {line})", path)
    texts = _texts(names, rows)
    collected: dict[str, list] = {"item_id": [], "annotator": [], "score": [], "line": [],
                                  **{side: [] for side in texts}}
    for column, who in annotators:
        scores = _scores(_column(rows, column), lines, names[column], path)
        kept = [i for i, score in enumerate(scores) if score is not None]
        collected["item_id"] += [item_ids[i] for i in kept]
        collected["annotator"] += [who] * len(kept)
        collected["score"] += [scores[i] for i in kept]
        collected["line"] += [lines[i] for i in kept]
        for side, cells in texts.items():
            collected[side] += [cells[i] for i in kept]
    # back to file order: row by row, annotators in header order within a row
    order = sorted(range(len(collected["line"])), key=collected["line"].__getitem__)
    collected = {key: [values[i] for i in order] for key, values in collected.items()}
    collected["note"] = [""] * len(order)
    return collected


def _use_annotator_column(names: list[str], column: str, path: Path, line: int) -> list[str]:
    """Header names with `column` (e.g. PROLIFIC_PID) as the annotator column; any other
    column that would name annotators is ignored."""
    wanted = column.strip()
    index = next((i for i, n in enumerate(names) if n == wanted), None)
    if index is None:
        index = next((i for i, n in enumerate(names)
                      if normalise_name(n) == normalise_name(wanted)), None)
    if index is None:
        raise SimrateError(f"no column {wanted!r} for the annotator (columns: "
                           f"{', '.join(names)})", path, line)
    loose = [normalise_name(n) for n in names]
    role = next((what for what, known in (("the item ids", ITEM_NAMES),
                                          ("the scores", SCORE_NAMES), ("the notes", NOTE_NAMES))
                 if _first(loose, known) == index), None)
    if role is not None:
        raise SimrateError(f"column {names[index]!r} holds {role}, not annotator names; "
                           "name the column that says who rated", path, line)
    renamed = [f"({n})" if normalise_name(n) in ANNOTATOR_NAMES else n for n in names]
    renamed[index] = "annotator"
    return renamed


@without_gc
def read_ratings(path: str | Path, annotator: str | None = None,
                 annotator_column: str | None = None,
                 fallback_annotator: str | None = None) -> pd.DataFrame:
    """Read a ratings file (long or wide) into a rating frame; `annotator` fills a missing
    column (refused when the file names its annotators: it would be ignored);
    `annotator_column` names the column holding participant ids; `fallback_annotator`
    names the annotator only of a file that does not (the window's current annotator)."""
    path = Path(path)
    if annotator is not None and annotator_column is not None:
        raise SimrateError("give either --annotator NAME or --annotator-column COLUMN, not "
                           f"both: the column names the annotators, so --annotator "
                           f"{annotator!r} would be ignored", path)
    if annotator is None and annotator_column is None and fallback_annotator is None:
        from simrate.formats.readers.ratings_fast import takes_fast_path

        if takes_fast_path(path):  # read once: the fast path, else the careful reader
            return read(path, _fast_or_careful, "text")
    return _ratings_of(load_table(path), path, annotator, annotator_column,
                       fallback_annotator)


def _fast_or_careful(source: TextFile) -> pd.DataFrame:
    """A decoded text's ratings by the fast path when it takes them, else the careful way."""
    from simrate.formats.readers.ratings_fast import long_ratings_fast

    fast = long_ratings_fast(source)
    return fast if fast is not None else _ratings_of(table_of(source), source.path,
                                                     None, None, None)


def _ratings_of(table: Table, path: Path, annotator: str | None,
                annotator_column: str | None, fallback_annotator: str | None) -> pd.DataFrame:
    """The rating frame of a decoded table (the careful reader)."""
    records, spreadsheet = table.records, table.spreadsheet
    header_at = _locate_header(records, spreadsheet, path)
    names = [n.strip() for n in records[header_at][1]]
    if annotator_column is not None:
        names = _use_annotator_column(names, annotator_column, path, records[header_at][0])
    data = records[header_at + 1:]
    rows = _read_rows(data, names, spreadsheet, path, annotator, fallback_annotator,
                      records[header_at][0])
    if not rows["line"]:
        raise SimrateError("no ratings in the file", path)
    frame = rating_frame(rows)
    if "left" in rows:  # the file shows the texts: import checks they are the item's
        frame["left"], frame["right"] = rows["left"], rows["right"]
    return with_encoding(frame, table.encoding)


def _read_rows(data: list[Record], names: list[str], spreadsheet: bool, path: Path,
               annotator: str | None, fallback_annotator: str | None, header_line: int) -> dict:
    """The rows of a long file (a score column) or a wide one (a column per annotator)."""
    loose = [normalise_name(n) for n in names]
    if _first(loose, SCORE_NAMES) is not None:
        return _read_long(data, names, spreadsheet, path, annotator or fallback_annotator,
                          given=annotator is not None)
    if _first(loose, ANNOTATOR_NAMES) is not None:
        raise SimrateError("an annotator column but no score column: a long ratings file "
                           "has columns item_id, annotator, score", path, header_line)
    if annotator:
        raise SimrateError("a wide ratings file names its annotators in its header, so "
                           f"--annotator {annotator!r} would be ignored: leave it out",
                           path, header_line)
    return _read_wide(data, names, spreadsheet, path)


def _texts(names: list[str], rows: list[Record]) -> dict[str, list[str]]:
    """{"left": [...], "right": [...]}, the cells as written, when the header names a pair
    of text columns (left/right, sentence1/sentence2, ...); else {}."""
    loose = [normalise_name(n) for n in names]
    pair = next(((a, b) for a, b in TEXT_NAME_PAIRS if a in loose and b in loose), None)
    if pair is None:
        return {}
    left, right = loose.index(pair[0]), loose.index(pair[1])
    return {"left": [f[left] for _, f in rows], "right": [f[right] for _, f in rows]}
