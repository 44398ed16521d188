"""Reading XLSX workbooks as tables: the first visible sheet's rows as records, with the
same messages as text files (a damaged workbook, hidden sheets, formulas saved without
their values, a zip that unpacks too large)."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

from simrate.core.base.errors import SimrateError, cut
from simrate.formats.intake.limits import check_columns, check_unpacked_size, input_source
from simrate.formats.intake.xlsx_formulas import refuse_formulas_without_values

#: One record of a table: the 1-based row number and its fields as strings (as textio's).
Record = tuple[int, list[str]]

XLSX_EXTENSIONS = (".xlsx", ".xlsm")


def is_xlsx(path: str | Path) -> bool:
    """True for a spreadsheet file we read with openpyxl."""
    return Path(path).suffix.lower() in XLSX_EXTENSIONS


def xlsx_cell_text(value: object) -> str:
    """A spreadsheet cell as text: numbers without a spurious '.0', dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def workbook_records(source: Path | BytesIO, path: Path) -> list[Record]:
    """Rows of the first worksheet as records (line = spreadsheet row number), from a
    workbook already within the limits (intake/pipeline.py bounds it first)."""
    from openpyxl import load_workbook  # imported lazily: only spreadsheet users pay for it

    try:
        book = load_workbook(source, read_only=True, data_only=True)
    except Exception:  # openpyxl raises many types for damaged files
        raise SimrateError("not a readable XLSX workbook (damaged, or another kind of file "
                           "under an .xlsx name): open and save it in a spreadsheet program",
                           path) from None
    try:
        sheet = first_visible_sheet(book, path)
        sheet.reset_dimensions()  # a stated size of A1:XFD1048576 must not pad every row
        records: list[Record] = []
        for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
            fields = check_columns([xlsx_cell_text(value) for value in row], path, number)
            while fields and not fields[-1].strip():
                fields.pop()
            if fields:
                records.append((number, fields))
        refuse_formulas_without_values(source, sheet, path)
    except SimrateError:
        raise
    except Exception as exc:  # a damaged part inside a sound zip: openpyxl raises anything
        raise SimrateError(f"not a readable XLSX workbook: the sheet is damaged "
                           f"({cut(str(exc), 60) or 'no detail'})", path) from None
    finally:
        book.close()
    if not records:
        raise SimrateError("file is empty", path)
    return records


def first_visible_sheet(book, path: Path):
    """The first worksheet not hidden: a hidden sheet (a lookup table, an old version) is
    not what a user sees as the data when opening the file."""
    visible = [sheet for sheet in book.worksheets if sheet.sheet_state == "visible"]
    if not visible:
        raise SimrateError("every sheet of this workbook is hidden; show the sheet to read",
                           path)
    return visible[0]


def xlsx_sheet_note(path: str | Path) -> str | None:
    """A note naming the sheet read when sheets before it are hidden (None otherwise)."""
    from openpyxl import load_workbook

    try:  # a pipe's bytes come from memory (it can be read once), within the size limits
        path = Path(path)
        source = input_source(path)
        check_unpacked_size(path, source)
        book = load_workbook(source, read_only=True)
    except Exception:  # noqa: BLE001 - the reader itself says why it cannot read the file
        return None
    try:
        sheets = book.worksheets
        read = next((s for s in sheets if s.sheet_state == "visible"), None)
        if read is None or read is sheets[0]:
            return None
        hidden = [s.title for s in sheets[:sheets.index(read)]]
        return (f"read sheet {read.title!r}, the first visible one (hidden: "
                f"{', '.join(repr(h) for h in hidden)})")
    finally:
        book.close()
