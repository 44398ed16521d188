"""The big sheets' rows of the XLSX report (app/formats/spreadsheet/xlsx_rows.py), read back with openpyxl."""

from __future__ import annotations

import errno
import math

import pytest
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from simrate.core.base.errors import SimrateError
from simrate.formats.spreadsheet.xlsx_report import write_xlsx_report
from simrate.formats.spreadsheet.xlsx_rows import CELL_LIMIT, TextFitter
from simrate.services.exports.export import export_project
from tests.support.export_fixtures import make_project

#: Texts a spreadsheet would like to read as something else: formulas, numbers, links,
#: error values, booleans; and texts whose characters need escaping or keeping.
LOOKALIKES = ["=1+1", "@SUM(A1)", "http://x", "1e5", "#N/A", "+1", "-1", "TRUE", "0012",
              "mailto:a@b.c", "a&b<c>d", "]]>", "cr\rin the middle", "ends in cr\r",
              "x\r\ny", "tab\tand\nline", " leading", "trailing ", "\u00a0nbsp", "&amp;"]


def cells(path, sheet):
    """{(row, column): cell} of a sheet, for cells holding a value."""
    book = load_workbook(path)
    return {(c.row, c.column): c for row in book[sheet].iter_rows() for c in row
            if c.value is not None}


@pytest.fixture
def lookalike_report(tmp_path):
    """Lookalike texts as left texts, notes, annotator names; exported to XLSX."""
    with make_project(tmp_path / "p.simrate", texts=LOOKALIKES, ratings=[]) as project:
        for i, text in enumerate(LOOKALIKES, start=1):
            project.rate(f"t:{i}", "ann", 1.0, note=text)
            if text.isprintable():  # names may not hold control characters
                project.rate(f"t:{i}", text.strip(), 2.0)
        gold = project.gold()
        out = tmp_path / "r.xlsx"
        result = export_project(project, out, allow_unresolved=True)
    return out, gold, result


def test_lookalike_texts_stay_strings_on_the_gold_sheet(lookalike_report):
    out, gold, result = lookalike_report
    got = cells(out, "gold")
    header = {cell.value: col for (row, col), cell in got.items() if row == 1}
    for row, text in enumerate(LOOKALIKES, start=2):
        cell = got[(row, header["left"])]
        assert (cell.value, cell.data_type) == (text, "s")
    assert result.warnings == []


def test_lookalike_texts_stay_strings_on_the_ratings_sheet(lookalike_report):
    out, _, _ = lookalike_report
    got = cells(out, "ratings")
    notes = [c.value for (row, col), c in sorted(got.items()) if col == 5 and row > 1]
    names = {c.value for (row, col), c in got.items() if col == 2 and row > 1}
    assert sorted(notes) == sorted(LOOKALIKES)
    assert {t.strip() for t in LOOKALIKES if t.isprintable()} <= names
    assert all(c.data_type == "s" for (row, col), c in got.items() if col in (1, 2, 4, 5))
    assert all(c.data_type == "n" for (row, col), c in got.items() if col == 3 and row > 1)


def test_numbers_booleans_and_missing_values(tmp_path):
    ratings = [("t:1", "ann", 1.0), ("t:1", "bob", 1.75), ("t:2", "ann", 4.0)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b", "c"], ratings=ratings) as project:
        gold = project.gold()
        export_project(project, tmp_path / "r.xlsx", allow_unresolved=True)
    got = cells(tmp_path / "r.xlsx", "gold")
    header = {cell.value: col for (row, col), cell in got.items() if row == 1}
    for index in range(len(gold)):
        row = index + 2
        for name in ("gold", "mean", "sd", "min", "rating:ann", "rating:bob"):
            value, cell = gold.loc[index, name], got.get((row, header[name]))
            if math.isnan(value):
                assert cell is None  # missing: no cell at all
            else:
                assert cell.data_type == "n" and cell.value == value  # the float exactly
        flagged = got[(row, header["flagged"])]
        assert flagged.data_type == "b" and flagged.value == bool(gold.loc[index, "flagged"])
        assert got[(row, header["n_ratings"])].value == gold.loc[index, "n_ratings"]


def test_texts_over_the_cell_limit_are_cut_on_every_sheet(tmp_path):
    long = "y" * (CELL_LIMIT + 10)
    with make_project(tmp_path / "p.simrate", texts=["a", long], ratings=[]) as project:
        project.rate("t:1", "ann", 1.0, note=long)
        project.rate("t:2", "ann", 2.0, note="odd \uffff char")
        result = export_project(project, tmp_path / "r.xlsx", allow_unresolved=True)
    # the long text is a left text, and inside the right text of the other item
    assert any(w.startswith("gold: 2 text(s) longer") for w in result.warnings)
    assert any(w.startswith("ratings: 1 text(s) longer") for w in result.warnings)
    assert any(w.startswith("ratings: 1 text(s) held control") for w in result.warnings)
    notes = {c.value for (row, col), c in cells(tmp_path / "r.xlsx", "ratings").items()
             if col == 5 and row > 1}
    assert notes == {long[:CELL_LIMIT], "odd \ufffd char"}
    left = cells(tmp_path / "r.xlsx", "gold")[(3, 4)].value
    assert left == long[:CELL_LIMIT]


@pytest.mark.parametrize("failure", [KeyboardInterrupt, OSError(errno.ENOSPC, "full")])
def test_a_failure_while_the_rows_stream_keeps_the_old_file(tmp_path, failure):
    with make_project(tmp_path / "p.simrate") as project:
        gold, scale = project.gold(), project.scale
    out = tmp_path / "r.xlsx"
    write_xlsx_report(gold, out, scale)
    good = out.read_bytes()
    seen = []

    def stop(done, total):
        seen.append(done)
        raise failure

    expected = SimrateError if isinstance(failure, OSError) else KeyboardInterrupt
    with pytest.raises(expected) as caught:
        write_xlsx_report(gold, out, scale, progress=stop)
    assert seen == [len(gold)]  # it failed after the gold rows were in the file
    if expected is SimrateError:
        assert "the disk is full" in str(caught.value)
    assert out.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.simrate", "r.xlsx"]


def test_columns_beyond_z_sit_under_their_headers(tmp_path):
    """The rows' cell references (AA, AB, ...) name the columns openpyxl gave the header."""
    names = [f"r{k:02}" for k in range(40)]  # with the gold columns: well past column Z
    ratings = [("t:1", name, (k % 21) * 0.25) for k, name in enumerate(names)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=ratings) as project:
        export_project(project, tmp_path / "r.xlsx", allow_unresolved=True)
    got = cells(tmp_path / "r.xlsx", "gold")
    header = {cell.value: col for (row, col), cell in got.items() if row == 1}
    assert max(header.values()) > 52  # past AZ
    for name, score in ((n, s) for _, n, s in ratings):
        column = header[f"rating:{name}"]
        assert get_column_letter(column) == got[(2, column)].column_letter
        assert got[(2, column)].value == score


def test_fast_and_careful_paths_agree():
    fitter = TextFitter()
    plain = ["abc", "", "two words", "x" * 100]
    assert fitter.elements(plain) == [fitter.element(v) for v in plain]
    tricky = plain + ["a&b", " lead"]
    elements = fitter.elements(tricky)
    assert elements[-2:] == ["<t>a&amp;b</t>", '<t xml:space="preserve"> lead</t>']
    assert elements[:4] == [fitter.element(v) for v in plain]
    assert (fitter.cut, fitter.cleaned) == (0, 0)


def test_the_cell_limit_counts_utf16_units_as_excel_does(tmp_path):
    """An emoji is two UTF-16 units: 20,000 of them (40,000 units) do not fit a cell, and a
    cut never leaves half of one."""
    emoji = "\U0001f600" * 20_000
    edge = "a" + "\U0001f600" * 16_383 + "b"  # 32,768 units: one too many
    fits = "\U0001f600" * 16_383 + "c"  # 32,767 units: kept whole
    with make_project(tmp_path / "p.simrate", texts=[emoji, edge], ratings=[]) as project:
        project.rate("t:1", "ann", 1.0, note=fits)
        result = export_project(project, tmp_path / "r.xlsx", allow_unresolved=True)
    # both left texts, and the right texts made of them ("right of ...")
    assert any(w.startswith("gold: 4 text(s) longer") for w in result.warnings)
    assert not any(w.startswith("ratings: 1 text(s) longer") for w in result.warnings)
    gold = cells(tmp_path / "r.xlsx", "gold")
    lefts = {gold[(row, 4)].value for row in (2, 3)}
    assert lefts == {"\U0001f600" * 16_383, "a" + "\U0001f600" * 16_383}
    notes = {c.value for (row, col), c in cells(tmp_path / "r.xlsx", "ratings").items()
             if col == 5 and row > 1}
    assert fits in notes
    for text in (*lefts, fits):
        assert len(text.encode("utf-16-le")) // 2 <= CELL_LIMIT
