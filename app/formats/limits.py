"""Limits that keep time and memory bounded for hostile files; each refusal names its limit.

Sizes are checked before the expensive step: line lengths by reading the file in pieces
before it is read whole, a workbook's unpacked size from its zip directory before openpyxl
opens it, and the number of columns as each line is split.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

from simrate.core.base.errors import SimrateError

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


def check_line_lengths(path: Path) -> None:
    """Refuse a file with a line over MAX_LINE_BYTES, reading it in pieces (not whole)."""
    check = _LineCheck(path)
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            check.feed(chunk)


def _too_large(path: Path) -> SimrateError:
    return SimrateError(f"larger than {MAX_INPUT_BYTES // 2**30} GiB, the most simrate reads "
                        "from one input (split it into several files)", path)


#: The pipes read: (device, inode, change time) -> their bytes, so that telling its format and then
#: reading it see the same data (a pipe can be read only once).
#: Every pipe of one command is kept (an import tells the format of all its files before it
#: reads any), up to this many.
_STREAM_CACHE: dict[tuple[int, int, int], tuple[bytes, bool]] = {}
_STREAMS_KEPT = 16


def input_kind(path: Path) -> str:
    """"file", "stream" (a pipe, process substitution, a socket) or a SimrateError for a
    missing path, a folder or a device."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise SimrateError("no such file", path) from None
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
    if stat.S_ISDIR(mode):
        raise SimrateError("is a folder, not a file", path)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise SimrateError("is a device, not a file: simrate reads files and pipes (save the "
                           "data to a file first)", path)
    return "file" if stat.S_ISREG(mode) else "stream"


def read_input(path: str | Path, text: bool = True) -> bytes:
    """The bytes of a file or pipe, read under the same limits whatever the source.

    At most MAX_INPUT_BYTES; with `text`, no line over MAX_LINE_BYTES (checked in pieces
    before a regular file is read whole, and as a pipe is read). A device is refused: it
    never ends. A pipe is read once; later calls for it return the same bytes.
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if input_kind(path) == "file":
        if info is not None and info.st_size > MAX_INPUT_BYTES:
            raise _too_large(path)
        try:
            if text:
                check_line_lengths(path)
            with open(path, "rb") as stream:
                data = stream.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
        if len(data) > MAX_INPUT_BYTES:
            raise _too_large(path)
        return data
    key = _stream_key(info)
    if key in _STREAM_CACHE:
        data, checked = _STREAM_CACHE[key]
        if text and not checked:
            _LineCheck(path).feed(data)
            _STREAM_CACHE[key] = (data, True)
        return data
    data = _read_stream(path, text)
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


def _read_stream(path: Path, text: bool) -> bytes:
    """A pipe's bytes, read in pieces under the size and line limits."""
    check = _LineCheck(path) if text else None
    buffer = bytearray()
    try:
        with open(path, "rb", buffering=0) as stream:
            while chunk := stream.read(_CHUNK):
                if check is not None:
                    check.feed(chunk)
                buffer += chunk
                if len(buffer) > MAX_INPUT_BYTES:
                    raise _too_large(path)
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
    return bytes(buffer)


def input_source(path: str | Path) -> Path | io.BytesIO:
    """What a reader that needs to seek (openpyxl, zipfile, expat with a retry) opens: the
    path of a regular file, or a pipe's bytes in memory (read under the limits)."""
    path = Path(path)
    if input_kind(path) == "file":
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
