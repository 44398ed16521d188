"""Batch results of Mechanical Turk and its clones (Turkle): one row per assignment.

Columns: HITId, AssignmentId, WorkerId, AssignmentStatus, WorkTimeInSeconds, then the task's
inputs as `Input.<name>` and the worker's answers as `Answer.<name>`. Tasks written by
`simrate crowd export` carry `Input.batch`, `Input.task` and, for each slot j, `Input.idj`,
`Input.leftj`, `Input.rightj`; the template names the answer of slot j `scorej` (or
`ratingj`, `similarityj`, `simj`; `notej`/`commentj` for a remark). A single-item task may
drop the number (`Input.id`, `Answer.score`).

Rejected assignments are dropped; HTML entities that the platform wrote into the texts
(`&#44;`) are decoded; each rating keeps the assignment's work time divided by the number of
items it answered. A worker who answers one item in two assignments keeps the first answer
(with a warning). One AssignmentId under two workers is refused with the line.
"""

from __future__ import annotations

import html
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.formats.intake.pipeline import Lenient, read

REQUIRED = ("HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds")
SCORE_NAMES = ("score", "rating", "similarity", "sim")
NOTE_NAMES = ("note", "comment")
_SLOT = re.compile(r"^(?P<name>[A-Za-z_]+?)(?P<slot>\d*)$", re.ASCII)
#: Columns of the frame read_turk returns, beyond the rating frame's.
EXTRA_COLUMNS = ("left", "right", "seconds", "batch", "task", "slot", "assignment")


def is_turk_header(fields: list[str]) -> bool:
    """True for the header of a Turk-style batch results file."""
    names = {f.strip() for f in fields}
    return {"HITId", "WorkerId", "AssignmentStatus"} <= names and any(
        n.startswith("Answer.") for n in names)


def _slots(columns: list[str], path: Path) -> dict[str, dict[str, str]]:
    """{slot: {"id": column, "score": column, ...}} for every slot with an id and a score."""
    found: dict[str, dict[str, str]] = {}
    for column in columns:
        prefix, _, rest = column.partition(".")
        match = _SLOT.match(rest)
        if prefix not in ("Input", "Answer") or match is None:
            continue
        name, slot = match["name"].lower(), match["slot"]
        role = (name if prefix == "Input" and name in ("id", "left", "right")
                else "score" if prefix == "Answer" and name in SCORE_NAMES
                else "note" if prefix == "Answer" and name in NOTE_NAMES else None)
        if role is not None:
            found.setdefault(slot, {}).setdefault(role, column)
    usable = {slot: roles for slot, roles in found.items() if {"id", "score"} <= roles.keys()}
    if not usable:
        raise SimrateError("no item answers found: expected Input.id1 with Answer.score1 "
                           "(Input.idN / Answer.scoreN for each item of a task)", path)
    return dict(sorted(usable.items(), key=lambda kv: int(kv[0] or 0)))


def _lines(table: pd.DataFrame, text: str) -> np.ndarray:
    """The physical line where each record starts (fields may hold line breaks)."""
    start = np.arange(len(table)) + 2
    if text.count("\n") <= len(table) + 1:
        return start
    inner = sum(table[c].str.count("\n").to_numpy() for c in table.columns)
    return start + np.r_[0, np.cumsum(inner)[:-1]]


def _decoded(cells: pd.Series) -> pd.Series:
    """HTML entities decoded, only in the cells that hold one."""
    has = cells.str.contains("&", regex=False)
    if has.any():
        cells = cells.copy()
        cells[has] = cells[has].map(html.unescape)
    return cells


def _numbers(cells: pd.Series, lines: np.ndarray, column: str, path: Path,
             kept: np.ndarray) -> np.ndarray:
    """The cells as floats (NaN for empty); an error naming the first non-number of a kept
    row (a rejected assignment may hold anything)."""
    stripped = cells.str.strip()
    values = pd.to_numeric(stripped.where(stripped != "", None), errors="coerce").to_numpy(float)
    bad = np.flatnonzero((np.isnan(values) & (stripped != "").to_numpy()
                          | np.isinf(values)) & kept)
    if bad.size:
        row = int(bad[0])
        raise SimrateError(f"{column}: {stripped.iloc[row]!r} is not a number", path,
                           int(lines[row]))
    return values


_PANDAS_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _refuse_other_layouts(data: bytes, text: str, path: Path) -> None:
    """A spreadsheet or a tab-separated file is not a Turk batch results file (CSV)."""
    if data.startswith(b"PK\x03\x04"):
        raise SimrateError("this is a spreadsheet (XLSX or another ZIP file); a Turk batch "
                           "results file is a CSV file: download the results as CSV, or "
                           "save the sheet as CSV", path)
    header = text.split("\n", 1)[0]
    if "\t" in header and "," not in header:
        raise SimrateError("the header is tab-separated; a Turk batch results file is "
                           "comma-separated (CSV): save it as CSV, or import a "
                           "tab-separated file of pairs or ratings with --format auto",
                           path, 1)


def _csv_problem(exc: Exception, path: Path) -> SimrateError:
    """The C parser's complaint in our words, with the line."""
    text = str(exc)
    fields = _PANDAS_FIELDS.search(text)
    if fields is not None:
        expected, line, saw = (int(n) for n in fields.groups())
        return SimrateError(f"{saw} comma-separated fields where the header has {expected}: "
                            "quote any text that holds a comma", path, line)
    if "EOF inside string" in text:
        return SimrateError("a quoted field is never closed (a quote is missing at its end)",
                            path)
    return SimrateError("not a readable CSV file: quote fields that hold commas, quotes or "
                        'line breaks, and double any quote inside them ("")', path)


def _read_table(path: Path) -> tuple[pd.DataFrame, str]:
    """The results table and its text, read through the pipeline (any source, under the
    size and line limits, bytes that are not UTF-8 replaced)."""
    return read(path, lambda got: _parse_table(got, path), "lenient")


def _parse_table(got: Lenient, path: Path) -> tuple[pd.DataFrame, str]:
    data, text = got.data, got.text
    _refuse_other_layouts(data, text, path)
    try:
        with warnings.catch_warnings():
            # a first row longer than the header would silently become the row labels
            # (index_col=False) or lose its last fields (the warning): refused instead
            warnings.simplefilter("error", pd.errors.ParserWarning)
            table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False,
                                na_filter=False, engine="c", index_col=False)
    except pd.errors.ParserWarning:
        raise SimrateError("more comma-separated fields than the header has: quote any text "
                           "that holds a comma", path, 2) from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise _csv_problem(exc, path) from None
    missing = [c for c in REQUIRED if c not in table.columns]
    if missing:
        raise SimrateError(f"not a Turk batch results file: no column {missing[0]}", path, 1)
    return table, text


def _refuse_shared_assignments(assignments: pd.Series, workers: pd.Series, lines: np.ndarray,
                               path: Path) -> None:
    """An assignment is one worker's work on one task: the same AssignmentId under two
    workers means rows of different files (or edited rows) were mixed up."""
    named = (assignments != "").to_numpy()
    if not named.any():
        return
    first_worker = workers[named].groupby(assignments[named].to_numpy(), sort=False
                                           ).transform("first")
    clash = np.flatnonzero((first_worker != workers[named]).to_numpy())
    if clash.size:
        row = int(np.flatnonzero(named)[clash[0]])
        assignment = assignments.iat[row]
        first = int(lines[np.flatnonzero((assignments == assignment).to_numpy())[0]])
        raise SimrateError(f"assignment {assignment!r} is given to worker "
                           f"{workers.iat[row]!r} here and to {first_worker.iat[clash[0]]!r} "
                           f"on line {first}: one assignment is one worker's; check that the "
                           "file was not edited or pieced together from several",
                           path, int(lines[row]))


def read_turk(path: str | Path) -> pd.DataFrame:
    """Ratings of a Turk/Turkle results file: the rating frame's columns plus EXTRA_COLUMNS."""
    path = Path(path)
    table, text = _read_table(path)
    lines = _lines(table, text)
    kept = (table["AssignmentStatus"].str.strip().str.lower() != "rejected").to_numpy()
    workers = table["WorkerId"].str.strip()
    empty = np.flatnonzero((workers == "").to_numpy() & kept)
    if empty.size:
        raise SimrateError("empty WorkerId", path, int(lines[empty[0]]))
    _refuse_shared_assignments(table["AssignmentId"].str.strip(), workers, lines, path)
    seconds = _numbers(table["WorkTimeInSeconds"], lines, "WorkTimeInSeconds", path, kept)
    negative = np.flatnonzero((seconds < 0) & kept)
    if negative.size:
        row = int(negative[0])
        raise SimrateError(f"WorkTimeInSeconds {table['WorkTimeInSeconds'].iloc[row].strip()!r} "
                           "is below zero: a work time is 0 or more seconds", path,
                           int(lines[row]))
    parts = []
    for slot, roles in _slots(list(table.columns), path).items():
        items = _decoded(table[roles["id"]].str.strip())
        scores = _numbers(table[roles["score"]], lines, roles["score"], path, kept)
        answered = kept & (items != "").to_numpy() & ~np.isnan(scores)
        part = pd.DataFrame({
            "item_id": items[answered], "annotator": workers[answered],
            "score": scores[answered],
            "note": table[roles["note"]][answered] if "note" in roles else "",
            "line": lines[answered], "row": np.flatnonzero(answered),
            "left": _decoded(table[roles["left"]][answered]) if "left" in roles else "",
            "right": _decoded(table[roles["right"]][answered]) if "right" in roles else "",
            "slot": int(slot or 1)})
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True).sort_values(["row", "slot"], kind="stable")
    return _finish(frame, table, seconds, int((~kept).sum()), path)


def _finish(frame: pd.DataFrame, table: pd.DataFrame, seconds: np.ndarray,
            rejected: int, path: Path) -> pd.DataFrame:
    """Work time per item, batch and task, one rating per item and worker, warnings."""
    rows = frame["row"].to_numpy()
    per_row = np.bincount(rows, minlength=len(table))
    frame["seconds"] = seconds[rows] / per_row[rows]
    for name in ("batch", "task"):
        column = f"Input.{name}"
        frame[name] = table[column].to_numpy(object)[rows] if column in table else ""
    frame["assignment"] = table["AssignmentId"].to_numpy(object)[rows]
    repeated = frame.duplicated(["item_id", "annotator"], keep="first")
    warnings = []
    if rejected:
        warnings.append(f"{rejected} rejected assignments left out")
    if repeated.any():
        warnings.append(f"{int(repeated.sum())} answers of a worker to an item they had "
                        "already answered left out (the first answer counts)")
    frame = frame[~repeated.to_numpy()].drop(columns="row").reset_index(drop=True)
    frame["note"] = frame["note"].astype(object)
    if frame.empty:
        raise SimrateError("no answers in the file (all rejected or empty)", path)
    frame.attrs["warnings"] = warnings
    frame.attrs["encoding"] = "utf-8"
    return frame
