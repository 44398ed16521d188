"""No library's wording reaches the user: pandas, the csv module, openpyxl and SQLite
complaints are said in our words, with what to do, and name the user's file."""

from __future__ import annotations

import sqlite3

import pytest

from tests.cli.helpers import simrate
from tests.support.helpers import (
    ROOT,
    make_items,
    new_project,
    one_line_error,
    run_cli_on_small_disk,
)

SAMPLES = ROOT / "sample_data"
TURK_HEADER = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Input.id,Answer.score"
LIBRARY_WORDS = ("C error", "tokenizing", "mixed encodings", "BadZipFile", "zipfile",
                 "expected after", "database or disk is full", ".partial", "Expected ")


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    return path


def _plain(result, *needles):
    status = result.status if hasattr(result, "status") else result.returncode
    assert status == 2
    line = one_line_error(result.err if hasattr(result, "err") else result.stderr, *needles)
    for words in LIBRARY_WORDS:
        assert words not in line, line
    return line


@pytest.mark.parametrize("name", ["pairs.tsv", "ratings_wide.tsv"])
def test_turk_format_on_a_tab_separated_file(capsys, project, name):
    source = SAMPLES / name
    result = simrate(capsys, "import", project, source, "--format", "turk")
    _plain(result, f"{source}:1:", "tab-separated", "comma-separated (CSV)")


def test_turk_format_on_a_spreadsheet(capsys, project):
    source = SAMPLES / "pairs.xlsx"
    result = simrate(capsys, "import", project, source, "--format", "turk")
    _plain(result, f"{source}:", "spreadsheet", "save the sheet as CSV")


@pytest.mark.parametrize(("rows", "needle"), [
    (["1,A1,w1,Approved,5,x:1,2,extra"], ":2: more comma-separated fields than the header"),
    (["1,A1,w1,Approved,5,x:1,2", "2,A2,w2,Approved,5,x:2,3,extra"],
     ":3: 8 comma-separated fields where the header has 7"),
    (['1,A1,w1,Approved,5,"x:1,2'], "a quoted field is never closed"),
])
def test_turk_results_badly_laid_out(capsys, project, tmp_path, rows, needle):
    source = tmp_path / "results.csv"
    source.write_text("\n".join([TURK_HEADER, *rows]) + "\n", encoding="utf-8")
    result = simrate(capsys, "import", project, source, "--format", "turk")
    _plain(result, f"{source}", needle)


@pytest.mark.parametrize("fmt", ["sts", "pit", "clss"])
def test_text_formats_given_a_workbook(capsys, project, fmt):
    source = SAMPLES / "pairs.xlsx"
    result = simrate(capsys, "import", project, source, "--format", fmt)
    _plain(result, f"{source}:", "this is an XLSX workbook", "read from plain text")


def test_pyramid_readers_given_a_workbook(capsys, project, tmp_path):
    source = SAMPLES / "pairs.xlsx"
    result = simrate(capsys, "import", project, source, "--format", "pyramid")
    _plain(result, f"{source}:", "a ZIP file", "not a pyramid's XML")
    result = simrate(capsys, "pyramid", source, "--out", tmp_path / "out.tsv")
    _plain(result, f"{source}:", "a ZIP file", "not a pyramid's XML")


def test_text_format_given_a_zip_under_another_name(capsys, project, tmp_path):
    source = tmp_path / "pairs.txt"
    source.write_bytes((SAMPLES / "pairs.xlsx").read_bytes())
    result = simrate(capsys, "import", project, source, "--format", "sts")
    _plain(result, f"{source}:", "a ZIP archive")


def test_damaged_workbook_names_no_library_class(capsys, project, tmp_path):
    source = tmp_path / "pairs.xlsx"
    source.write_bytes(b"this is not a zip file at all\n" * 10)
    result = simrate(capsys, "import", project, source)
    _plain(result, f"{source}:", "not a readable XLSX workbook",
           "open and save it in a spreadsheet program")


@pytest.mark.parametrize(("text", "needle"), [
    ('id,left,right\n1,"a"b,c\n', 'a quote inside a quoted field must be doubled ("")'),
    ('id,left,right\n1,"a,b\n', "a quoted field is never closed"),
])
def test_badly_quoted_csv_in_our_words(capsys, project, tmp_path, text, needle):
    source = tmp_path / "pairs.csv"
    source.write_text(text, encoding="utf-8")
    result = simrate(capsys, "import", project, source)
    _plain(result, f"{source}:2:", "badly quoted field", needle)


def test_package_to_a_full_disk(tmp_path):
    project = tmp_path / "p.simrate"
    opened = new_project(project, 0)
    items = make_items(3000)
    items["left"] = [f"{'x' * 300} {i}" for i in range(3000)]
    opened.import_items(items)
    opened.close()
    folder = tmp_path / "small"
    folder.mkdir()
    out = folder / "ana.simrate"
    for size_kb in (16, 256):  # full while the file is created, and while items go in
        proc, left = run_cli_on_small_disk(folder, size_kb, "package", project, out,
                                           "--annotator", "ana")
        _plain(proc, f"{out}: cannot write the package: the disk is full; nothing was written")
        assert left == []
    with sqlite3.connect(project) as conn:  # the project itself logs no package
        assert conn.execute("SELECT count(*) FROM changes WHERE kind = 'package'"
                            ).fetchone()[0] == 0


def test_new_project_on_a_full_disk(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    out = folder / "p.simrate"
    proc, left = run_cli_on_small_disk(folder, 8, "new", out, "--scale", "clss")
    _plain(proc, f"{out}: cannot create the project: the disk is full")
    assert left == []


@pytest.mark.parametrize("page", [3, 4])  # page 2 fails in open_store (its own message)
def test_damaged_package_in_our_words(capsys, tmp_path, page):
    project = tmp_path / "p.simrate"
    opened = new_project(project, 300)
    opened.close()
    out = tmp_path / "ann.simrate"
    assert simrate(capsys, "package", project, out, "--annotator", "ann").status == 0
    data = bytearray(out.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    start = page_size * (page - 1)
    data[start:start + 200] = bytes((i * 37 + 11) % 256 for i in range(200))
    out.write_bytes(bytes(data))
    result = simrate(capsys, "import", project, out, "--format", "project")
    line = _plain(result, f"{out}:", "damaged", "send the package again")
    for words in ("malformed", "disk image", "database", "Page "):
        assert words not in line.removeprefix(f"simrate: error: {out}: "), line
