"""Read DUCView pyramids (.pyr) and the pyramid inside DUCView peer annotations (.pan).

Safe by construction: the file is streamed through expat with handlers that refuse every
entity declaration (so no billion laughs), any external DTD or entity (nothing is ever read
from a file or the network) and notations; the inline DTD of element and attribute-list
declarations that every real file carries is accepted and otherwise ignored. Only what the
pyramid needs is kept, so memory grows with the pyramid, not with an XML tree.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import BinaryIO
from xml.parsers import expat

from simrate.core.base.errors import SimrateError
from simrate.core.pyramid.model import (
    DEFAULT_SEARCH_WINDOW,
    Contributor,
    Part,
    Pyramid,
    Scu,
    build_pyramid,
)
from simrate.formats.intake.pipeline import read

_CHUNK = 1 << 20
_DECLARED_ENCODING = re.compile(rb"<\?xml[^>]*encoding\s*=", re.IGNORECASE)
_DECLARED_NAME = re.compile(rb"encoding\s*=\s*[\"']([^\"']*)", re.IGNORECASE)


class _Refused(Exception):
    """Raised inside expat handlers; becomes a SimrateError with the line."""


class _Stop(Exception):
    """Raised when a peer annotation's pyramid is complete: the rest is not needed."""


def _refuse(what: str):
    """An expat handler that refuses the construct `what`."""
    def handler(*_args):
        """Refuse, whatever expat passes."""
        raise _Refused(f"{what} not allowed in a pyramid file (refused for safety)")
    return handler


class _DucviewCollector:
    """Expat callbacks that keep the lines and SCUs of a DUCView pyramid."""

    def __init__(self, parser: expat.XMLParserType):
        self.parser = parser
        self.stack: list[str] = []
        self.root = ""
        self.in_pyramid = False
        self.lines: list[str] | None = None
        self.line_chunks: list[str] | None = None
        self.scus: list[Scu] = []
        self.warnings: list[tuple[int | None, str]] = []

    def start_doctype(self, _name, system_id, public_id, _has_internal_subset) -> None:
        """Refuse a DTD that lives in another file or on the network."""
        if system_id or public_id:
            raise _Refused(f"external DTD {system_id or public_id!r} not allowed "
                           "(refused for safety)")

    def start(self, name: str, attrs: dict[str, str]) -> None:
        """Open an element: check the root, then collect text lines, SCUs, contributors, parts."""
        stack = self.stack
        parent = stack[-1] if stack else ""
        stack.append(name)
        if not self.in_pyramid:
            if len(stack) == 1:
                self._check_root(name)
                self.in_pyramid = name == "pyramid"
            elif name == "pyramid" and parent == "peerAnnotation" and len(stack) == 2:
                self.in_pyramid = True
        elif name == "part" and parent == "contributor":
            line = self.parser.CurrentLineNumber
            part = Part(attrs.get("label", ""), self._offset(attrs, "start", line),
                        self._offset(attrs, "end", line), line)
            self.scus[-1].contributors[-1].parts.append(part)
        elif name == "contributor" and parent == "scu":
            line = self.parser.CurrentLineNumber
            self.scus[-1].contributors.append(Contributor(attrs.get("label", ""), [], line))
        elif name == "scu" and parent == "pyramid":
            uid = attrs.get("uid") or f"#{len(self.scus) + 1}"
            self.scus.append(Scu(uid, attrs.get("label", ""), [], self.parser.CurrentLineNumber,
                                 attrs.get("comment", "")))
        elif name == "line" and parent == "text" and self.lines is not None:
            self.line_chunks = []
        elif name == "text" and parent == "pyramid" and self.lines is None:
            self.lines = []

    def _check_root(self, name: str) -> None:
        """Only DUCView's <pyramid> and <peerAnnotation> roots are pyramids we read."""
        if name in ("pyramid", "peerAnnotation"):
            return
        hint = " (PyrEval's .pyr format, not DUCView's)" if name.lower() == "pyramid" else ""
        raise _Refused(f"not a DUCView pyramid: the root element is <{name}>{hint}")

    def _offset(self, attrs: dict[str, str], key: str, line: int) -> int | None:
        """An integer offset attribute, or None (with a warning) when missing or not a number."""
        value = attrs.get(key, "").strip()
        digits = value[1:] if value.startswith("-") else value
        if digits.isascii() and digits.isdigit() and len(digits) <= 12:
            return int(value)
        self.warnings.append((line, f"part {key} offset {value!r} is not a number"))
        return None

    def end(self, name: str) -> None:
        """Close an element: finish a line, or stop after a peer annotation's pyramid."""
        self.stack.pop()
        if name == "line" and self.line_chunks is not None and self.lines is not None:
            self.lines.append("".join(self.line_chunks))
            self.line_chunks = None
        elif name == "pyramid" and len(self.stack) == 1 and self.root_is_annotation():
            raise _Stop

    def root_is_annotation(self) -> bool:
        """True while reading a peer annotation (.pan) file."""
        return bool(self.stack) and self.stack[0] == "peerAnnotation"

    def characters(self, data: str) -> None:
        """Keep the character data of a <line>; everything else's text is ignored."""
        if self.line_chunks is not None:
            self.line_chunks.append(data)


def _new_parser(encoding: str | None) -> tuple[expat.XMLParserType, _DucviewCollector]:
    """An expat parser wired to a collector, refusing entities, notations and external DTDs."""
    parser = expat.ParserCreate(encoding)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    collector = _DucviewCollector(parser)
    parser.StartDoctypeDeclHandler = collector.start_doctype
    parser.EntityDeclHandler = _refuse("entity declarations are")
    parser.UnparsedEntityDeclHandler = _refuse("unparsed entity declarations are")
    parser.NotationDeclHandler = _refuse("notation declarations are")
    parser.ExternalEntityRefHandler = _refuse("external entity references are")
    parser.SkippedEntityHandler = _refuse("entity references are")
    parser.StartElementHandler = collector.start
    parser.EndElementHandler = collector.end
    parser.CharacterDataHandler = collector.characters
    return parser, collector


def _parse_stream(stream: BinaryIO, source: str, encoding: str | None) -> _DucviewCollector:
    """Feed `stream` to a safe parser chunk by chunk; SimrateError on bad or refused XML."""
    parser, collector = _new_parser(encoding)
    head = b""
    try:
        while chunk := stream.read(_CHUNK):
            head = head or chunk[:200]
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except (ValueError, LookupError):
        # expat hands a declared encoding it lacks to Python, which may not know it
        # (foo-bar) or cannot feed it to expat (UTF-7 and other multi-byte encodings)
        name = _DECLARED_NAME.search(head)
        if name is None:
            raise
        declared = name.group(1).decode("ascii", "replace")[:40]
        raise SimrateError(f"the XML declaration names encoding {declared!r}, which cannot "
                           "be read; save the file as UTF-8", source, 1) from None
    except _Stop:
        pass
    except _Refused as exc:
        raise SimrateError(str(exc), source, parser.CurrentLineNumber) from None
    except expat.ExpatError as exc:
        if head.startswith(b"PK\x03\x04"):
            raise SimrateError("this is a ZIP file (a spreadsheet such as XLSX?), not a "
                               "pyramid's XML (.pyr, .pan)", source) from None
        message = expat.ErrorString(exc.code)
        raise SimrateError(f"not well-formed XML: {message} (column {exc.offset + 1})",
                           source, exc.lineno) from None
    return collector


def _is_utf8(stream: BinaryIO) -> bool:
    """True when the whole stream decodes as UTF-8 (read in chunks)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        while chunk := stream.read(_CHUNK):
            decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _collect(path: Path) -> _DucviewCollector:
    """Parse the file through the pipeline (a regular file opened, a pipe's bytes read under
    the input limits, a device refused); expat decodes it as its XML declaration says."""
    try:
        return read(path, lambda stream: _collect_stream(stream, str(path)), "xml")
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", str(path)) from None


def _collect_stream(stream: BinaryIO, source: str) -> _DucviewCollector:
    """Parse the stream; one retry as Latin-1 when it is not UTF-8 and declares no encoding."""
    head = stream.read(200)
    if not head.strip():
        raise SimrateError("empty file: not a pyramid", source)
    stream.seek(0)
    try:
        return _parse_stream(stream, source, None)
    except SimrateError:
        stream.seek(0)
        if _DECLARED_ENCODING.match(head.lstrip()) or _is_utf8(stream):
            raise
    stream.seek(0)
    collector = _parse_stream(stream, source, "ISO-8859-1")
    collector.warnings.append((None, "not UTF-8; read as Latin-1"))
    return collector


def read_pyramid(path: str | Path, window: int = DEFAULT_SEARCH_WINDOW) -> Pyramid:
    """Read a DUCView .pyr (or the pyramid inside a .pan) and locate every part."""
    path = Path(path)
    collector = _collect(path)
    if collector.lines is None:
        raise SimrateError("no <text> element: not a complete DUCView pyramid", path)
    pyramid = build_pyramid(collector.lines, collector.scus, source=str(path),
                            fallback_topic=path.stem, window=window,
                            warnings=collector.warnings)
    if not pyramid.scus:
        raise SimrateError("empty pyramid: no SCU with contributors", path)
    return pyramid
