"""The one registry of formats (app/formats/catalog/registry.py): the readers' and writers'
tables and the command line's choices are read from it, and every entry point is real."""

from __future__ import annotations

import argparse
import csv

import pytest

from simrate.cli import build_parser
from simrate.formats.catalog.registry import READ, WRITE, find, names
from simrate.formats.output import writers
from simrate.formats.output.pyramid_export import PYRAMID_COLUMNS
from simrate.formats.readers import detect
from tests.cli.helpers import simrate


def format_choices(command: str) -> tuple[str, ...]:
    """The --format choices of one subcommand, as the real parser holds them."""
    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return tuple(next(a.choices for a in sub.choices[command]._actions if a.dest == "format"))


def test_names_are_unique_and_every_entry_point_is_a_function():
    for formats in (READ, WRITE):
        assert len({fmt.name for fmt in formats}) == len(formats)
        for fmt in formats:
            assert callable(fmt.load()), fmt.name
            assert fmt.summary and "\n" not in fmt.summary
            assert fmt.ending == "" or fmt.ending.startswith(".")
    assert all(fmt.role == "read" for fmt in READ) and all(f.role == "write" for f in WRITE)
    chosen = [ending for fmt in WRITE for ending in fmt.chooses]
    assert len(chosen) == len(set(chosen))  # an ending chooses one format only
    assert find("pit", "read").entry != find("pit", "write").entry
    with pytest.raises(KeyError):
        find("pairs", "write")


def test_the_readers_and_writers_tables_are_the_registry():
    assert detect.FORMATS == names("read")
    assert detect.ITEM_READERS == {f.name: f.entry for f in READ if f.holds == "items"}
    assert writers.FORMATS == names("write")
    assert writers.EXTENSIONS == {e: f.name for f in WRITE for e in f.chooses}
    streamed = {name for name, writer in writers.WRITERS.items() if writer.stream}
    assert streamed == set(names("write")) - {"xlsx", "dataset"}


def test_the_command_line_offers_the_registrys_formats():
    assert format_choices("import") == ("auto", *names("read"))
    assert format_choices("export") == names("write")


def test_the_pyramid_ending_is_what_its_writer_writes(tmp_path, sample_data, capsys):
    # the writer writes a tab-separated table, so its files end in .tsv; but .tsv chooses
    # the tsv format, so only --format pyramid chooses this one
    fmt = find("pyramid", "write")
    assert fmt.ending == ".tsv" and fmt.chooses == ()
    assert writers.choose_format(tmp_path / f"x{fmt.ending}", None) == ("tsv", True)
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "clss").status == 0
    assert simrate(capsys, "import", project, sample_data / "D9901.pyr").status == 0
    out = tmp_path / f"rated{fmt.ending}"
    result = simrate(capsys, "export", project, out, "--format", "pyramid",
                     "--allow-unresolved")
    assert result.status == 0, result.err
    with open(out, newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream, delimiter="\t"))
    assert tuple(rows[0]) == PYRAMID_COLUMNS
    assert len(rows) > 1 and {len(row) for row in rows} == {len(PYRAMID_COLUMNS)}
