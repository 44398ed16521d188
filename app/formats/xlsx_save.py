"""Saving an openpyxl workbook so that a failure leaves nothing behind and prints nothing.

openpyxl's `Workbook.save` leaves its zip archive open when writing fails (a full disk),
and the archive's finaliser then tries again and prints a traceback at exit; its
write-only sheets keep scratch files in the system temp folder, which a killed process
never removes. Here the archive is closed on failure, and the scratch files go into a
folder beside the target (app/formats/leftovers.py) that the next export sweeps.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from zipfile import ZIP_DEFLATED, ZipFile

from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from app.formats.leftovers import sweep, temp_name

_TEMPDIR_LOCK = threading.Lock()


def save_book(book: Workbook, path: Path) -> None:
    """`book.save(path)`, closing the archive whatever happens."""
    if book.write_only and not book.worksheets:
        book.create_sheet()
    archive = ZipFile(path, "w", ZIP_DEFLATED, allowZip64=True)
    try:
        book.properties.modified = dt.datetime.now(tz=dt.timezone.utc).replace(tzinfo=None)
        ExcelWriter(book, archive).save()  # closes the archive when it succeeds
    except BaseException:
        with contextlib.suppress(Exception):
            archive.close()  # fails again on a full disk, but lets go of the file
        archive.fp = None  # nothing left for the finaliser to retry
        raise


@contextlib.contextmanager
def scratch_folder(target: Path) -> Iterator[Path]:
    """A folder beside `target` that holds openpyxl's scratch files while the block runs.

    openpyxl names no folder of its own; it uses the tempfile module's, so that is
    pointed here for the block (one export at a time changes it, under a lock).
    """
    target = Path(target)
    folder = target.parent if str(target.parent) else Path(".")
    sweep(folder)
    scratch = temp_name(target, "scratch")
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
