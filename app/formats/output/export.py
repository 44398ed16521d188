"""Gold table writers: TSV, CSV, JSONL, STS and PIT key files (XLSX: xlsx_report.py; the
formats and their endings are registered in writers.py).

Every file is written atomically (simrate.formats.output.atomic). Conventions, all documented in the
README and docs/formats.md: UTF-8 without a byte-order mark; `\\n` line ends; a score on the
scale's grid written as its shortest decimal (`0.3`, `4.8`, `3.25`: the exact grid float's
repr); a computed figure (the columns of FIGURE_COLUMNS: gold, mean, sd, median, gold_low,
gold_high) rounded to FIGURE_DECIMALS (4) decimals first, then written in the shortest form
of the rounded value (`1.6667`, `3.5`, never `3.5000`); the STS key keeps its own three
decimals and PIT its four; a missing number (no gold, the sd of one rating, a rater who did not rate) is an empty
field in TSV/CSV and `null` in JSONL; booleans are `true`/`false`. A text field is quoted
(doubling its quotes) when it holds the delimiter, a quote, CR or LF, and never otherwise,
so texts survive byte for byte, including a leading `=`, `+`, `-` or `@`.
"""

from __future__ import annotations

import json
import os  # noqa: F401 - tests reach os.access through this module
import re
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import (
    FIGURE_COLUMNS,
    FIGURE_DECIMALS,
    GOLD_COLUMNS,
    RATING_PREFIX,
    annotator_columns,
    crowd_columns,
)
from simrate.core.base.scale import Scale
from simrate.formats.output.atomic import check_writable_target
from simrate.formats.readers.pit import LABEL_FILE_WORDS, label_of_score

#: A string as JSON text without ASCII escapes (what json.dumps(ensure_ascii=False) writes).
encode_json_text = json.encoder.encode_basestring
TEXT_COLUMNS = ("item_id", "dataset", "genre", "left", "right", "source", "note")
BOOL_COLUMNS = ("flagged", "adjudicated")
CHUNK_ROWS = 20_000
#: progress(rows written, rows in all) after each chunk; raising in it abandons the export.
Progress = Callable[[int, int], None]


# ----------------------------------------------------------------------------- checking
def check_output(out: str | Path, project_path: str | Path) -> Path:
    """The output path, refused when it is the project file (or its journal) or unwritable."""
    return check_writable_target(out, [project_path])


def check_pit_scale(scale: Scale) -> None:
    """PIT labels are defined on the 0-5 expert scale only."""
    if scale.low != 0 or scale.high != 5:
        raise SimrateError(f"the pit format needs a 0-5 scale, and this project's scale is "
                           f"{scale.describe()}; export tsv, csv, jsonl, xlsx or sts instead")


# ----------------------------------------------------------------------------- figures
#: More decimals than any float's shortest form needs: the cap of figure_decimals.
_MOST_DECIMALS = 17


def figure_decimals(scale: Scale | None = None) -> int:
    """The decimals computed figures are rounded to: FIGURE_DECIMALS, or the places of the
    scale's low end and step when they have more (a step of 0.00005 keeps its grid exact)."""
    if scale is None:
        return FIGURE_DECIMALS
    places = [-int(Decimal(repr(float(v))).as_tuple().exponent) for v in (scale.low, scale.step)]
    return min(max(FIGURE_DECIMALS, *places), _MOST_DECIMALS)


def round_figures(gold: pd.DataFrame, decimals: int = FIGURE_DECIMALS) -> pd.DataFrame:
    """The gold table with its figure columns (those of FIGURE_COLUMNS it has) rounded to
    `decimals`: the nearest float to the rounded decimal, whose repr is that decimal."""
    present = [c for c in FIGURE_COLUMNS if c in gold.columns]
    if not present:
        return gold
    return gold.assign(**{c: rounded(gold[c], decimals) for c in present})


def rounded(values: object, decimals: int = FIGURE_DECIMALS) -> np.ndarray:
    """Numbers rounded to `decimals` as float64 (the float nearest the rounded decimal), NaN
    kept: the same numbers as Python's round(value, decimals).

    numpy scales by 10**decimals, rounds to an integer and divides, which is exact except
    where scaling lands within a hair of a half (0.12345 would go down, being a little above
    the half); those few are rounded again by Python's correctly rounded round().
    """
    numbers = np.asarray(values, dtype="float64").reshape(-1)
    result = np.round(numbers, decimals)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = numbers * 10.0 ** decimals
        near_half = np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6
    for at in np.flatnonzero(near_half).tolist():
        result[at] = round(float(numbers[at]), decimals)
    return result


# ----------------------------------------------------------------------------- cells
def number_texts(values: np.ndarray) -> list[str]:
    """Numbers in shortest exact form (repr), NaN as an empty string.

    Scores, means and spreads take few distinct values, so each is formatted once.
    """
    values = np.asarray(values, dtype="float64")
    distinct, position = np.unique(values, return_inverse=True)
    texts = np.array(["" if v != v else repr(float(v)) for v in distinct.tolist()],
                     dtype=object)
    return texts[position.reshape(-1)].tolist()


def quote_texts(values: Iterable[str], delimiter: str) -> list[str]:
    """Texts quoted only where needed (delimiter, quote, CR, LF), quotes doubled."""
    special = re.compile("[" + re.escape(delimiter) + '"\n\r]').search
    return [('"' + text.replace('"', '""') + '"') if special(text) else text
            for text in ("" if v is None or v != v else str(v) for v in values)]


def _quoted_column(values: pd.Series, delimiter: str) -> list[str]:
    """A text column quoted where needed; the search runs over the column at once."""
    texts = values.fillna("").astype(object).tolist()
    joined = "\x00".join(texts)  # one scan finds whether any text needs quotes
    if not any(ch in joined for ch in (delimiter, '"', "\n", "\r")):
        return texts
    return quote_texts(texts, delimiter)


def _column_texts(gold: pd.DataFrame, column: str, delimiter: str) -> list[str]:
    """One column of the gold table as field texts."""
    values = gold[column]
    if column in TEXT_COLUMNS:
        return _quoted_column(values, delimiter)
    if column in BOOL_COLUMNS:
        return ["true" if v else "false" for v in values.to_numpy(dtype=bool)]
    if column == "n_ratings" or pd.api.types.is_integer_dtype(values.dtype):
        return integer_texts(values)
    return number_texts(values.to_numpy(dtype="float64"))


def integer_texts(values: pd.Series, missing: str = "") -> list[str]:
    """A count column as whole numbers (`3`, not `3.0`); a missing count as `missing`."""
    return [missing if pd.isna(v) else str(int(v)) for v in values.astype(object).tolist()]


def table_header(gold: pd.DataFrame) -> list[str]:
    """The header row: GOLD_COLUMNS, the crowd columns a crowd's table has (median,
    gold_low, gold_high, count:<value>), then rating:<annotator> columns."""
    return GOLD_COLUMNS + crowd_columns(gold) + annotator_columns(gold)


# ----------------------------------------------------------------------------- writers
def row_chunks(total: int) -> Iterable[tuple[int, int]]:
    """(start, stop) of each chunk of CHUNK_ROWS rows, so progress can be told between them."""
    for start in range(0, total, CHUNK_ROWS):
        yield start, min(start + CHUNK_ROWS, total)


def write_table(gold: pd.DataFrame, handle: IO[str], delimiter: str,
                progress: Progress | None = None, decimals: int = FIGURE_DECIMALS) -> None:
    """TSV (delimiter tab) or CSV (comma): a header row, then one row per item; figures
    rounded to `decimals`."""
    gold = round_figures(gold, decimals)
    header = table_header(gold)
    handle.write(delimiter.join(quote_texts(header, delimiter)) + "\n")
    total = len(gold)
    for start, stop in row_chunks(total):
        part = gold.iloc[start:stop]
        columns = [_column_texts(part, name, delimiter) for name in header]
        handle.write("".join(delimiter.join(row) + "\n" for row in zip(*columns, strict=True)))
        if progress:
            progress(stop, total)


def _json_fragments(part: pd.DataFrame, column: str) -> list[str]:
    """One column as JSON value texts, each formatted once per distinct number."""
    if column in TEXT_COLUMNS:
        return [encode_json_text(v) for v in part[column].fillna("").astype(object).tolist()]
    if column in BOOL_COLUMNS:
        return ["true" if v else "false" for v in part[column].to_numpy(dtype=bool)]
    if column == "n_ratings" or pd.api.types.is_integer_dtype(part[column].dtype):
        return integer_texts(part[column], "null")
    return [t or "null" for t in number_texts(part[column].to_numpy(dtype="float64"))]


def _jsonl_lines(part: pd.DataFrame) -> list[str]:
    """The JSONL lines of some rows, built from column texts rather than json.dumps per row."""
    raters = annotator_columns(part)
    columns = table_header(part)
    # a str.format template with each key written once; braces in names are escaped
    template = "{{" + ", ".join(encode_json_text(c).replace("{", "{{").replace("}", "}}")
                                + ": {}" for c in columns) + ', "ratings": {}}}'
    rater_keys = [encode_json_text(c[len(RATING_PREFIX):]) + ": " for c in raters]
    fragments = [_json_fragments(part, c) for c in columns]
    scores = fragments[len(columns) - len(raters):]
    objects = ["{" + ", ".join(k + v for k, v in zip(rater_keys, row, strict=True)
                               if v != "null") + "}"
               for row in zip(*scores, strict=True)] if raters else ["{}"] * len(part)
    return [template.format(*row) for row in zip(*fragments, objects, strict=True)]


def write_jsonl(gold: pd.DataFrame, handle: IO[str], progress: Progress | None = None,
                decimals: int = FIGURE_DECIMALS) -> None:
    """One JSON object per line: the TSV fields in order, then a `ratings` object.

    A missing number is null; `ratings` maps each annotator who scored the item to the score;
    figures are rounded to `decimals`.
    """
    gold = round_figures(gold, decimals)
    total = len(gold)
    for start, stop in row_chunks(total):
        handle.write("".join(line + "\n" for line in _jsonl_lines(gold.iloc[start:stop])))
        if progress:
            progress(stop, total)


def write_sts(gold: pd.DataFrame, handle: IO[str]) -> None:
    """One gold score per line in project order, three decimals; an empty line for no gold."""
    handle.write("".join(("" if v != v else f"{v:.3f}") + "\n"
                         for v in gold["gold"].to_numpy(dtype="float64")))


def pit_label(gold_score: float) -> str:
    """`true` (4-5), `----` (3) or `false` (0-2) of a 0-5 gold score rounded half up."""
    return LABEL_FILE_WORDS[label_of_score(gold_score)]


def write_pit(gold: pd.DataFrame, handle: IO[str], scale: Scale) -> None:
    """`label<TAB>score` per item: score = gold / scale high at 4 decimals; empty for no gold."""
    check_pit_scale(scale)
    lines = []
    for value in gold["gold"].to_numpy(dtype="float64"):
        lines.append("" if value != value else f"{pit_label(value)}\t{value / scale.high:.4f}")
    handle.write("".join(line + "\n" for line in lines))
