"""A dataset folder simrate wrote before: what a new export into it keeps.

Exporting into a folder that already holds a simrate dataset folder (its README.md with the
author markers and its croissant.json) is a re-export or, with `--add`, a further split.
Either way the author's section of the card (the text between AUTHOR_START and AUTHOR_END)
is carried over byte for byte. With `--add` the folder's data files stay as they are, and
their rows, sizes and SHA-256s are taken from its croissant.json and checked against the
files themselves, so the new card and Croissant describe every split. Files of the folder
that simrate did not write (a LICENSE, a .gitattributes, a .git folder) are never touched.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.inputs import read_bounded
from simrate.formats.dataset.dataset_files import WrittenFile

AUTHOR_START = "<!-- simrate:author -->"
AUTHOR_END = "<!-- /simrate:author -->"
#: The author's section of a fresh card: a hint, itself part of the section.
AUTHOR_HINT = ("<!-- Write here what simrate cannot know (motivation, intended uses, how "
               "the texts were chosen). Text between these markers is kept, byte for byte, "
               "when the folder is exported again. -->")
#: A data file's path in the folder: data/<configuration>-<split>.jsonl.
DATA_FILE = re.compile(r"data/(gold|ratings)-([A-Za-z0-9_.]+)\.jsonl")
#: The most of a card or Croissant file read back.
MAX_METADATA_BYTES = 64 << 20


@dataclass
class Previous:
    """What an earlier export left in the folder."""

    #: {configuration: {split: its data file}} as the old croissant.json lists them.
    files: dict[str, dict[str, WrittenFile]] = field(default_factory=dict)
    #: {configuration: its field names}, in order.
    fields: dict[str, list[str]] = field(default_factory=dict)
    #: The author's section (between the markers, markers excluded), or None.
    author: str | None = None


def is_dataset_folder(folder: Path) -> bool:
    """Whether the folder holds a card with the author markers and a croissant.json."""
    card, croissant = folder / "README.md", folder / "croissant.json"
    if not (card.is_file() and croissant.is_file()):
        return False
    return AUTHOR_START.encode() in read_bounded(card, MAX_METADATA_BYTES, pipes=False)


def author_section(card: str) -> str | None:
    """The text between the author markers of a card, None without both markers."""
    start = card.find(AUTHOR_START)
    end = card.find(AUTHOR_END, start + len(AUTHOR_START)) if start >= 0 else -1
    return None if end < 0 else card[start + len(AUTHOR_START):end]


def read_previous(folder: Path, check_files: bool) -> Previous:
    """The earlier export in `folder`; with `check_files`, its data files are read back
    (their rows counted) and must match the SHA-256s its croissant.json gives."""
    card = read_bounded(folder / "README.md", MAX_METADATA_BYTES, pipes=False)
    previous = Previous(author=author_section(card.decode("utf-8", "replace")))
    path = folder / "croissant.json"
    try:
        document = json.loads(read_bounded(path, MAX_METADATA_BYTES, pipes=False))
        for entry in document.get("distribution", []):
            named = DATA_FILE.fullmatch(str(entry.get("contentUrl", "")))
            if entry.get("@type") == "cr:FileObject" and named:
                written = WrittenFile(named[0], 0, 0, entry["sha256"])
                previous.files.setdefault(named[1], {})[named[2]] = written
        for record_set in document.get("recordSet", []):
            if record_set["name"] in previous.files:
                previous.fields[record_set["name"]] = [
                    f["name"] for f in record_set["field"] if f["name"] != "split"]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SimrateError(f"is not a croissant.json simrate wrote ({exc}); export to a new "
                           "folder instead", path) from None
    if check_files:
        for splits in previous.files.values():
            for split, written in splits.items():
                splits[split] = _read_back(folder, written)
    return previous


def _read_back(folder: Path, written: WrittenFile) -> WrittenFile:
    """The data file with its rows and size, refused unless its SHA-256 is the one
    croissant.json gives (not edited since)."""
    path = folder / written.path
    digest, rows, size = hashlib.sha256(), 0, 0
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 22), b""):
                digest.update(chunk)
                rows += chunk.count(b"\n")
                size += len(chunk)
    except OSError as exc:
        raise SimrateError(f"cannot read a file croissant.json lists: {exc.strerror}",
                           path) from None
    if digest.hexdigest() != written.sha256:
        raise SimrateError("differs from the SHA-256 croissant.json gives (edited since it "
                           "was exported?); export all splits again instead of --add", path)
    return WrittenFile(written.path, rows, size, written.sha256)
