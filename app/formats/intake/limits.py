"""Limits that keep time and memory bounded for hostile files; each refusal names its limit.

Sizes are checked before the expensive step: a file's size before it is read and a pipe's
as it is read (core/base/inputs.py, the one bounded reader), line lengths as the bytes come
in, a workbook's unpacked size from its zip directory before openpyxl opens it, and the
number of columns as each line is split.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.inputs import read_bounded, state_input

#: Limits that keep memory bounded for hostile files (each refusal names its limit).
#: A line may hold a few texts of MAX_TEXT_CHARS characters, four bytes each at most.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: As many columns as a spreadsheet can have (Excel's limit).
MAX_COLUMNS = 16_384
#: The unpacked size of all parts of an XLSX workbook (zip bombs unpack to gigabytes).
MAX_XLSX_UNPACKED = 256 * 1024 * 1024


#: The largest input simrate reads, from a file, a pipe or process substitution alike.
MAX_INPUT_BYTES = 1 << 30
_CHUNK = 1 << 22  # at most MAX_LINE_BYTES: a line inside one chunk is never too long


class _LineCheck:
    """Refuses a line over MAX_LINE_BYTES in bytes fed piece by piece (any CR or LF ends a
    line, as in old Mac files); line numbers count LFs, as editors do."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.run = 0  # bytes of the line still open at the end of what was fed
        self.lines = 0  # LFs fed so far

    def feed(self, chunk: bytes) -> None:
        for start in range(0, len(chunk), _CHUNK):
            self._feed(chunk[start:start + _CHUNK] if len(chunk) > _CHUNK else chunk)

    def _feed(self, chunk: bytes) -> None:
        ends = [k for k in (chunk.find(b"\n"), chunk.find(b"\r")) if k >= 0]
        first = min(ends) if ends else len(chunk)
        if self.run + first > MAX_LINE_BYTES:  # lines inside the chunk are shorter than it
            raise SimrateError(f"a line longer than {MAX_LINE_BYTES // 2**20} MiB (the "
                               "longest line simrate reads)", self.path, self.lines + 1)
        if ends:
            self.run = len(chunk) - max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) - 1
        else:
            self.run += len(chunk)
        self.lines += chunk.count(b"\n")


_TOO_LARGE = (f"larger than {MAX_INPUT_BYTES // 2**30} GiB, the most simrate reads from one "
              "input (split it into several files)")


#: The pipes read: (device, inode, change time) -> their bytes, so that telling its format and then
#: reading it see the same data (a pipe can be read only once).
#: Every pipe of one command is kept (an import tells the format of all its files before it
#: reads any), up to this many.
_STREAM_CACHE: dict[tuple[int, int, int], tuple[bytes, bool]] = {}
_STREAMS_KEPT = 16


def input_kind(path: Path) -> str:
    """"file", "stream" (a pipe, process substitution, a socket) or a SimrateError for a
    missing path, a folder or a device (core/base/inputs.py: never opens the path)."""
    return "file" if stat.S_ISREG(state_input(path).st_mode) else "stream"


def read_input(path: str | Path, text: bool = True) -> bytes:
    """The bytes of a file or pipe, read under the same limits whatever the source, by the
    one bounded reader (core/base/inputs.py).

    At most MAX_INPUT_BYTES (a regular file refused from its size); with `text`, no line
    over MAX_LINE_BYTES. A device is refused: it never ends; a pipe that nothing writes to
    is refused within WRITER_WAIT seconds. A pipe is read once; later calls for it return
    the same bytes.
    """
    path = Path(path)
    info = state_input(path)
    if stat.S_ISREG(info.st_mode):
        return read_bounded(path, MAX_INPUT_BYTES, too_large=_TOO_LARGE,
                            feed=_LineCheck(path).feed if text else None)
    key = _stream_key(info)
    if key in _STREAM_CACHE:
        data, checked = _STREAM_CACHE[key]
        if text and not checked:
            _LineCheck(path).feed(data)
            _STREAM_CACHE[key] = (data, True)
        return data
    data = read_bounded(path, MAX_INPUT_BYTES, too_large=_TOO_LARGE,
                        feed=_LineCheck(path).feed if text else None)
    while len(_STREAM_CACHE) >= _STREAMS_KEPT:  # the oldest pipe's memory goes back
        del _STREAM_CACHE[next(iter(_STREAM_CACHE))]
    try:  # stated again now that the writer is done: its writes changed the times
        _STREAM_CACHE[_stream_key(os.stat(path))] = (data, text)
    except OSError:
        pass
    return data


def _stream_key(info: os.stat_result | None) -> tuple[int, int, int]:
    """A pipe's identity: its inode, and its change time (a new pipe may reuse the inode)."""
    if info is None:
        return (0, 0, 0)
    return (info.st_dev, info.st_ino, info.st_ctime_ns)


def input_source(path: str | Path) -> Path | io.BytesIO:
    """What a reader that needs to seek (openpyxl, zipfile, expat with a retry) opens: the
    path of a regular file, or a pipe's bytes in memory (read under the limits)."""
    path = Path(path)
    info = state_input(path)
    if stat.S_ISREG(info.st_mode):
        if info.st_size > MAX_INPUT_BYTES:
            raise SimrateError(_TOO_LARGE, path)
        return path
    return io.BytesIO(read_input(path, text=False))


def check_columns(fields: list[str], path: Path, line: int) -> list[str]:
    """`fields`, refused when there are more than MAX_COLUMNS of them."""
    if len(fields) > MAX_COLUMNS:
        raise SimrateError(f"{len(fields):,} columns; simrate reads at most {MAX_COLUMNS:,} "
                           "(the column limit of spreadsheets)", path, line)
    return fields


def check_unpacked_size(path: Path, source: Path | io.BytesIO | None = None) -> None:
    """Refuse a workbook whose parts unpack to more than MAX_XLSX_UNPACKED bytes.

    The sizes come from the zip directory; reading never goes past them (zipfile stops
    there and checks the CRC), so a part cannot unpack to more than it states.
    """
    try:
        with zipfile.ZipFile(path if source is None else source) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a zip at all: openpyxl's refusal names it
    if unpacked > MAX_XLSX_UNPACKED:
        raise SimrateError(f"the workbook unpacks to {unpacked / 2**20:,.0f} MiB; simrate "
                           f"reads workbooks up to {MAX_XLSX_UNPACKED // 2**20} MiB unpacked "
                           "(save the sheet as CSV instead)", path)
