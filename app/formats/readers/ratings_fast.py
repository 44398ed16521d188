"""A fast path for plain long ratings files (a million crowd ratings in well under a second).

Only a file the careful reader would read the same way takes this path: UTF-8 CSV or TSV, no
quotes, no blank lines, the same number of fields on every line, a header of exactly
item_id, annotator, score (and optionally note), every score a finite number or empty, and no
rating given twice. Anything else returns None, and the careful reader in ratings.py reads the
file and reports the first problem with its line.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from simrate.core.base.frames import name_problem, rating_frame
from simrate.formats.intake.pipeline import read
from simrate.formats.intake.textio import TextFile, normalise_name
from simrate.formats.intake.xlsx_read import is_xlsx
from simrate.formats.readers.pairs import ANNOTATOR_NAMES, ITEM_NAMES, NOTE_NAMES, SCORE_NAMES

_ROLES = {"item": ITEM_NAMES, "annotator": ANNOTATOR_NAMES, "score": SCORE_NAMES,
          "note": NOTE_NAMES}


#: Quotes, blank lines, NUL and any space or tab that is not the separator: the careful
#: reader handles those (a space may pad a field; this path never strips).
_REFUSED = ('"', "\n\n", "\n\r\n", "\x00", " ")


def _roles(header: list[str]) -> dict[str, int] | None:
    """{role: column} when each column has one distinct role and the first three are there."""
    found: dict[str, int] = {}
    for column, name in enumerate(header):
        loose = normalise_name(name)
        role = next((r for r, names in _ROLES.items() if loose in names), None)
        if role is None or role in found:
            return None
        found[role] = column
    return found if {"item", "annotator", "score"} <= found.keys() else None


def takes_fast_path(path: Path) -> bool:
    """True for a file named as a text table (a workbook never takes this path)."""
    return path.suffix.lower() in (".csv", ".tsv", ".txt") and not is_xlsx(path)


def _text(source: TextFile) -> str | None:
    """The file's text when it is plain UTF-8 without quotes or blank lines, else None.

    The pipeline decoded it (a byte-order mark, doubled or not, is gone) within the limits;
    a refusal there is the careful reader's first one too, and the text is read once."""
    if source.encoding not in ("utf-8", "utf-8-sig"):
        return None
    body = (source.raw if source.raw is not None else source.text).rstrip("\r\n")
    if not body or any(mark in body for mark in _REFUSED) or body[:1].isspace():
        return None
    return body


#: A negative exponent: such files take the careful reader, which checks for underflow.
EXPONENT = re.compile(r"\d[eE]-\d")


def _repeated(items: np.ndarray, who: np.ndarray) -> bool:
    """True when some annotator rates some item twice (a sort, not a hash: see unique_ints)."""
    item_code = pd.factorize(items)[0].astype(np.int64)
    who_code = pd.factorize(who)[0].astype(np.int64)
    key = np.sort(item_code * (int(who_code.max()) + 1) + who_code)
    return bool((key[1:] == key[:-1]).any())


def _plain_shape(text: str) -> tuple[str, list[str], dict[str, int]] | None:
    """(separator, header, column roles) of a plain long table, or None when anything in
    the text asks for the careful reader."""
    first = text.split("\n", 1)[0].rstrip("\r")
    separator = "\t" if "\t" in first else ","
    if separator == "," and "\t" in text:
        return None
    header = first.split(separator)
    roles = _roles(header)
    lines = text.count("\n") + 1
    if roles is None or lines < 2 or text.count(separator) != (len(header) - 1) * lines:
        return None
    # a number like 1e-400 may underflow to 0: the careful reader refuses it (the plain
    # substring test first: scanning for the pattern costs ten times more)
    if ("e-" in text or "E-" in text) and EXPONENT.search(text):
        return None
    return separator, header, roles


def read_long_ratings_fast(path: str | Path) -> pd.DataFrame | None:
    """The rating frame of a plain long ratings file, or None to use the careful reader."""
    path = Path(path)
    return read(path, long_ratings_fast, "text") if takes_fast_path(path) else None


def long_ratings_fast(source: TextFile) -> pd.DataFrame | None:
    """The rating frame of a decoded plain long ratings file, or None (the careful reader)."""
    text = _text(source)
    if text is None:
        return None
    shape = _plain_shape(text)
    if shape is None:
        return None
    separator, header, roles = shape
    score_name = header[roles["score"]]
    try:
        # The C parser refuses "nan", "1_0" and other text in a float column (ValueError).
        table = pd.read_csv(io.StringIO(text), sep=separator, engine="c",
                            dtype={name: (np.float64 if name == score_name else object)
                                   for name in header},
                            keep_default_na=False, na_values={score_name: [""]})
    except (ValueError, pd.errors.ParserError):
        return None
    scores = table[score_name].to_numpy(np.float64)
    rated = ~np.isnan(scores)
    scores = scores[rated]
    if not rated.any() or not np.isfinite(scores).all():
        return None
    items = table.iloc[:, roles["item"]].to_numpy(object)[rated]
    who = table.iloc[:, roles["annotator"]].to_numpy(object)[rated]
    if (items == "").any() or (who == "").any() or _repeated(items, who):
        return None
    if any(name_problem(str(name)) for name in pd.unique(who)):
        return None  # the careful reader names the line of a bad annotator name
    notes = (table.iloc[:, roles["note"]].to_numpy(object)[rated] if "note" in roles
             else np.full(scores.size, "", dtype=object))
    frame = rating_frame({"item_id": items, "annotator": who, "score": scores, "note": notes,
                          "line": np.flatnonzero(rated) + 2})
    frame.attrs["encoding"] = "utf-8"
    return frame
