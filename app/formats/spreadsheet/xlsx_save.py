"""Saving the report: openpyxl's workbook with the big sheets' rows put in, leaving nothing
behind and printing nothing when it fails.

openpyxl writes its workbook (every sheet, but the big ones only down to their header row)
into memory; the file is then written member by member, and each big sheet gets its rows
(xlsx_rows.py) streamed in just before its `</sheetData>`.

openpyxl's `Workbook.save` leaves its zip archive open when writing fails (a full disk),
and the archive's finaliser then tries again and prints a traceback at exit; its
write-only sheets keep scratch files in the system temp folder, which a killed process
never removes. Here the archive is closed on failure, and the scratch files go into a
folder beside the target (app/formats/output/leftovers.py) that the next export sweeps.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from zipfile import ZIP_DEFLATED, ZipFile

from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from simrate.formats.output.leftovers import sweep, temp_name, work_place
from simrate.formats.spreadsheet.xlsx_rows import SheetBody

_TEMPDIR_LOCK = threading.Lock()


def save_book(book: Workbook, path: Path, bodies: Sequence[SheetBody] = ()) -> None:
    """Write `book` to `path` with the rows of `bodies` in their sheets; the archive is
    closed whatever happens."""
    if book.write_only and not book.worksheets:
        book.create_sheet()
    frame = io.BytesIO()
    book.properties.modified = dt.datetime.now(tz=dt.timezone.utc).replace(tzinfo=None)
    ExcelWriter(book, ZipFile(frame, "w", ZIP_DEFLATED)).save()  # small: no big sheet rows
    archive = ZipFile(path, "w", ZIP_DEFLATED, allowZip64=True)
    try:
        with ZipFile(frame) as made:
            rows = {body.part: body for body in bodies}
            for member in made.infolist():
                if member.filename in rows:
                    _stream_sheet(archive, member.filename, made.read(member),
                                  rows[member.filename])
                else:
                    archive.writestr(member, made.read(member))
        archive.close()
    except BaseException:
        with contextlib.suppress(Exception):
            archive.close()  # fails again on a full disk, but lets go of the file
        archive.fp = None  # nothing left for the finaliser to retry
        raise


def _stream_sheet(archive: ZipFile, name: str, xml: bytes, body: SheetBody) -> None:
    """A sheet's XML into `archive`, with the body's rows after the rows it already has."""
    head, mark, tail = xml.partition(b"</sheetData>")
    if not mark:  # a sheet without rows: <sheetData/>
        head, mark, tail = xml.partition(b"<sheetData/>")
        head += b"<sheetData>"
    with archive.open(name, "w", force_zip64=True) as member:
        member.write(head)
        for chunk in body.chunks:
            member.write(chunk.encode("utf-8"))
        member.write(b"</sheetData>" + tail)


@contextlib.contextmanager
def scratch_folder(target: Path) -> Iterator[Path]:
    """A folder beside `target` that holds openpyxl's scratch files while the block runs.

    openpyxl names no folder of its own; it uses the tempfile module's, so that is
    pointed here for the block (one export at a time changes it, under a lock).
    """
    scratch = temp_name(work_place(Path(target)), "scratch")
    sweep(scratch.parent)
    scratch.mkdir()
    try:
        with _TEMPDIR_LOCK:
            saved = tempfile.tempdir
            tempfile.tempdir = str(scratch)
            try:
                yield scratch
            finally:
                tempfile.tempdir = saved
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
