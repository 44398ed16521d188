"""What readers return: items and ratings as pandas DataFrames with fixed columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simrate.core.base.names import MAX_RATER_CHARS, rater_name_problem

#: Columns of an item table returned by every pair reader.
#: item_id: str, unique; left/right: str texts; dataset, genre: str ("" when unknown);
#: reference: float or NaN (a gold/reference score that came with the file);
#: meta: dict (free metadata, JSON-serialisable); line: int, 1-based line in the source file.
ITEM_COLUMNS = ("item_id", "left", "right", "dataset", "genre", "reference", "meta", "line")

#: Columns of a ratings table returned by the ratings reader.
#: score: float as written in the file (the project converts it to a step code and
#: reports off-grid values with the line); note: str ("" when none).
RATING_COLUMNS = ("item_id", "annotator", "score", "note", "line")


#: The longest text (item text, note, name, id) simrate reads, stores and writes, in
#: characters; readers refuse longer fields with the line and this limit.
MAX_TEXT_CHARS = 1_000_000
#: The longest annotator name, in characters (core/base/names.py).
MAX_NAME_CHARS = MAX_RATER_CHARS


def name_problem(name: str) -> str | None:
    """Why `name` cannot be an annotator name (None when it can): the rules of every rater
    name (`simrate.core.base.names.rater_name_problem`)."""
    return rater_name_problem(name, "annotator name")


def item_frame(rows: Mapping[str, Sequence | np.ndarray]) -> pd.DataFrame:
    """Build an item table from column lists, with the columns in the standard order."""
    frame = pd.DataFrame({c: rows[c] for c in ITEM_COLUMNS})
    frame["reference"] = frame["reference"].astype("float64")
    frame["line"] = frame["line"].astype("int64")
    return frame


def rating_frame(rows: Mapping[str, Sequence | np.ndarray]) -> pd.DataFrame:
    """Build a ratings table from column lists, with the columns in the standard order."""
    frame = pd.DataFrame({c: rows[c] for c in RATING_COLUMNS})
    frame["score"] = frame["score"].astype("float64")
    frame["line"] = frame["line"].astype("int64")
    return frame


#: Columns of the gold table (DESIGN.md export contract), then one per counted annotator.
GOLD_COLUMNS = [
    "item_id", "dataset", "genre", "left", "right", "gold", "source", "n_ratings",
    "mean", "sd", "min", "max", "flagged", "adjudicated", "note",
]
#: Decimals to which computed figures (means, SDs, model values) are written in exports:
#: 1.6667, 3.5; a grid value of a step that is a multiple of 0.0001 stays exactly itself.
FIGURE_DECIMALS = 4
#: The gold table's columns that hold computed figures (where present), written rounded to
#: FIGURE_DECIMALS; `gold` is one of them because it may be a mean, median or model value.
FIGURE_COLUMNS = ("gold", "mean", "sd", "median", "gold_low", "gold_high")
#: The prefix of an annotator's column in the gold table.
RATING_PREFIX = "rating:"
#: Columns a crowd's gold table carries after GOLD_COLUMNS when they are present (the
#: model's interval only with --gold model), then one `count:<value>` column per grid value.
CROWD_COLUMNS = ("median", "gold_low", "gold_high")
#: The prefix of the columns counting an item's ratings on one grid value (`count:3.25`).
COUNT_PREFIX = "count:"


def crowd_columns(gold: pd.DataFrame) -> list[str]:
    """The crowd columns a gold table has (CROWD_COLUMNS present, then the counts)."""
    present = [c for c in CROWD_COLUMNS if c in gold.columns]
    return present + [c for c in gold.columns if str(c).startswith(COUNT_PREFIX)]


def line_at(frame: pd.DataFrame, row: int) -> int:
    """The source line of row `row` (a position) of a reader's frame: its `line` column."""
    return int(frame["line"].to_numpy()[row])


def annotator_columns(gold: pd.DataFrame) -> list[str]:
    """The `rating:<annotator>` columns of a gold table, in order."""
    return [c for c in gold.columns if c.startswith(RATING_PREFIX)]


#: PIT label codes in evaluation inputs.
TRUE, FALSE, DEBATABLE = 1, 0, -1


@dataclass(frozen=True)
class DatasetInput:
    """Aligned gold and system values of one dataset (PIT: with labels)."""

    name: str
    gold: np.ndarray
    system: np.ndarray
    gold_labels: np.ndarray | None = None  # PIT: TRUE, FALSE or DEBATABLE per item
    system_labels: np.ndarray | None = None  # PIT: TRUE or FALSE per item
    gold_path: str = ""
    system_path: str = ""
    excluded: int = 0  # items of the gold file without a gold score (left out)
