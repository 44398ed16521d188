"""Formula cells without a saved value: a workbook written by a program and never opened.

A spreadsheet program saves each formula's result beside it; openpyxl reads that result.
A workbook written by a script holds the formula alone, and its cells would read as empty:
a rating silently missing, an item without its reference. Such a cell is named instead.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import IO, TYPE_CHECKING
from xml.etree.ElementTree import ParseError, iterparse

from simrate.core.base.errors import SimrateError

if TYPE_CHECKING:
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
#: A formula element, with or without a namespace prefix (`<f>`, `<f t="shared" ...>`).
_FORMULA_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?f[\s>/]")
_CHUNK = 1 << 20


def _holds_formulas(member: IO[bytes]) -> bool:
    """True when the part's XML holds a formula element (a byte scan, in pieces)."""
    tail = b""
    while chunk := member.read(_CHUNK):
        if _FORMULA_TAG.search(tail + chunk):
            return True
        tail = chunk[-32:]
    return False


def _no_value(cell) -> bool:
    """True for a formula cell without a saved result: no <v>, or an empty one where the
    result is no text (a formula giving "" is saved as t="str" with an empty <v>)."""
    value = cell.find(f"{_MAIN}v")
    if value is None:
        return cell.get("t") != "inlineStr"
    return not (value.text or "") and cell.get("t") != "str"


def formula_without_value(source: Path | io.BytesIO, part: str) -> str | None:
    """The reference (C7) of the first cell of worksheet `part` holding a formula but no
    saved value, or None."""
    with zipfile.ZipFile(source) as archive:
        with archive.open(part) as member:
            if not _holds_formulas(member):
                return None
        with archive.open(part) as member:
            for _, element in iterparse(member):
                if element.tag == f"{_MAIN}c":
                    if element.find(f"{_MAIN}f") is not None and _no_value(element):
                        return element.get("r") or "?"
                elif element.tag == f"{_MAIN}row":
                    element.clear()  # rows read are not kept
    return None


def refuse_formulas_without_values(source: Path | io.BytesIO, sheet: ReadOnlyWorksheet,
                                   path: Path) -> None:
    """SimrateError naming the sheet and cell of a formula without a saved value."""
    part = getattr(sheet, "_worksheet_path", None)  # openpyxl's read-only sheets know it
    if not part:
        return
    if isinstance(source, io.BytesIO):
        source.seek(0)
    try:
        cell = formula_without_value(source, part)
    except (zipfile.BadZipFile, KeyError, ParseError, OSError):
        return  # what openpyxl read is all there is to say
    if cell is not None:
        row = int(re.sub(r"\D", "", cell) or 0) or None
        raise SimrateError(f"cell {sheet.title}!{cell} holds a formula without a saved "
                           "value (the workbook was written by a program and never "
                           "calculated): open it in a spreadsheet program, save it, and "
                           "import it again", path, row)
