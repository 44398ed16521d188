"""Limits that keep time and memory bounded for hostile files; each refusal names its limit.

Sizes are checked before the expensive step: line lengths by reading the file in pieces
before it is read whole, a workbook's unpacked size from its zip directory before openpyxl
opens it, and the number of columns as each line is split.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from app.core.errors import SimrateError

#: Limits that keep memory bounded for hostile files (each refusal names its limit).
#: A line may hold a few texts of MAX_TEXT_CHARS characters, four bytes each at most.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: As many columns as a spreadsheet can have (Excel's limit).
MAX_COLUMNS = 16_384
#: The unpacked size of all parts of an XLSX workbook (zip bombs unpack to gigabytes).
MAX_XLSX_UNPACKED = 256 * 1024 * 1024


def check_line_lengths(path: Path) -> None:
    """Refuse a file with a line over MAX_LINE_BYTES, reading it in pieces (not whole)."""
    run, lines_before = 0, 0  # bytes of the unfinished line; line ends before this chunk
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 22):
            pieces = chunk.replace(b"\r", b"\n").split(b"\n")  # CR alone ends old Mac lines
            if run + len(pieces[0]) > MAX_LINE_BYTES or max(map(len, pieces)) > MAX_LINE_BYTES:
                start = _long_piece_start(pieces, run)
                line = lines_before + chunk.count(b"\n", 0, start) + 1
                raise SimrateError(f"a line longer than {MAX_LINE_BYTES // 2**20} MiB (the "
                                   "longest line simrate reads)", path, line)
            run = run + len(chunk) if len(pieces) == 1 else len(pieces[-1])
            lines_before += chunk.count(b"\n")


def _long_piece_start(pieces: list[bytes], run: int) -> int:
    """Offset in the chunk where the first over-long line (or its continuation) starts."""
    offset = 0
    for k, piece in enumerate(pieces):
        if (run if k == 0 else 0) + len(piece) > MAX_LINE_BYTES:
            return offset
        offset += len(piece) + 1
    return offset


def check_columns(fields: list[str], path: Path, line: int) -> list[str]:
    """`fields`, refused when there are more than MAX_COLUMNS of them."""
    if len(fields) > MAX_COLUMNS:
        raise SimrateError(f"{len(fields):,} columns; simrate reads at most {MAX_COLUMNS:,} "
                           "(the column limit of spreadsheets)", path, line)
    return fields


def check_unpacked_size(path: Path) -> None:
    """Refuse a workbook whose parts unpack to more than MAX_XLSX_UNPACKED bytes.

    The sizes come from the zip directory; reading never goes past them (zipfile stops
    there and checks the CRC), so a part cannot unpack to more than it states.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a zip at all: openpyxl's refusal names it
    if unpacked > MAX_XLSX_UNPACKED:
        raise SimrateError(f"the workbook unpacks to {unpacked / 2**20:,.0f} MiB; simrate "
                           f"reads workbooks up to {MAX_XLSX_UNPACKED // 2**20} MiB unpacked "
                           "(save the sheet as CSV instead)", path)
