"""Telling a file's format from its name and first bytes, and reading items of any format."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.formats.catalog.registry import READ, names
from simrate.formats.intake.limits import input_kind
from simrate.formats.intake.pipeline import load_table, read
from simrate.formats.intake.textio import (
    Record,
    TextFile,
    csv_records,
    decode,
    normalise_name,
    normalise_newlines,
    parse_number,
    refuse_bomless_utf16,
    sniff_delimiter,
    tsv_records,
    wide_encoding,
)
from simrate.formats.intake.xlsx_read import is_xlsx
from simrate.formats.readers.clss import LEVELS, clss_gold_level, clss_level
from simrate.formats.readers.jsonl import is_jsonl, read_jsonl_pairs
from simrate.formats.readers.pairs import HEADER_SCAN_ROWS, text_name_pair
from simrate.formats.readers.pit import CROWD_VOTES, EXPERT_DIGIT
from simrate.formats.readers.ratings import ANNOTATOR_NAMES, ITEM_NAMES, RATING_PREFIX, SCORE_NAMES
from simrate.formats.readers.sts import sts_dataset_name, sts_gold_dataset
from simrate.formats.readers.turk import is_turk_header

SQLITE_MAGIC = b"SQLite format 3\x00"
ZIP_MAGIC = b"PK\x03\x04"
HEAD_BYTES = 256 * 1024  # enough for dozens of records, cheap for a 200,000-line file
HEAD_RECORDS = 50

#: format -> "module:function" of its item reader, imported when first used (the registry's)
ITEM_READERS = {fmt.name: fmt.entry for fmt in READ if fmt.holds == "items"}
#: Every format a file can be read as: the item readers', then ratings, projects (merged)
#: and crowd results (the choices of `simrate import --format`, beside auto).
FORMATS = names("read")


def _head_text(path: Path, data: bytes) -> TextFile:
    """The first complete lines of a text file, decoded, for a look at its content."""
    head = data[:HEAD_BYTES]
    if len(data) > HEAD_BYTES and b"\n" in head:
        head = head[: head.rindex(b"\n") + 1]
    text, encoding = decode(head)
    return TextFile(path, normalise_newlines(text), encoding)


def _looks_like_pit(records: list[Record], suffix: str) -> bool:
    """Tab records of 4-7 fields whose 5th, when present, is a crowd vote or an expert digit."""
    if not records:
        return False
    for _, fields in records:
        if not 4 <= len(fields) <= 7:
            return False
        if len(fields) >= 5 and not (CROWD_VOTES.match(fields[4].strip())
                                     or EXPERT_DIGIT.match(fields[4].strip())):
            return False
    return suffix == ".data" or len(records[0][1]) == 7


def _is_ratings_table(records: list[Record]) -> bool:
    """A header with an item id column and no texts, then scores (long) or numbers (wide)."""
    header = [normalise_name(f) for f in records[0][1]]
    if not any(name in ITEM_NAMES for name in header):
        return False
    if text_name_pair(header) is not None:
        return False
    if any(name in SCORE_NAMES for name in header):
        return True
    raw = [f.strip().lower() for f in records[0][1]]
    if any(name in ANNOTATOR_NAMES for name in header) or any(
            name.startswith(RATING_PREFIX) for name in raw):
        return True
    # wide: every cell outside the id column is empty or a number
    id_index = next(i for i, name in enumerate(header) if name in ITEM_NAMES)
    cells = [cell.strip() for _, fields in records[1:] for i, cell in enumerate(fields)
             if i != id_index]
    return bool(cells) and all(not c or parse_number(c) is not None or c in ("-", "NaN", "nan")
                               for c in cells)


def _header_position(records: list[Record]) -> int:
    """Where a spreadsheet's header is: the first of the top rows naming an item id or texts."""
    for position, (_, fields) in enumerate(records[:HEADER_SCAN_ROWS]):
        loose = [normalise_name(f) for f in fields]
        if any(n in ITEM_NAMES for n in loose) or text_name_pair(loose) is not None:
            return position
    return 0


def _table_format(records: list[Record]) -> str:
    """`turk`, `ratings` or `pairs` for a CSV/TSV/XLSX table."""
    if records and is_turk_header(records[0][1]):
        return "turk"
    return "ratings" if records and _is_ratings_table(records) else "pairs"


def _text_format(head: TextFile, suffix: str) -> str:
    """pyramid, pit, ratings or pairs, judged from the first lines of a text file."""
    if "<pyramid" in head.text and head.text.lstrip().startswith("<"):
        return "pyramid"
    delimiter = sniff_delimiter(head)
    if delimiter == "\t":
        records = tsv_records(head)[:HEAD_RECORDS]
        if _looks_like_pit(records, suffix):
            return "pit"
    else:
        try:
            records = list(csv_records(head, delimiter))[:HEAD_RECORDS]
        except SimrateError:
            records = []
    return _table_format(records)


def _starts_like_sqlite(path: Path) -> bool:
    """True for a regular file that starts like an SQLite database (a pipe is no project)."""
    if input_kind(path) != "file":
        return False
    try:
        with open(path, "rb") as stream:
            return stream.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None


def detect_format(path: str | Path) -> str:
    """Name the format of a file: pairs, sts, pit, clss, ratings, pyramid or project."""
    path = Path(path)
    suffix = path.suffix.lower()
    input_kind(path)  # missing, a folder or a device: said here, whatever the name
    if suffix == ".simrate" or _starts_like_sqlite(path):
        return "project"
    # the bound step: under the limits (a pipe's lines are checked as it is read); only the
    # head is decoded, below. A workbook is bounded and read by its cells (load_table).
    data: bytes = b"" if is_xlsx(path) else read(path, bytes, "bytes")
    if suffix in (".pyr", ".pan"):
        return "pyramid"
    if is_jsonl(path):
        return "pairs"  # our own JSONL export, read back as pairs with gold as reference
    if sts_gold_dataset(path) or (clss_gold_level(path) or "").lower() in LEVELS:
        raise SimrateError("this is a gold key: import the input file beside it, which "
                           "brings its scores along", path)
    if sts_dataset_name(path):
        return "sts"
    if (clss_level(path) or "").lower() in LEVELS:
        return "clss"
    if is_xlsx(path):
        records = load_table(path).records
        return _table_format(records[_header_position(records):][:HEAD_RECORDS])
    if not data.strip(b" \t\r\n\xef\xbb\xbf"):
        raise SimrateError("file is empty", path)
    if suffix in (".xls", ".ods", ".numbers"):
        raise SimrateError(f"simrate reads spreadsheets as .xlsx: save this {suffix} file "
                           "as .xlsx (or as CSV) first", path)
    if data.startswith(ZIP_MAGIC):
        raise SimrateError("a zip file (a workbook?): simrate reads workbooks from files named "
                           ".xlsx; save it as one", path)
    nul = -1 if wide_encoding(data) else data.find(b"\x00", 0, HEAD_BYTES)
    if nul >= 0:
        refuse_bomless_utf16(data, path)
        raise SimrateError("a NUL byte: a binary file of a kind simrate does not read", path,
                           data.count(b"\n", 0, nul) + 1)
    return _text_format(_head_text(path, data), suffix)


def _reader(fmt: str) -> Callable[..., pd.DataFrame]:
    """The item reader of a format, imported on first use."""
    module_name, function_name = ITEM_READERS[fmt].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise SimrateError(f"reading {fmt} files is not available in this build") from None
    return getattr(module, function_name)


def read_items(path: str | Path, fmt: str = "auto", **options: object) -> pd.DataFrame:
    """Read the items of a file in format `fmt` (or detected) into an item frame.

    Options a reader does not take (e.g. `seed` for a TSV file) are ignored, so a caller
    can pass the same command-line options for every file.
    """
    if fmt == "auto":
        fmt = detect_format(path)
    if fmt == "ratings":
        raise SimrateError("this is a ratings file: it holds ratings, not items", path)
    if fmt == "project":
        raise SimrateError("this is a project file: it is merged, not read as items", path)
    if fmt == "turk":
        raise SimrateError("this is a crowd results file: it holds ratings, not items", path)
    if fmt not in ITEM_READERS:
        raise SimrateError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    reader: Callable[..., pd.DataFrame] = (read_jsonl_pairs if fmt == "pairs" and is_jsonl(path)
                                           else _reader(fmt))
    accepted = inspect.signature(reader).parameters
    chosen = {k: v for k, v in options.items() if k in accepted and v is not None}
    return reader(path, **chosen)
