"""Every file format simrate reads or writes, in one list: its name, what it holds, the
ending its files carry, one line saying what it is, and where its reader or writer lives.

The command line's `--format` choices, the window's export dialog, the readers' table
(readers/detect.py), the writers' table (output/writers.py) and the docs (tests/docs
compares them) are all read from here, so a new format starts with one entry below.
Entry points are "module:function" names imported on first use: this module imports no
reader or writer, so any folder of formats may read it without a loop.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["read", "write"]


@dataclass(frozen=True)
class FileFormat:
    """One format, as read (`simrate import`) or as written (`simrate export`)."""

    name: str
    role: Role
    holds: str  # items, ratings, project, gold, pyramid gold or dataset
    ending: str  # the ending its files usually carry ("" for a folder)
    summary: str  # one line for a list of formats
    entry: str  # "module:function" of its reader or writer
    chooses: tuple[str, ...] = ()  # written formats: the endings that pick it from a name

    @property
    def listing(self) -> str:
        """The summary with the file ending, as a list of formats shows it."""
        return f"{self.summary} ({self.ending})" if self.ending else self.summary

    def load(self) -> Callable[..., Any]:
        """The reader or writer function itself, imported now."""
        module_name, function_name = self.entry.split(":")
        function: Callable[..., Any] = getattr(importlib.import_module(module_name),
                                               function_name)
        return function


_READERS = "simrate.formats.readers"
_EXPORT = "simrate.formats.output.export"

READ: tuple[FileFormat, ...] = (
    FileFormat("pairs", "read", "items", ".tsv",
               "Pair lists: TSV, CSV, XLSX or JSON Lines, a header row optional",
               f"{_READERS}.pairs:read_pairs"),
    FileFormat("sts", "read", "items", ".txt",
               "SemEval STS 2012 input: two sentences a line, its gold key read beside it",
               f"{_READERS}.sts:read_sts"),
    FileFormat("pit", "read", "items", ".data",
               "SemEval-2015 PIT (Twitter paraphrase) data: topic, two tweets, label",
               f"{_READERS}.pit:read_pit"),
    FileFormat("clss", "read", "items", ".tsv",
               "SemEval-2014 CLSS input: a larger and a smaller text, its gold key beside it",
               f"{_READERS}.clss:read_clss"),
    FileFormat("pyramid", "read", "items", ".pyr",
               "DUCView pyramid or peer annotation: pairs derived from its content units",
               "simrate.formats.pyramids.pyramid_project:read_pyramid_items"),
    FileFormat("ratings", "read", "ratings", ".csv",
               "Ratings: long (item, annotator, score) or wide, CSV, TSV or XLSX",
               f"{_READERS}.ratings:read_ratings"),
    FileFormat("project", "read", "project", ".simrate",
               "Another project or a returned package, merged into this one",
               "simrate.core.team.package_merge:merge_package"),
    FileFormat("turk", "read", "ratings", ".csv",
               "Crowd batch results (Mechanical Turk, Turkle): one row per assignment",
               f"{_READERS}.turk:read_turk"),
)

WRITE: tuple[FileFormat, ...] = (
    FileFormat("tsv", "write", "gold", ".tsv",
               "TSV table: gold, statistics and every rater's score",
               f"{_EXPORT}:write_table", (".tsv", ".tab")),
    FileFormat("csv", "write", "gold", ".csv",
               "CSV table: the same columns, comma separated",
               f"{_EXPORT}:write_table", (".csv",)),
    FileFormat("xlsx", "write", "gold", ".xlsx",
               "Excel workbook: gold, ratings, agreement, adjudications",
               "simrate.formats.spreadsheet.xlsx_report:write_xlsx_report", (".xlsx",)),
    FileFormat("sts", "write", "gold", ".txt",
               "STS / CLSS gold key: one score per line",
               f"{_EXPORT}:write_sts", (".txt", ".gs", ".sts")),
    FileFormat("pit", "write", "gold", ".label",
               "PIT 2015 label file: true/false/---- and score",
               f"{_EXPORT}:write_pit", (".label", ".output")),
    FileFormat("jsonl", "write", "gold", ".jsonl",
               "JSON lines: one object per item with its ratings",
               f"{_EXPORT}:write_jsonl", (".jsonl", ".ndjson")),
    # a tab-separated table, as its writer writes it; `.tsv` chooses `tsv`, so a name never
    # chooses this one (only --format pyramid does)
    FileFormat("pyramid", "write", "pyramid gold", ".tsv",
               "Pyramid benchmark: pair_id, topic, texts, label, gold, SCUs",
               "simrate.formats.output.pyramid_export:write_pyramid_table"),
    FileFormat("dataset", "write", "dataset", "",
               "Dataset folder: data files, data card, Croissant (Hugging Face datasets)",
               "simrate.formats.dataset.dataset_folder:folder_writer"),
)


def names(role: Role) -> tuple[str, ...]:
    """The names of the formats read or written, in the order lists show them."""
    return tuple(fmt.name for fmt in (READ if role == "read" else WRITE))


def find(name: str, role: Role) -> FileFormat:
    """The format of that name read or written (KeyError if there is none)."""
    for fmt in READ if role == "read" else WRITE:
        if fmt.name == name:
            return fmt
    raise KeyError(f"no {role} format {name!r}")
