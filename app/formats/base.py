"""What readers return: items and ratings as pandas DataFrames with fixed columns."""

from __future__ import annotations

import pandas as pd

#: Columns of an item table returned by every pair reader.
#: item_id: str, unique; left/right: str texts; dataset, genre: str ("" when unknown);
#: reference: float or NaN (a gold/reference score that came with the file);
#: meta: dict (free metadata, JSON-serialisable); line: int, 1-based line in the source file.
ITEM_COLUMNS = ("item_id", "left", "right", "dataset", "genre", "reference", "meta", "line")

#: Columns of a ratings table returned by the ratings reader.
#: score: float as written in the file (the project converts it to a step code and
#: reports off-grid values with the line); note: str ("" when none).
RATING_COLUMNS = ("item_id", "annotator", "score", "note", "line")


def item_frame(rows: dict[str, list]) -> pd.DataFrame:
    """Build an item table from column lists, with the columns in the standard order."""
    frame = pd.DataFrame({c: rows[c] for c in ITEM_COLUMNS})
    frame["reference"] = frame["reference"].astype("float64")
    frame["line"] = frame["line"].astype("int64")
    return frame


def rating_frame(rows: dict[str, list]) -> pd.DataFrame:
    """Build a ratings table from column lists, with the columns in the standard order."""
    frame = pd.DataFrame({c: rows[c] for c in RATING_COLUMNS})
    frame["score"] = frame["score"].astype("float64")
    frame["line"] = frame["line"].astype("int64")
    return frame
