"""Reading text and tables robustly: encodings, line ends, quoting, 1-based line numbers."""

from __future__ import annotations

import codecs
import csv
import functools
import gc
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import MAX_TEXT_CHARS
from simrate.core.base.scale import underflows
from simrate.formats.intake.limits import check_columns
from simrate.formats.intake.xlsx_read import is_xlsx

#: One record of a table: the 1-based physical line (or spreadsheet row) where it starts,
#: and its fields as strings.
Record = tuple[int, list[str]]

DELIMITER_CANDIDATES = ("\t", ",", ";")
# The csv module refuses fields over 131,072 characters by default, simrate's own
# exports included; it reads up to the longest text simrate accepts.
csv.field_size_limit(MAX_TEXT_CHARS)


def without_gc(function: Callable) -> Callable:
    """Run `function` with the cyclic garbage collector paused, restoring its state after.

    Readers create hundreds of thousands of small lists and dicts and no cycles; the
    collector's repeated passes over them cost more than the parsing itself.
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        """`function` itself, with the collector paused."""
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper


def _cp1252_passthrough(error: UnicodeError) -> tuple[str, int]:
    """Map the five bytes cp1252 leaves undefined to the same code points, as Windows does."""
    assert isinstance(error, UnicodeDecodeError)  # registered for decoding only
    return "".join(map(chr, error.object[error.start:error.end])), error.end


codecs.register_error("simrate_cp1252", _cp1252_passthrough)


@dataclass(frozen=True)
class TextFile:
    """A decoded text file: newlines normalised to \\n, with how it was decoded."""

    path: Path
    text: str
    encoding: str  # "utf-8", "utf-8-sig" (a BOM was present) or "cp1252"
    raw: str | None = None  # the text before newline normalisation (quoted fields keep CRLF)

    @property
    def fell_back(self) -> bool:
        """True when the bytes were not UTF-8 and were read as cp1252."""
        return self.encoding == "cp1252"

    def lines(self) -> list[str]:
        """The physical lines, without the empty piece after a final newline."""
        lines = self.text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines


def without_trailing_blank_lines(lines: list[str]) -> list[str]:
    """`lines` up to the last one holding more than whitespace (editors add blank ones)."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


#: Byte-order marks of the UTF-16 and UTF-32 files Excel ("Unicode Text") and Notepad write;
#: UTF-32's come first, as its little-endian mark begins with UTF-16's.
WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
             (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def wide_encoding(data: bytes) -> str | None:
    """"utf-16" or "utf-32" when `data` starts with that encoding's byte-order mark."""
    return next((name for bom, name in WIDE_BOMS if data.startswith(bom)), None)


def _decode_wide(data: bytes, codec: str, path: Path | None) -> str:
    """A UTF-16 or UTF-32 file (its byte-order mark makes it unambiguous) as text."""
    try:
        text = data.decode(codec, "strict" if path is not None else "ignore")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].decode(codec, "ignore").count("\n") + 1
        raise SimrateError(f"starts with a {codec.upper()} byte-order mark but is not "
                           f"{codec.upper()} text ({exc.reason}); save it as UTF-8", path,
                           line) from None
    return text.lstrip("\ufeff")


def bomless_utf16(data: bytes) -> str | None:
    """"UTF-16LE" or "UTF-16BE" when `data` looks like UTF-16 text without a byte-order mark
    (a NUL byte beside most letters, always on the same side), else None."""
    head, pairs = data[:4096], len(data[:4096]) // 2
    if pairs < 2 or b"\x00" not in head:
        return None
    even, odd = head[0:pairs * 2:2].count(0), head[1:pairs * 2:2].count(0)
    if odd >= 0.4 * pairs and even <= 0.02 * pairs:
        return "UTF-16LE"
    if even >= 0.4 * pairs and odd <= 0.02 * pairs:
        return "UTF-16BE"
    return None


def refuse_bomless_utf16(data: bytes, path: Path | None) -> None:
    """SimrateError for UTF-16 text without a byte-order mark: read as UTF-8 its NUL bytes
    would be taken for binary data, or slip into the texts."""
    codec = bomless_utf16(data)
    if codec is not None:
        raise SimrateError(f"this looks like {codec} text without a byte-order mark (a NUL "
                           "byte beside every letter); save it as UTF-8, or as UTF-16 with "
                           "its byte-order mark", path, 1)


def decode(data: bytes, path: Path | None = None) -> tuple[str, str]:
    """Decode UTF-8 (with or without BOM), else cp1252; return (text, encoding used).

    With `path` (a whole file), a file that is partly UTF-8 is refused, naming the first
    line that is not: read as cp1252 its UTF-8 lines would turn into mojibake (`cafÃ©`).
    cp1252 is used only when no line holds UTF-8 beyond ASCII. UTF-16 and UTF-32 files
    with a byte-order mark are read as such; a doubled UTF-8 mark (a file saved twice by
    an editor that adds one) counts as one.
    """
    wide = wide_encoding(data)
    if wide is not None:
        return _decode_wide(data, wide, path), wide
    refuse_bomless_utf16(data, path)
    bom = data.startswith(codecs.BOM_UTF8)
    body = data
    while body.startswith(codecs.BOM_UTF8):
        body = body[len(codecs.BOM_UTF8):]
    try:
        return body.decode("utf-8"), "utf-8-sig" if bom else "utf-8"
    except UnicodeDecodeError as exc:
        if path is not None:
            _refuse_mixed(body, exc, bom, path)
    return body.decode("cp1252", "simrate_cp1252"), "cp1252"


def _refuse_mixed(body: bytes, error: UnicodeDecodeError, bom: bool, path: Path) -> None:
    """SimrateError naming the first line that is not UTF-8, when any other line is UTF-8
    beyond ASCII (or a byte-order mark says the file is UTF-8)."""
    start = body.rfind(b"\n", 0, error.start) + 1
    bad_line = body.count(b"\n", 0, error.start) + 1
    end = body.find(b"\n", error.start)
    column = len(body[start:error.start].decode("utf-8", "replace")) + 1
    byte = body[error.start]
    rest = (body[:start], body[end + 1:] if end >= 0 else b"")
    utf8_elsewhere = (bom or not body[start:error.start].isascii()
                      or any(_holds_utf8_line(part) for part in rest))
    if utf8_elsewhere:
        why = ("the file starts with a UTF-8 byte-order mark" if bom
               else "the rest of the file holds UTF-8")
        raise SimrateError(f"mixed encodings: this line is not UTF-8 (byte 0x{byte:02X} at "
                           f"column {column}) but {why}; save the whole file as UTF-8",
                           path, bad_line)


def _holds_utf8_line(data: bytes) -> bool:
    """True when some line of `data` holds non-ASCII bytes and decodes as UTF-8."""
    if data.isascii():
        return False
    for line in data.split(b"\n"):
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                continue
            return True
    return False


def normalise_newlines(text: str) -> str:
    """CRLF -> LF; lone CR -> LF only in a file with no LF at all (old Mac files).

    A stray CR inside a line of an LF or CRLF file stays part of the text, so line
    numbers agree with what editors and `wc -l` show.
    """
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\n" not in text:
        text = text.replace("\r", "\n")
    return text


#: The first bytes of a ZIP archive: an XLSX workbook (or ODS, DOCX) read as text.
ZIP_MAGIC = b"PK\x03\x04"


def refuse_spreadsheet(data: bytes, path: Path) -> None:
    """SimrateError for a spreadsheet (a ZIP archive) given to a reader of plain text: its
    bytes would read as text in some legacy encoding and fail with a misleading reason."""
    if data.startswith(ZIP_MAGIC):
        kind = ("an XLSX workbook" if is_xlsx(path)
                else "a ZIP archive (a spreadsheet such as XLSX or ODS?)")
        raise SimrateError(f"this is {kind}, and this format is read from plain text: "
                           "import it as pairs or ratings (--format auto), or save the sheet "
                           "as tab-separated text", path)


def text_file(data: bytes, path: Path) -> TextFile:
    """A whole file's bytes (already within the limits) decoded; SimrateError 'file is
    empty' when it holds nothing."""
    refuse_spreadsheet(data, path)
    text, encoding = decode(data, path)
    if not text.strip():
        raise SimrateError("file is empty", path)
    return TextFile(path, normalise_newlines(text), encoding, raw=text)


def decode_lenient(data: bytes) -> str:
    """UTF-8 text with or without a byte-order mark, bytes that are not UTF-8 replaced (a
    crowd platform's CSV, where a stray byte must not stop a whole batch)."""
    return data.decode("utf-8-sig", errors="replace")


def split_tab_lines(source: TextFile) -> list[Record]:
    """Split each non-blank physical line on tabs; quotes are ordinary characters."""
    return [(number, check_columns(line.split("\t"), source.path, number))
            for number, line in enumerate(source.lines(), start=1)
            if line and not line.isspace()]


def _quoting_problem(message: str, delimiter: str) -> str:
    """The csv module's complaint in our words, with what to do about it."""
    shown = "a tab" if delimiter == "\t" else repr(delimiter)
    if "expected after" in message:
        return (f"a closing quote is followed by more text instead of {shown}; a quote "
                'inside a quoted field must be doubled ("")')
    if "end of data" in message:
        return "a quoted field is never closed (a quote is missing at its end)"
    return ('the quotes do not pair up; quote whole fields and double any quote inside '
            'them ("")')


def csv_records(source: TextFile, delimiter: str) -> Iterator[Record]:
    """Parse with spreadsheet quoting; each record carries the line where it starts."""
    # The raw text, read with newline="": a CRLF inside a quoted field is data and stays.
    text = source.raw if source.raw is not None else source.text
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    previous_end = 0
    while True:
        start = previous_end + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise SimrateError(f"a field longer than {MAX_TEXT_CHARS:,} characters (the "
                                   "longest text simrate accepts)", source.path, start) from None
            raise SimrateError(f"badly quoted field in the record starting here: "
                               f"{_quoting_problem(str(exc), delimiter)}",
                               source.path, start) from None
        previous_end = reader.line_num
        check_columns(fields, source.path, start)
        if any(field.strip() for field in fields):
            yield start, fields


def tsv_records(source: TextFile) -> list[Record]:
    """Records of a generic TSV file: quote-aware when that reads consistently, else plain.

    Spreadsheets quote TSV fields holding tabs, quotes or newlines, but hand-written TSV
    files often hold texts that merely start with a quote. The quote-aware reading is
    used when it succeeds and every record has the same number of fields; otherwise
    quotes are ordinary characters.
    """
    if '"' not in source.text:
        return split_tab_lines(source)
    try:
        quoted = list(csv_records(source, "\t"))
    except SimrateError:
        return split_tab_lines(source)
    if len({len(fields) for _, fields in quoted}) <= 1:
        return quoted
    return split_tab_lines(source)


def sniff_delimiter(source: TextFile) -> str:
    """The delimiter of a CSV-like file: by extension for .tsv, else the commonest in line 1."""
    suffix = source.path.suffix.lower()
    if suffix in (".tsv", ".tab"):
        return "\t"
    first = next((line for line in source.lines() if line.strip()), "")
    unquoted = first.split('"')[::2]  # text outside double quotes
    counts = {d: sum(part.count(d) for part in unquoted) for d in DELIMITER_CANDIDATES}
    best = max(DELIMITER_CANDIDATES, key=lambda d: counts[d])
    if counts[best] == 0:
        return "," if suffix == ".csv" else "\t"
    return best


@dataclass(frozen=True)
class Table:
    """The records of a CSV, TSV or XLSX file and how it was read."""

    records: list[Record]
    spreadsheet: bool
    encoding: str  # as TextFile.encoding; "xlsx" for a spreadsheet


@without_gc
def table_of(source: TextFile) -> Table:
    """The records of a decoded CSV or TSV file (its delimiter sniffed), as a Table."""
    delimiter = sniff_delimiter(source)
    records = (tsv_records(source) if delimiter == "\t"
               else list(csv_records(source, delimiter)))
    if not records:  # only delimiters and blanks: no row holds anything
        raise SimrateError("no rows: every line holds only delimiters or white space",
                           source.path)
    return Table(records, False, source.encoding)


def with_encoding(frame: pd.DataFrame, encoding: str) -> pd.DataFrame:
    """Note in `frame.attrs["encoding"]` how the file was decoded ("cp1252" = fallback)."""
    frame.attrs["encoding"] = encoding
    return frame


def with_reference_from(frame: pd.DataFrame, gold_path: Path | None,
                        count: int) -> pd.DataFrame:
    """Note in `frame.attrs["reference_from"]` the gold key read beside an input into the
    items' reference scores, and how many it gave: an import says so (the user did not
    name that file)."""
    if gold_path is not None:
        frame.attrs["reference_from"] = (str(gold_path), count)
    return frame


def reference_note(frame: pd.DataFrame | None) -> str:
    """`; reference scores of 750 items read from the gold key beside it, STS.gs.x.txt`,
    or '' when no gold key was read."""
    found = frame.attrs.get("reference_from") if frame is not None else None
    if not found:
        return ""
    path, count = found
    return (f"; reference scores of {count:,} items read from the gold key beside it, "
            f"{Path(path).name}")


def normalise_name(name: str) -> str:
    """A column name compared loosely: lower case, without spaces, '_' and '-'."""
    return "".join(ch for ch in name.strip().lower() if ch not in " _-")


def parse_number(text: str) -> float | None:
    """The finite decimal number in `text`, else None ('nan', 'inf', '1_0', '-' are not)."""
    if "_" in text or not text.isascii():  # 1_0; ３ or ٣ (see scale.foreign_characters)
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")) or underflows(text, value):
        return None  # an underflow (1e-400 reads as 0) is no more a number than an overflow
    return value


def fit_fields(fields: list[str], width: int, line: int, path: Path,
               spreadsheet: bool, model: str = "the header") -> list[str]:
    """Exactly `width` fields: extra empty fields dropped, short spreadsheet rows padded."""
    count = len(fields)
    if count == width:
        return fields
    if count > width and not any(f.strip() for f in fields[width:]):
        return fields[:width]
    if count < width and spreadsheet:
        return fields + [""] * (width - count)
    raise SimrateError(f"{count} columns, but {model} has {width}", path, line)
