"""Generic pair lists: TSV, CSV or XLSX with an optional header row."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.frames import item_frame
from simrate.core.base.scale import underflows
from simrate.formats.intake.pipeline import load_table
from simrate.formats.intake.textio import (
    Record,
    fit_fields,
    normalise_name,
    parse_number,
    with_encoding,
    without_gc,
)

ID_NAMES = ("id", "itemid", "pairid")
#: Column names of a ratings table (app/formats/readers/ratings.py and its fast path).
ITEM_NAMES = ID_NAMES + ("item",)
ANNOTATOR_NAMES = ("annotator", "rater", "coder")
SCORE_NAMES = ("score", "rating")
NOTE_NAMES = ("note", "notes", "comment")
#: Pairs of header names (normalised) that name the two texts, first match wins.
TEXT_NAME_PAIRS = (
    ("left", "right"), ("text1", "text2"), ("sentence1", "sentence2"), ("sent1", "sent2"),
    ("s1", "s2"), ("larger", "smaller"), ("texta", "textb"), ("sentencea", "sentenceb"),
    ("question1", "question2"),
)
#: Columns whose numbers become the item's reference score, in order of preference.
REFERENCE_NAMES = ("gold", "reference", "score", "similarity")
GENRE_NAME = "genre"
DATASET_NAME = "dataset"
KNOWN_NAMES = frozenset(
    ID_NAMES + tuple(n for pair in TEXT_NAME_PAIRS for n in pair) + REFERENCE_NAMES
    + (GENRE_NAME, DATASET_NAME)
)
#: How far down a spreadsheet we look for the header row (title rows come first).
HEADER_SCAN_ROWS = 30


@dataclass
class Layout:
    """Which column (0-based) plays which part; `meta` lists the other columns."""

    width: int
    left: int
    right: int
    id: int | None = None
    reference: int | None = None
    genre: int | None = None
    dataset: int | None = None
    names: list[str] = field(default_factory=list)  # header names, or [] without a header
    meta: list[tuple[int, str]] = field(default_factory=list)

    def column_name(self, index: int) -> str:
        """The header name of a column, or `column N` (1-based) without a header."""
        return self.names[index] if self.names else f"column {index + 1}"


def _find_column(names: list[str], wanted: str, path: Path) -> int:
    """Index of the column named `wanted` (exactly, else loosely); error naming the columns."""
    if wanted in names:
        return names.index(wanted)
    loose = [normalise_name(n) for n in names]
    if normalise_name(wanted) in loose:
        return loose.index(normalise_name(wanted))
    raise SimrateError(f"no column named {wanted!r}; the columns are: {', '.join(names)}", path)


def text_name_pair(loose: Collection[str]) -> tuple[str, str] | None:
    """The first known pair of text column names (normalised) present among `loose` names."""
    return next(((left, right) for left, right in TEXT_NAME_PAIRS
                 if left in loose and right in loose), None)


def _header_texts(loose: list[str]) -> tuple[int, int] | None:
    """Indices of the first known pair of text column names present in a header."""
    names = text_name_pair(loose)
    return (loose.index(names[0]), loose.index(names[1])) if names else None


def _is_header(fields: list[str], given: list[str], needs_texts: bool) -> bool:
    """Whether a record names columns: known text names (or, loosely, any known name)."""
    loose = [normalise_name(f) for f in fields]
    if any(g in fields or normalise_name(g) in loose for g in given):
        return True
    if _header_texts(loose) is not None:
        return True
    return not needs_texts and any(name in KNOWN_NAMES for name in loose)


def locate_header(records: list[Record], spreadsheet: bool, given: list[str]) -> int | None:
    """Position in `records` of the header row, or None for a file without one."""
    if spreadsheet:
        for position, (_, fields) in enumerate(records[:HEADER_SCAN_ROWS]):
            if _is_header(fields, given, needs_texts=True):
                return position
    return 0 if _is_header(records[0][1], given, needs_texts=False) else None


def _layout_from_header(names: list[str], path: Path, line: int, id_column: str | None,
                        left_column: str | None, right_column: str | None) -> Layout:
    """Assign roles to named columns; the rest go to meta."""
    loose = [normalise_name(n) for n in names]
    texts = _header_texts(loose)
    if left_column or right_column:
        if not (left_column and right_column):
            raise SimrateError("name both text columns (left and right), not just one", path)
        texts = (_find_column(names, left_column, path), _find_column(names, right_column, path))
    id_index = _find_column(names, id_column, path) if id_column else next(
        (loose.index(n) for n in ID_NAMES if n in loose), None)
    roles: dict[str, int | None] = {GENRE_NAME: None, DATASET_NAME: None}
    for role in roles:
        roles[role] = loose.index(role) if role in loose else None
    taken = {i for i in (id_index, roles[GENRE_NAME], roles[DATASET_NAME]) if i is not None}
    if texts is None:
        # e.g. `id, premise, hypothesis`: two unnamed columns left over are the texts
        rest = [i for i, n in enumerate(loose) if i not in taken and n not in REFERENCE_NAMES]
        if len(rest) != 2:
            raise SimrateError(
                "cannot tell which columns hold the two texts; name them left and right "
                f"(the columns are: {', '.join(names)})", path, line)
        texts = (rest[0], rest[1])
    if texts[0] == texts[1]:
        raise SimrateError("the left and right texts must be different columns", path, line)
    taken |= set(texts)
    reference = next((loose.index(n) for n in REFERENCE_NAMES
                      if n in loose and loose.index(n) not in taken), None)
    layout = Layout(len(names), texts[0], texts[1], id_index, reference,
                    roles[GENRE_NAME], roles[DATASET_NAME], list(names))
    used = taken | {reference}
    layout.meta = [(i, names[i] or f"column {i + 1}") for i in range(len(names)) if i not in used]
    return layout


def _id_like(values: list[str]) -> bool:
    """Values that can be ids: present, without spaces, all different."""
    return all(v.strip() and " " not in v.strip() for v in values) and len(set(values)) == len(values)


def _layout_without_header(records: list[Record], path: Path) -> Layout:
    """2 columns: left, right; 3 columns: an id (or a number) before or after the texts."""
    width = len(records[0][1])
    if width == 2:
        return Layout(2, 0, 1)
    if width == 3:
        first = [fields[0] for _, fields in records if len(fields) == 3]
        last = [fields[2] for _, fields in records if len(fields) == 3]
        if _id_like(first):
            return Layout(3, 1, 2, id=0)
        if all(parse_number(v) is not None for v in last if v.strip()):
            return Layout(3, 0, 1, reference=2)
        if _id_like(last):
            return Layout(3, 0, 1, id=2)
    raise SimrateError(
        f"no header row and {width} columns: cannot tell which columns hold the texts; "
        "add a header row naming them (e.g. id, left, right)", path, records[0][0])


def _fitted_records(records: list[Record], layout: Layout, path: Path,
                    spreadsheet: bool) -> list[Record]:
    """Records cut or padded to the layout's width, each with both texts present."""
    width, left, right = layout.width, layout.left, layout.right
    model = "the header" if layout.names else "the first row"
    fitted: list[Record] = []
    for line, fields in records:
        if len(fields) != width:
            fields = fit_fields(fields, width, line, path, spreadsheet, model)
        if not fields[left].strip() or not fields[right].strip():
            index = left if not fields[left].strip() else right
            raise SimrateError(f"empty text in column {layout.column_name(index)!r}", path, line)
        fitted.append((line, fields))
    return fitted


def _check_ids(ids: list[str], lines: list[int], column: str, path: Path) -> None:
    """Refuse empty or repeated ids, naming the line(s); cheap when all is well."""
    distinct = set(ids)
    if len(distinct) == len(ids) and "" not in distinct:
        return
    first_line: dict[str, int] = {}
    for item_id, line in zip(ids, lines, strict=True):
        if not item_id:
            raise SimrateError(f"empty item id in column {column!r}", path, line)
        if item_id in first_line:
            raise SimrateError(f"duplicate item id {item_id!r} (lines {first_line[item_id]} "
                               f"and {line})", path, line)
        first_line[item_id] = line


def _build_items(records: list[Record], layout: Layout, path: Path, dataset: str | None,
                 spreadsheet: bool) -> pd.DataFrame:
    """Turn data records into an item frame, checking texts and ids."""
    fitted = _fitted_records(records, layout, path, spreadsheet)
    lines = [line for line, _ in fitted]

    def stripped(index: int | None) -> list[str]:
        """The trimmed cells of a column, or empty strings when the column is absent."""
        return [f[index].strip() for _, f in fitted] if index is not None else [""] * len(fitted)

    if layout.id is not None:
        ids = stripped(layout.id)
        _check_ids(ids, lines, layout.column_name(layout.id), path)
    else:
        ids = [f"{path.stem}:{line}" for line in lines]
    datasets = ([dataset] * len(fitted) if dataset else
                [d or path.stem for d in stripped(layout.dataset)])
    rows: dict[str, list] = {
        "item_id": ids, "line": lines, "dataset": datasets, "genre": stripped(layout.genre),
        "left": [f[layout.left] for _, f in fitted], "right": [f[layout.right] for _, f in fitted],
        "reference": stripped(layout.reference),
        "meta": [{name: f[i] for i, name in layout.meta} for _, f in fitted],
    }
    _settle_reference(rows, layout, path)
    return item_frame(rows)


def reference_problem(text: str) -> str | None:
    """Why a reference cell spelling a number cannot be a reference score ('nan', 'inf',
    '1e400', '1e-400'), or None for a finite number or plain text."""
    text = text.strip()
    if "_" in text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return "is not a finite number"
    if underflows(text, value):
        return "is too small to be held as a number (it would read as 0)"
    return None


def _settle_reference(rows: dict[str, list], layout: Layout, path: Path) -> None:
    """Numbers in the reference column become floats; any text sends the column to meta.

    A cell spelling a number that is not finite ('nan', 'inf', '1e400') is refused with its
    line, as in every format: it is neither a reference score nor a label.
    """
    texts = rows["reference"]
    if layout.reference is None:  # no such column: every cell is empty
        rows["reference"] = [float("nan")] * len(texts)
        return
    for text, line in zip(texts, rows["line"], strict=True):
        problem = reference_problem(text) if text else None
        if problem:
            name = layout.column_name(layout.reference)
            raise SimrateError(f"the reference score {cut(text)!r} in column {name!r} "
                               f"{problem}; leave the cell empty for none", path, line)
    numbers = [parse_number(t) if t else float("nan") for t in texts]
    if any(n is None for n in numbers):
        name = layout.column_name(layout.reference)
        for meta, text in zip(rows["meta"], texts, strict=True):
            meta[name] = text
        numbers = [float("nan")] * len(texts)
    rows["reference"] = numbers


@without_gc
def read_pairs(path: str | Path, dataset: str | None = None, id_column: str | None = None,
               left_column: str | None = None, right_column: str | None = None) -> pd.DataFrame:
    """Read a generic pair list (TSV, CSV or XLSX) into an item frame."""
    path = Path(path)
    table = load_table(path)
    records, spreadsheet = table.records, table.spreadsheet
    given = [c for c in (id_column, left_column, right_column) if c]
    header_at = locate_header(records, spreadsheet, given)
    if header_at is None:
        if given:
            raise SimrateError("column names were given but the file has no header row", path)
        layout = _layout_without_header(records, path)
        data = records
    else:
        line, names = records[header_at]
        layout = _layout_from_header([n.strip() for n in names], path, line, id_column,
                                     left_column, right_column)
        data = records[header_at + 1:]
    if not data:
        raise SimrateError("no pairs after the header row", path)
    return with_encoding(_build_items(data, layout, path, dataset, spreadsheet), table.encoding)
