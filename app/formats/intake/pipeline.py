"""Reading a file is one pipeline: detect, bound, decode, parse, in that order.

Every reader of formats gets its input from `read` (or `read_text` and `load_table`, its two
common uses), and each step has one place:

- detect (here): what kind of input the file is, from its name: a workbook, text, or XML
  (which format it holds was told before, by readers/detect.py, and chose the reader);
- bound (limits.py, through `bound`): the size, then every line's length for text, the
  unpacked size for a workbook; nothing else reads the file's bytes;
- decode (textio.py for text, xlsx_read.py for a workbook's cells, through `decode`): the
  encoding, line ends, and a table's records; an XML file's encoding is its parser's, so
  its step opens the bounded bytes as a stream;
- parse: the reader's own function, handed decoded text that is already within the limits.

So an input over a limit never reaches the decoder, and bad encoding is refused before any
reader looks at the content.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

from simrate.core.base.errors import SimrateError
from simrate.formats.intake.limits import check_unpacked_size, input_source, read_input
from simrate.formats.intake.textio import (
    Table,
    TextFile,
    decode_lenient,
    table_of,
    text_file,
    without_gc,
)
from simrate.formats.intake.xlsx_read import is_xlsx, workbook_records

#: text: decoded text; table: a text table's or a workbook's records; lenient: the bytes and
#: their text with undecodable bytes replaced (the crowd's CSV); xml: a byte stream its parser
#: decodes; bytes: the bounded bytes, for detection, which decodes only what it looks at.
Shape = Literal["text", "table", "lenient", "xml", "bytes"]
T = TypeVar("T")


@dataclass(frozen=True)
class Bounded:
    """A file's input once within the limits: its bytes, or for a workbook or an XML file
    what a parser that seeks opens (the path of a regular file, a pipe's bytes)."""

    path: Path
    shape: Shape
    workbook: bool = False
    data: bytes = b""
    source: Path | io.BytesIO | None = None


@dataclass(frozen=True)
class Lenient:
    """A crowd CSV's bytes and its text, undecodable bytes replaced."""

    data: bytes
    text: str


def detect(path: Path, shape: Shape) -> bool:
    """Step 1: whether the input is a workbook (read by its cells, not as text)."""
    return shape == "table" and is_xlsx(path)


def bound(path: Path, shape: Shape, workbook: bool = False) -> Bounded:
    """Step 2: the input under the limits of limits.py, each refusal naming its limit."""
    if workbook or shape == "xml":
        source = input_source(path)  # a regular file's size; a pipe read in memory
        if workbook:
            if source == path:
                try:
                    open(path, "rb").close()
                except OSError as exc:
                    raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
            check_unpacked_size(path, source)
        return Bounded(path, shape, workbook, source=source)
    return Bounded(path, shape, data=read_input(path, text=True))


def decode(bounded: Bounded) -> Any:
    """Step 3: the bounded input decoded, as its shape asks."""
    path, shape = bounded.path, bounded.shape
    if bounded.workbook:
        assert bounded.source is not None
        return Table(workbook_records(bounded.source, path), True, "xlsx")
    if shape == "xml":
        source = bounded.source
        assert source is not None
        stream: BinaryIO = source.open("rb") if isinstance(source, Path) else source
        return stream
    if shape == "bytes":
        return bounded.data
    if shape == "lenient":
        return Lenient(bounded.data, decode_lenient(bounded.data))
    text = text_file(bounded.data, path)
    return table_of(text) if shape == "table" else text


def read(path: str | Path, parse: Callable[[Any], T], shape: Shape = "text") -> T:
    """Read a file through the pipeline: detect, bound, decode, then `parse` what came out
    (a TextFile for text, a Table for a table, a Lenient, a binary stream for XML)."""
    path = Path(path)
    decoded = decode(bound(path, shape, detect(path, shape)))
    if shape == "xml":
        with decoded:
            return parse(decoded)
    return parse(decoded)


def read_text(path: str | Path) -> TextFile:
    """A text file, decoded: the pipeline with nothing parsed yet."""
    text: TextFile = read(path, _same, "text")
    return text


@without_gc
def load_table(path: str | Path) -> Table:
    """The records of a CSV, TSV or XLSX file, with how it was read."""
    table: Table = read(path, _same, "table")
    return table


def _same(decoded: T) -> T:
    """The decoded input as it came (nothing to parse)."""
    return decoded
