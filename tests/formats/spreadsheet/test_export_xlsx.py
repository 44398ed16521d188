"""The XLSX report: sheets, cell types, styling, agreement figures, chart, atomic writing."""

from __future__ import annotations

import random
import re
import tempfile
import zipfile
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from openpyxl import load_workbook

from simrate.core.base.errors import SimrateError
from simrate.formats.spreadsheet import xlsx_report
from simrate.services.exports.export import export_project
from tests.support.export_fixtures import TRICKY_TEXTS, make_project

HEADER = ["item_id", "dataset", "genre", "left", "right", "gold", "source", "n_ratings",
          "mean", "sd", "min", "max", "flagged", "adjudicated", "note"]
RATERS = ["ann", "bob", "cy"]


def random_ratings(n_items: int, seed: int = 4) -> list[tuple[str, str, float]]:
    """Three raters near a hidden truth, some items missing a rater, a few wild ratings."""
    rng = random.Random(seed)
    rows = []
    for i in range(1, n_items + 1):
        truth = rng.randrange(21)
        for name in RATERS:
            if name == "cy" and i % 4 == 0:
                continue
            code = min(20, max(0, truth + rng.choice([-1, 0, 0, 1]) +
                                (rng.choice([-8, 8]) if rng.random() < 0.1 else 0)))
            rows.append((f"t:{i}", name, code * 0.25))
    return rows


@pytest.fixture
def report(tmp_path):
    """A 60-item project with flagged items adjudicated, exported to XLSX."""
    texts = TRICKY_TEXTS + [f"text {i}" for i in range(60 - len(TRICKY_TEXTS))]
    project = make_project(tmp_path / "p.simrate", texts=texts, ratings=random_ratings(60))
    for item_id in sorted(project.flagged_ids()):
        project.adjudicate(item_id, 2.5, note=f"=looked at {item_id}", by="lead")
    project.skip("t:5", "dee", reason="cannot read it")
    gold = project.gold()
    out = tmp_path / "report.xlsx"
    result = export_project(project, out)
    project.close()
    return out, gold, result


def sheet_rows(path, name):
    """All rows of a sheet as cell lists."""
    book = load_workbook(path)
    return [list(row) for row in book[name].iter_rows()]


def find_table(rows, *first_cells):
    """The rows of the table whose header row starts with `first_cells`, up to a blank row."""
    width = len(first_cells)
    start = next(i for i, row in enumerate(rows)
                 if [c.value for c in row[:width]] == list(first_cells))
    table = []
    for row in rows[start + 1:]:
        if row[0].value is None:
            break
        table.append([c.value for c in row])
    return [c.value for c in rows[start]], table


def test_sheets_and_gold_cells(report):
    out, gold, result = report
    book = load_workbook(out)
    assert book.sheetnames == ["gold", "ratings", "agreement", "agreement over time",
                               "adjudications", "annotators"]
    sheet = book["gold"]
    header = [c.value for c in sheet[1]]
    # dee only skipped an item: an empty column, but a column, as for every annotator
    assert header == HEADER + [f"rating:{r}" for r in RATERS] + ["rating:dee"]
    assert sheet.freeze_panes == "A2"
    assert sheet[1][0].font.bold and sheet[1][0].fill.fgColor.rgb.endswith("305496")
    assert sheet.column_dimensions["D"].width == 60
    rows = list(sheet.iter_rows(min_row=2))
    assert len(rows) == len(gold)
    for row, text in zip(rows, TRICKY_TEXTS, strict=False):
        left = row[3]
        assert left.data_type == "s"  # never a formula, never an error value
        assert left.value == text  # a lone CR too: lxml writes it as &#13;
    first = rows[0]
    assert first[5].data_type == "n" and first[5].value == pytest.approx(gold["gold"][0])
    assert first[7].value == gold["n_ratings"][0]
    assert first[12].data_type == "b"
    assert result.warnings == []


def test_ratings_sheet_is_long(report):
    out, gold, _ = report
    rows = sheet_rows(out, "ratings")
    assert [c.value for c in rows[0]] == ["item_id", "annotator", "score", "status", "note"]
    body = rows[1:]
    scored = [r for r in body if r[2].value is not None]
    assert len(scored) == int(gold["n_ratings"].sum())
    assert all(r[2].data_type == "n" and r[3].value is None for r in scored)
    skipped = [r for r in body if r[3].value]
    assert [(r[0].value, r[1].value, r[3].value, r[4].value) for r in skipped] == [
        ("t:5", "dee", "skipped", "cannot read it")]


def test_agreement_table_matches_the_krippendorff_package(report):
    out, gold, _ = report
    header, table = find_table(sheet_rows(out, "agreement"), "dataset")
    assert header[5] == "alpha (all items)" and header[7] == "alpha (undisputed items only)"
    by_name = {row[0]: row for row in table}
    assert list(by_name) == ["alpha", "beta", "(all)"]
    data = gold[[f"rating:{r}" for r in RATERS]].to_numpy().T
    calm = ~(gold["flagged"].to_numpy() | gold["adjudicated"].to_numpy())
    for name in ("alpha", "beta", "(all)"):
        mask = np.ones(len(gold), bool) if name == "(all)" else gold["dataset"].eq(name).to_numpy()
        expected_all = krippendorff.alpha(reliability_data=data[:, mask],
                                          level_of_measurement="interval")
        expected_calm = krippendorff.alpha(reliability_data=data[:, mask & calm],
                                           level_of_measurement="interval")
        row = by_name[name]
        assert row[1] == mask.sum() and row[6] == (mask & calm).sum()
        assert row[4] == gold["adjudicated"][mask].sum() > 0
        assert row[5] == pytest.approx(expected_all, abs=1e-9)
        assert row[7] == pytest.approx(expected_calm, abs=1e-9)
        assert row[7] > row[5]  # adjudicated items were the disagreements


def test_pearson_matrix_and_rater_against_the_rest(report):
    out, gold, _ = report
    rows = sheet_rows(out, "agreement")
    header, matrix = find_table(rows, "(all)", "ann")
    assert header[1:4] == RATERS
    data = {r: gold[f"rating:{r}"].to_numpy() for r in RATERS}
    both = ~np.isnan(data["ann"]) & ~np.isnan(data["cy"])
    expected = np.corrcoef(data["ann"][both], data["cy"][both])[0, 1]
    assert matrix[0][3] == pytest.approx(expected, abs=1e-12)
    assert matrix[2][1] == pytest.approx(expected, abs=1e-12)
    _, rest = find_table(rows, "rater")
    others = np.nanmean(np.vstack([data["bob"], data["cy"]]), axis=0)
    assert rest[0][0] == "ann"
    assert rest[0][1] == pytest.approx(np.corrcoef(data["ann"], others)[0, 1], abs=1e-12)


def test_distribution_and_chart(report):
    out, gold, _ = report
    header, counts = find_table(sheet_rows(out, "agreement"), "score")
    assert header[1:4] == RATERS
    assert len(counts) == 21  # 0 to 5 in steps of 0.25
    for index, name in enumerate(RATERS, start=1):
        assert sum(row[index] for row in counts) == gold[f"rating:{name}"].notna().sum()
    with zipfile.ZipFile(out) as archive:
        charts = [archive.read(n).decode() for n in archive.namelist()
                  if n.startswith("xl/charts/chart")]
    # the distribution's bar chart, and the agreement over time's line chart
    assert len(charts) == 2
    chart = next(c for c in charts if "barChart" in c)
    assert any("lineChart" in c for c in charts)
    assert len(re.findall(r"<(?:\w+:)?ser>", chart)) == len(RATERS)  # dee rated nothing


def test_adjudications_sheet(report):
    out, gold, _ = report
    rows = sheet_rows(out, "adjudications")
    assert [c.value for c in rows[0]][:6] == ["item_id", "dataset", "score", "note", "by", "at"]
    body = rows[1:]
    assert len(body) == int(gold["adjudicated"].sum())
    first = body[0]
    assert first[3].value.startswith("=looked at") and first[3].data_type == "s"
    assert (first[2].value, first[4].value) == (2.5, "lead")
    assert first[5].is_date


def test_long_and_control_character_texts_are_fitted_with_a_warning(tmp_path):
    texts = ["x" * 40_000, "bell\x07 and null\x00 inside", "fine"]
    with make_project(tmp_path / "p.simrate", texts=texts,
                      ratings=[(f"t:{i}", "a", 1.0) for i in (1, 2, 3)]) as project:
        result = export_project(project, tmp_path / "r.xlsx")
        export_project(project, tmp_path / "r.tsv")
    assert any("32767 characters were cut" in w for w in result.warnings)
    assert any("control characters" in w for w in result.warnings)
    rows = sheet_rows(tmp_path / "r.xlsx", "gold")
    assert len(rows[1][3].value) == 32_767
    assert rows[2][3].value == "bell\ufffd and null\ufffd inside"
    assert "x" * 40_000 in (tmp_path / "r.tsv").read_text()  # the TSV keeps it whole


def test_interrupted_xlsx_export_keeps_the_previous_file(tmp_path, monkeypatch):
    # openpyxl's sheet files go to a folder of this test's own, where no other process's
    # export can come and go while we look
    (tmp_path / "temp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    with make_project(tmp_path / "p.simrate") as project:
        out = tmp_path / "r.xlsx"
        export_project(project, out)
        good = out.read_bytes()

        def crash(*args, **kwargs):
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(xlsx_report, "write_adjudications_sheet", crash)
        with pytest.raises(SimrateError, match="cannot write: Input/output error"):
            export_project(project, out)
    assert out.read_bytes() == good
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
    assert openpyxl_temp_files() == set()  # openpyxl's own sheet files are gone too
    assert not [p for p in tmp_path.iterdir() if ".simrate-scratch-" in p.name]


def openpyxl_temp_files() -> set[str]:
    """openpyxl's temporary sheet files in the system temp folder."""
    return {p.name for p in Path(tempfile.gettempdir()).glob("openpyxl.*")}


def test_xlsx_save_failure_is_one_line_error(tmp_path, monkeypatch):
    with make_project(tmp_path / "p.simrate") as project:
        def full_disk(book, filename, *bodies):
            with open(filename, "wb") as handle:
                handle.write(b"PK\x03\x04 partial")
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(xlsx_report, "save_book", full_disk)
        with pytest.raises(SimrateError, match="the disk is full"):
            export_project(project, tmp_path / "r.xlsx")
    assert not (tmp_path / "r.xlsx").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_more_rows_than_a_spreadsheet_holds_is_refused(tmp_path, monkeypatch):
    ratings = [("t:1", "ann", 1.0), ("t:1", "bob", 1.0), ("t:2", "ann", 2.0)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=ratings) as project:
        monkeypatch.setattr(xlsx_report, "SHEET_ROWS", 4)  # header and three ratings fit
        export_project(project, tmp_path / "fits.xlsx")
        assert len(sheet_rows(tmp_path / "fits.xlsx", "ratings")) == 4
        monkeypatch.setattr(xlsx_report, "SHEET_ROWS", 3)
        with pytest.raises(SimrateError, match="ratings sheet would need 4 rows"):
            export_project(project, tmp_path / "r.xlsx")
    assert not (tmp_path / "r.xlsx").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fits.xlsx", "p.simrate"]


def test_excluded_ratings_are_listed_and_marked(tmp_path):
    ratings = [("t:1", "ann", 1.0), ("t:1", "spam", 4.0), ("t:2", "ann", 2.0)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=ratings) as project:
        project.set_excluded("spam")
        export_project(project, tmp_path / "r.xlsx")
    rows = [[c.value for c in row] for row in sheet_rows(tmp_path / "r.xlsx", "ratings")]
    assert ["t:1", "spam", 4, "excluded", None] in rows
    assert "rating:spam" not in [c.value for c in sheet_rows(tmp_path / "r.xlsx", "gold")[0]]


def test_adjudications_sheet_marks_second_looks(tmp_path):
    ratings = [("t:1", "ann", 0.0), ("t:1", "bob", 3.0), ("t:2", "ann", 1.0),
               ("t:2", "bob", 3.0)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=ratings) as project:
        project.adjudicate("t:1", 1.0, note="bob misread", by="lead")
        project.adjudicate("t:2", 2.0, by="lead")
        project.rate("t:1", "cy", 4.0)  # after the verdict, 3 points away
        result = export_project(project, tmp_path / "r.xlsx")
    assert result.second_look == 1
    rows = [[c.value for c in row] for row in sheet_rows(tmp_path / "r.xlsx", "adjudications")]
    header = rows[0]
    marks = {row[0]: row[header.index("second_look")] for row in rows[1:]}
    assert marks == {"t:1": True, "t:2": False}
    first = dict(zip(header, rows[1], strict=True))
    assert (first["note"], first["n_ratings"], first["max"], first["left"]) == (
        "bob misread", 3, 4, "a")


def test_annotators_sheet_matches_the_annotator_report(report, tmp_path):
    from simrate.core.project import Project
    from simrate.core.team.quality import annotator_report

    out, _gold, _ = report
    rows = sheet_rows(out, "annotators")
    header = [c.value for c in rows[0]]
    assert header[:3] == ["annotator", "rated", "skipped"]
    by_name = {row[0].value: dict(zip(header, [c.value for c in row], strict=True))
               for row in rows[1:]}
    assert set(RATERS) <= set(by_name)
    project_path = next(Path(out).parent.glob("*.simrate"))
    with Project.open(project_path) as project:
        for entry in annotator_report(project):
            cell = by_name[entry["annotator"]]
            assert cell["rated"] == entry["rated"]
            if entry["pearson_vs_rest"] is None:
                assert cell["pearson_vs_rest"] is None
            else:
                assert cell["pearson_vs_rest"] == pytest.approx(entry["pearson_vs_rest"])


def test_report_of_a_project_without_any_rating(tmp_path):
    """Every item decided by adjudication alone: the agreement sheet says why it is empty."""
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=[]) as project:
        project.adjudicate("t:1", 1.0, by="lead")
        project.adjudicate("t:2", 3.0, by="lead")
        export_project(project, tmp_path / "r.xlsx")
    header, table = find_table(sheet_rows(tmp_path / "r.xlsx", "agreement"), "dataset")
    (row,) = [r for r in table if r[0] == "(all)"]
    assert row[1:8] == [2, 0, 0, 2, None, 0, None]
    assert row[8] == "all items: no ratings; undisputed items: no ratings"
