"""The XLSX gold report: sheets gold, ratings, agreement, adjudications and annotators.

openpyxl's write-only workbook makes every sheet but the bodies of the two big ones
(gold and ratings): the header rows, styles, widths, frozen panes, the agreement chart and
the small sheets. The big sheets' rows are serialised in chunks by xlsx_rows.py and put in
place while xlsx_save.py writes the file, so 200,000 items stay within memory and time.
Numbers are number cells (a score holds its exact grid float, a computed figure is rounded to
FIGURE_DECIMALS as in the TSV export); missing numbers are empty cells. Every text is a string cell:
openpyxl would turn a text starting with `=` into a formula (and `#N/A` into an error
value), so such texts get a cell whose type is set to string explicitly.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import RATING_PREFIX, annotator_columns
from simrate.core.base.scale import Scale
from simrate.formats.output.atomic import atomic_path, check_writable_target, os_message
from simrate.formats.output.export import (
    BOOL_COLUMNS,
    TEXT_COLUMNS,
    Progress,
    figure_decimals,
    round_figures,
    row_chunks,
    table_header,
)
from simrate.formats.spreadsheet.xlsx_rows import (
    SHEET_ROWS,
    SheetBody,
    TextFitter,
    boolean_cells,
    integer_cells,
    number_cells,
    rows_xml,
    text_cells,
)
from simrate.formats.spreadsheet.xlsx_save import save_book, scratch_folder

if TYPE_CHECKING:
    from openpyxl.cell.cell import Cell
    from openpyxl.worksheet._write_only import WriteOnlyWorksheet

HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="305496")
HEADER_ALIGN = Alignment(horizontal="center", vertical="center", wrap_text=True)
HEADER_BORDER = Border(bottom=Side(style="medium", color="1F3864"))
TITLE_FONT = Font(bold=True, size=14)
SECTION_FONT = Font(bold=True, size=12, color="1F3864")
DATE_FORMAT = "yyyy-mm-dd hh:mm:ss"
GOLD_WIDTHS = {
    "item_id": 22, "dataset": 16, "genre": 14, "left": 60, "right": 60, "gold": 8,
    "source": 12, "n_ratings": 10, "mean": 8, "sd": 8, "min": 7, "max": 7, "flagged": 9,
    "adjudicated": 12, "note": 40,
}
RATING_HEADER = ["item_id", "annotator", "score", "status", "note"]
RATING_WIDTHS = [22, 16, 8, 18, 50]
ADJUDICATION_HEADER = ["item_id", "dataset", "score", "note", "by", "at", "n_ratings", "mean",
                       "min", "max", "second_look", "left", "right"]
ADJUDICATION_WIDTHS = [22, 16, 8, 50, 14, 20, 10, 8, 7, 7, 12, 50, 50]


class CellMaker:
    """Turns Python values into write-only cells, keeping every text a string cell."""

    def __init__(self, sheet: WriteOnlyWorksheet):
        self.sheet = sheet
        self.fitter = TextFitter()  # counts the texts cut or cleaned

    def text(self, value: str) -> object:
        """A string cell for `value`: plain when safe, explicitly typed when it looks special."""
        value = self.fitter.fit(value)
        if value[:1] in ("=", "#"):
            return self.styled(value)
        return value

    def styled(self, value: str | float | dt.datetime | None, **style: object) -> Cell:
        """A cell with a font, number format or alignment; a text is always a string cell
        (never a formula or an error value), whatever it starts with."""
        if isinstance(value, str):
            cell = WriteOnlyCell(self.sheet, self.fitter.fit(value))
            cell.data_type = "s"  # openpyxl reads `=...` as a formula and `#N/A` as an error
        else:
            cell = WriteOnlyCell(self.sheet, value)
        for name, setting in style.items():
            setattr(cell, name, setting)
        return cell

    def header(self, names: Iterable[str]) -> list[Cell]:
        """A styled header row."""
        return [self.styled(name, font=HEADER_FONT, fill=HEADER_FILL, alignment=HEADER_ALIGN,
                            border=HEADER_BORDER) for name in names]


def new_sheet(book: Workbook, title: str, widths: Sequence[float],
              freeze: bool = True) -> WriteOnlyWorksheet:
    """A write-only sheet with column widths set and the first row frozen."""
    sheet: WriteOnlyWorksheet = book.create_sheet(title)
    for index, width in enumerate(widths, start=1):
        # types-openpyxl leaves out what WriteOnlyWorksheet takes from Worksheet._setup
        sheet.column_dimensions[get_column_letter(index)].width = width  # type: ignore[attr-defined]
    if freeze:
        sheet.freeze_panes = "A2"
    return sheet


def _numbers(values: Iterable[float]) -> list[float | None]:
    """Floats with NaN as None (an empty cell)."""
    return [None if v != v else v for v in values]


def _texts(values: Iterable[object], maker: CellMaker) -> list[object]:
    """Strings as cells via `maker`; empty strings and None as empty cells."""
    return [maker.text(v) if isinstance(v, str) and v else None for v in values]


# ----------------------------------------------------------------------------- gold
def _gold_cells(series: pd.Series, name: str, letter: str, first: int,
                fitter: TextFitter) -> list[str]:
    """The cells of one column of a chunk of the gold table."""
    if name in BOOL_COLUMNS:
        return boolean_cells(series.to_numpy(dtype=bool), letter, first)
    if name == "n_ratings" or series.dtype.kind in "iu":  # counts: whole numbers
        return integer_cells(series.to_numpy(dtype="int64"), letter, first)
    if name in TEXT_COLUMNS:
        return text_cells(series.tolist(), letter, first, fitter)
    return number_cells(series.to_numpy(dtype="float64"), letter, first)


def _gold_rows(gold: pd.DataFrame, header: list[str], fitter: TextFitter,
               progress: Progress | None, total: int) -> Iterator[str]:
    """The XML of the gold sheet's rows, a chunk at a time (progress told after each)."""
    letters = [get_column_letter(i) for i in range(1, len(header) + 1)]
    for start, stop in row_chunks(len(gold)):
        part, first = gold.iloc[start:stop], start + 2  # row 1 is the header
        yield rows_xml([_gold_cells(part[name], name, letter, first, fitter)
                        for name, letter in zip(header, letters, strict=True)], first)
        if progress:
            progress(stop, total)


def write_gold_sheet(book: Workbook, gold: pd.DataFrame, progress: Progress | None,
                     total: int) -> SheetBody:
    """Sheet `gold`: the TSV table, one row per item (its rows come when the file is saved)."""
    header = table_header(gold)
    widths = [GOLD_WIDTHS.get(n, max(12, len(n) + 2)) for n in header]
    sheet = new_sheet(book, "gold", widths)
    maker = CellMaker(sheet)
    sheet.append(maker.header(header))
    if len(gold):
        sheet.auto_filter.ref = (  # type: ignore[attr-defined]  # as in new_sheet
            f"A1:{get_column_letter(len(header))}{len(gold) + 1}")
    return SheetBody(sheet, _gold_rows(gold, header, maker.fitter, progress, total),
                     maker.fitter)


# ----------------------------------------------------------------------------- ratings
def _status(skipped: np.ndarray, excluded: np.ndarray) -> list[str]:
    """`skipped`, `excluded`, both, or "" (no cell) for an ordinary counted rating."""
    return np.where(skipped & excluded, "skipped, excluded",
                    np.where(skipped, "skipped", np.where(excluded, "excluded", ""))).tolist()


def _ratings_rows(ratings: pd.DataFrame, excluded: set[str], fitter: TextFitter,
                  progress: Progress | None, done: int, total: int) -> Iterator[str]:
    """The XML of the ratings sheet's rows, a chunk at a time (progress told after each)."""
    for start, stop in row_chunks(len(ratings)):
        part, first = ratings.iloc[start:stop], start + 2
        names = part["annotator"]
        status = _status(part["skipped"].to_numpy(dtype=bool),
                         names.isin(excluded).to_numpy(dtype=bool))
        yield rows_xml([
            text_cells(part["item_id"].tolist(), "A", first, fitter),
            text_cells(names.tolist(), "B", first, fitter),
            number_cells(part["score"].to_numpy(dtype="float64"), "C", first),
            text_cells(status, "D", first, fitter),
            text_cells(part["note"].tolist(), "E", first, fitter),
        ], first)
        if progress:
            progress(done + stop, total)


def write_ratings_sheet(book: Workbook, ratings: pd.DataFrame, excluded: Sequence[str],
                        progress: Progress | None, done: int, total: int) -> SheetBody:
    """Sheet `ratings`: one row per rating (long form), skipped and excluded ones marked.

    Kept to the columns a reader needs (the dataset is on the gold sheet, the times in the
    project's change log): a 200,000 item project has 600,000 ratings.
    """
    sheet = new_sheet(book, "ratings", RATING_WIDTHS)
    maker = CellMaker(sheet)
    sheet.append(maker.header(RATING_HEADER))
    rows = _ratings_rows(ratings, set(excluded), maker.fitter, progress, done, total)
    return SheetBody(sheet, rows, maker.fitter)


# ----------------------------------------------------------------------------- adjudications
def write_adjudications_sheet(book: Workbook, gold: pd.DataFrame, adjudications: pd.DataFrame,
                              second_look: Iterable[str]) -> list[str]:
    """Sheet `adjudications`: each verdict with its note, who, when, and the ratings' summary."""
    sheet = new_sheet(book, "adjudications", ADJUDICATION_WIDTHS)
    maker = CellMaker(sheet)
    sheet.append(maker.header(ADJUDICATION_HEADER))
    again = set(second_look)
    summary = gold[["item_id", "dataset", "n_ratings", "mean", "min", "max", "left", "right"]]
    table = adjudications[["item_id", "score", "note", "by", "at"]].merge(
        summary, on="item_id", how="left")
    for row in table.itertuples(index=False):
        at = dt.datetime.fromtimestamp(row.at).replace(microsecond=0)
        item_id, dataset, note, by = _texts([row.item_id, row.dataset, row.note, row.by], maker)
        sheet.append([
            item_id, dataset, float(row.score), note, by,
            maker.styled(at, number_format=DATE_FORMAT), int(row.n_ratings),
            *_numbers([row.mean, row.min, row.max]), row.item_id in again,
            *_texts([row.left, row.right], maker),
        ])
    return maker.fitter.warnings("adjudications")


def write_annotators_sheet(book: Workbook, annotators: pd.DataFrame) -> None:
    """Sheet `annotators`: the per-annotator report (ratings, agreement, check items)."""
    sheet = new_sheet(book, "annotators", [16, 8, 8, 8, 8, 14, 13, 10, 9, 15, 8, 8, 40])
    maker = CellMaker(sheet)
    sheet.append(maker.header(list(annotators.columns)))
    for row in annotators.itertuples(index=False):
        cells = []
        for value in row:
            if isinstance(value, str):
                cells.append(maker.text(value))
            elif value is None or (isinstance(value, float) and np.isnan(value)):
                cells.append(None)
            elif isinstance(value, (bool, np.bool_)):
                cells.append(bool(value))
            else:
                cells.append(float(value) if isinstance(value, (float, np.floating))
                             else int(value))
        sheet.append(cells)


def write_xlsx_report(gold: pd.DataFrame, out: str | Path, scale: Scale,
                      progress: Progress | None = None, ratings: pd.DataFrame | None = None,
                      adjudications: pd.DataFrame | None = None, excluded: Sequence[str] = (),
                      title: str = "", second_look: Sequence[str] = (),
                      threshold: object = 1.0,
                      annotators: pd.DataFrame | None = None,
                      agreement_sheet: Callable[[Workbook], None] | None = None) -> list[str]:
    """Write the report's sheets to `out` atomically; returns warnings for the user.
    `agreement_sheet(book)` adds the agreement sheet after the ratings (the caller computes it).
    Scores are the exact grid floats; the figure columns are rounded as in the TSV export."""
    gold = round_figures(gold, figure_decimals(scale))
    ratings = ratings if ratings is not None else _ratings_from_gold(gold)
    adjudications = adjudications if adjudications is not None else pd.DataFrame(
        columns=["item_id", "score", "note", "by", "at"])
    for name, rows in (("gold", len(gold)), ("ratings", len(ratings))):
        if rows + 1 > SHEET_ROWS:  # Excel would refuse (or cut) the file; say so now
            raise SimrateError(f"the {name} sheet would need {rows + 1:,} rows, more than the "
                               f"{SHEET_ROWS:,} a spreadsheet holds (export TSV or JSONL "
                               "instead)", out)
    total = len(gold) + len(ratings)
    with scratch_folder(check_writable_target(out)):
        book = Workbook(write_only=True)
        try:
            bodies = [write_gold_sheet(book, gold, progress, total),
                      write_ratings_sheet(book, ratings, excluded, progress, len(gold), total)]
            if agreement_sheet is not None:
                agreement_sheet(book)
            later = write_adjudications_sheet(book, gold, adjudications, second_look)
            if annotators is not None and len(annotators):
                write_annotators_sheet(book, annotators)
            with atomic_path(out) as temp:
                save_book(book, temp, bodies)
        except BaseException as exc:
            discard(book)
            failure = _os_error(exc)
            if failure is not None:  # openpyxl's scratch files met a full disk
                raise SimrateError(f"cannot write: {os_message(failure)}", out) from None
            raise
    return [*bodies[0].fitter.warnings("gold"), *bodies[1].fitter.warnings("ratings"), *later]


def _os_error(exc: BaseException) -> OSError | None:
    """The OSError behind a failed write: lxml, which streams the sheets, reports a full
    disk as its own SerialisationError naming IO_ENOSPC."""
    if isinstance(exc, OSError):
        return exc
    text = str(exc)
    for code in ("ENOSPC", "EDQUOT", "EIO", "EACCES"):
        if f"IO_{code}" in text:
            number = getattr(errno, code)
            return OSError(number, os.strerror(number))
    return None


def discard(book: Workbook) -> None:
    """Close an abandoned write-only workbook and delete the temporary files openpyxl made."""
    for sheet in book.worksheets:
        writer = getattr(sheet, "_writer", None)
        if writer is None:
            continue
        rows = getattr(sheet, "_rows", None)
        # each step may fail on a half-written sheet; the files go regardless
        with contextlib.suppress(Exception):
            if rows is not None:
                rows.close()
        with contextlib.suppress(Exception):
            writer.close()
        with contextlib.suppress(Exception):
            writer.cleanup()


def _ratings_from_gold(gold: pd.DataFrame) -> pd.DataFrame:
    """A long ratings frame rebuilt from the gold table's rating columns (no notes, no times)."""
    columns = annotator_columns(gold)
    long = gold.melt(id_vars=["item_id"], value_vars=columns, var_name="annotator",
                     value_name="score").dropna(subset=["score"])
    long["annotator"] = long["annotator"].str[len(RATING_PREFIX):]
    long["skipped"] = False
    long["note"] = ""
    long["updated_at"] = np.nan
    return long.reset_index(drop=True)

