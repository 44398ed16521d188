"""The export formats' writers: each format of the registry (catalog/registry.py: its name,
the file name endings that choose it) with how its gold table is written to a text stream.

The extension guess and the writing itself (services/exports/export.py) read `WRITERS`;
the command line's choices and the window's export dialog read the registry. A new format
is one registry entry and, here, its writer function. Two formats are written by a service
rather than to one stream: `xlsx` (the report workbook with its agreement sheets) and
`dataset` (a folder).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.formats.catalog.registry import WRITE
from simrate.formats.output.export import (
    Progress,
    figure_decimals,
    write_jsonl,
    write_pit,
    write_sts,
    write_table,
)
from simrate.formats.output.pyramid_export import write_pyramid_table

#: (gold table, text stream, the project's scale, progress or None) -> None
StreamWriter = Callable[[pd.DataFrame, IO[str], Scale, "Progress | None"], None]


@dataclass(frozen=True)
class Writer:
    """One export format: the endings that choose it, and its stream writer (None: a service
    writes it, see the module's docstring)."""

    endings: tuple[str, ...] = ()
    stream: StreamWriter | None = None


#: The stream writer of each format written to one text stream (the others: a service).
_STREAMS: dict[str, StreamWriter] = {
    "tsv": lambda gold, out, scale, progress:
        write_table(gold, out, "\t", progress, figure_decimals(scale)),
    "csv": lambda gold, out, scale, progress:
        write_table(gold, out, ",", progress, figure_decimals(scale)),
    "sts": lambda gold, out, scale, progress: write_sts(gold, out),
    "pit": lambda gold, out, scale, progress: write_pit(gold, out, scale),
    "jsonl": lambda gold, out, scale, progress:
        write_jsonl(gold, out, progress, figure_decimals(scale)),
    "pyramid": lambda gold, out, scale, progress: write_pyramid_table(gold, out, progress),
}
#: Every export format in the registry's order, with the endings that choose it there.
WRITERS: dict[str, Writer] = {fmt.name: Writer(fmt.chooses, _STREAMS.get(fmt.name))
                              for fmt in WRITE}
FORMATS = tuple(WRITERS)
#: File name endings and the format they choose when --format is not given.
EXTENSIONS = {ending: name for name, writer in WRITERS.items() for ending in writer.endings}


def choose_format(out: str | Path, given: str | None) -> tuple[str, bool]:
    """(format, chosen from the extension?) for an output path and an optional --format."""
    if given:
        if given not in WRITERS:
            raise SimrateError(f"unknown export format {given!r}; choose one of: "
                               f"{', '.join(FORMATS)}")
        return given, False
    suffix = Path(out).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix], True
    known = ", ".join(sorted(EXTENSIONS))
    raise SimrateError(f"cannot tell the export format from the name (known endings: {known}); "
                       f"give --format {{{','.join(FORMATS)}}}", out)
