"""The body rows of the report's two big sheets (gold, ratings), serialised a column at a time.

openpyxl's write-only mode and XlsxWriter's constant-memory mode both spend several
microseconds on each cell (tests/perf/bench_xlsx.py measures the two side by side), and a
200,000 item report has over six million cells. Here a chunk of rows becomes its
SpreadsheetML text with one list comprehension per column: every text an inline string
(so never a formula, a number, a link or an error value), every number a number cell,
every missing value no cell at all. openpyxl still writes the rest of the workbook (header
rows, styles, widths, frozen panes, the chart); xlsx_save.py puts these rows into the
sheets when it writes the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from openpyxl.worksheet._write_only import WriteOnlyWorksheet

#: Excel's limit on the characters of one cell, counted in UTF-16 code units (a character
#: beyond U+FFFF, such as an emoji, counts two); longer texts are cut (with a warning).
CELL_LIMIT = 32_767
#: Excel's limit on the rows of one sheet (header included); a longer table is refused.
SHEET_ROWS = 1_048_576
#: Characters XML 1.0 cannot hold (C0 controls but tab, LF and CR; lone surrogates; the two
#: noncharacters U+FFFE and U+FFFF): replaced by U+FFFD.
XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: What a text needs beyond the fast path: XML escapes, a carriage return (a character
#: reference, or a reader turns it into a line feed), leading or trailing white space.
_CAREFUL = re.compile("[&<>\r]|^\\s|\\s$|\ue000\\s|\\s\ue000")
#: Joins a chunk's texts for the checks above: a private-use character, safe in XML and no
#: white space (a text holding it only takes the slower, equally correct path).
_JOIN = "\ue000"
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})


def utf16_length(value: str) -> int:
    """The length of a text as Excel counts it: UTF-16 code units."""
    if len(value) <= CELL_LIMIT // 2:  # cheap bound: a character is one or two units
        return len(value) + sum(1 for c in value if ord(c) > 0xFFFF)
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


def cut_to_cell(value: str) -> str:
    """The longest start of `value` within CELL_LIMIT UTF-16 units, never half a character."""
    units = value.encode("utf-16-le", "surrogatepass")[:2 * CELL_LIMIT]
    if len(units) >= 2 and 0xD800 <= int.from_bytes(units[-2:], "little") <= 0xDBFF:
        units = units[:-2]  # the first half of a pair whose second half was cut off
    return units.decode("utf-16-le", "surrogatepass")


@dataclass
class TextFitter:
    """Fits texts into cells and counts what it had to change (for the user's warnings)."""

    cut: int = 0  # texts cut at Excel's cell limit
    cleaned: int = 0  # texts holding characters XML cannot store

    def fit(self, value: str) -> str:
        """`value` as a cell can hold it: cut at Excel's limit, without XML-unsafe chars."""
        if len(value) > CELL_LIMIT // 2 and utf16_length(value) > CELL_LIMIT:
            value = cut_to_cell(value)
            self.cut += 1
        if XML_UNSAFE.search(value):
            value = XML_UNSAFE.sub("\ufffd", value)
            self.cleaned += 1
        return value

    def elements(self, values: Sequence[str]) -> list[str]:
        """The `<t>` element of each text (empty strings stay empty)."""
        joined = _JOIN.join(values)
        short = len(joined) <= CELL_LIMIT // 2 or all(
            utf16_length(v) <= CELL_LIMIT for v in values if len(v) > CELL_LIMIT // 2)
        if short and not (XML_UNSAFE.search(joined) or _CAREFUL.search(joined)):
            return [f"<t>{v}</t>" if v else "" for v in values]  # the common case
        return [self.element(v) for v in values]

    def element(self, value: str) -> str:
        """The `<t>` element of one text, escaped, with white space kept where it matters."""
        if not value:
            return ""
        value = self.fit(value)
        escaped = value.translate(_ESCAPES)
        if value[0].isspace() or value[-1].isspace():
            return f'<t xml:space="preserve">{escaped}</t>'
        return f"<t>{escaped}</t>"

    def warnings(self, sheet_name: str) -> list[str]:
        """Messages about texts changed to fit a spreadsheet cell."""
        notes = []
        if self.cut:
            notes.append(f"{sheet_name}: {self.cut} text(s) longer than {CELL_LIMIT} characters "
                         "were cut (Excel's cell limit, counted in UTF-16 units: an emoji "
                         "counts two); the TSV/JSONL exports keep them whole")
        if self.cleaned:
            notes.append(f"{sheet_name}: {self.cleaned} text(s) held control characters that "
                         "XLSX cannot store; they were replaced by U+FFFD")
        return notes


def text_cells(values: Iterable[object], letter: str, first: int,
               fitter: TextFitter) -> list[str]:
    """Inline-string cells of a column chunk starting at row `first`; "" and None: no cell."""
    texts = [v if isinstance(v, str) else "" for v in values]
    return [f'<c r="{letter}{row}" t="inlineStr"><is>{t}</is></c>' if t else ""
            for row, t in enumerate(fitter.elements(texts), start=first)]


def number_cells(values: np.ndarray, letter: str, first: int) -> list[str]:
    """Number cells of a float column chunk; NaN (and infinities, which XLSX lacks): no cell."""
    finite = np.isfinite(values).tolist()
    # the shortest text that reads back as the same float; a whole number without ".0"
    texts = [repr(v).removesuffix(".0") for v in values.tolist()]
    return [f'<c r="{letter}{row}" t="n"><v>{v}</v></c>' if ok else ""
            for row, v, ok in zip(range(first, first + len(finite)), texts, finite,
                                  strict=True)]


def integer_cells(values: np.ndarray, letter: str, first: int) -> list[str]:
    """Number cells of an integer column chunk."""
    return [f'<c r="{letter}{row}" t="n"><v>{v}</v></c>'
            for row, v in enumerate(values.tolist(), start=first)]


def boolean_cells(values: np.ndarray, letter: str, first: int) -> list[str]:
    """Boolean cells of a column chunk."""
    return [f'<c r="{letter}{row}" t="b"><v>{int(v)}</v></c>'
            for row, v in enumerate(values.tolist(), start=first)]


def rows_xml(columns: Sequence[list[str]], first: int) -> str:
    """The `<row>` elements of a chunk from its columns' cells."""
    return "".join(f'<row r="{row}">{"".join(cells)}</row>'
                   for row, cells in enumerate(zip(*columns, strict=True), start=first))


@dataclass
class SheetBody:
    """The rows under a sheet's header, made chunk by chunk while the file is written.

    `sheet` is the openpyxl sheet holding the header; `chunks` yields the XML of each chunk
    of rows; `fitter` counts the texts it changed.
    """

    sheet: WriteOnlyWorksheet
    chunks: Iterator[str]
    fitter: TextFitter = field(default_factory=TextFitter)

    @property
    def part(self) -> str:
        """The sheet's file in the package, `xl/worksheets/sheetN.xml`; openpyxl numbers
        the sheets when it writes the workbook, so this is known only after that."""
        return self.sheet.path.lstrip("/")
