"""Every text that goes into the XLSX report stays the same string, whatever it starts with."""

from __future__ import annotations

import pytest
from openpyxl import load_workbook

from simrate.core.project import Project
from simrate.services.exports.export import export_project
from tests.support.helpers import make_items

PREFIXES = ["=", "#", "+", "-", "@", "=SUM(A1:A2)", "#N/A", "#REF!", "=HYPERLINK(\"x\")"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_names_datasets_notes_and_titles_starting_like_formulas(tmp_path, prefix):
    project = Project.create(tmp_path / "p.simrate", title=f"{prefix}title")
    items = make_items(2)
    items["item_id"] = [f"{prefix}id1", f"{prefix}id2"]
    items["dataset"] = [f"{prefix}data", f"{prefix}data"]
    items["genre"] = [f"{prefix}genre", ""]
    items["left"] = [f"{prefix}left", "plain"]
    project.import_items(items)
    for n, name in enumerate((f"{prefix}ann", f"{prefix}bob")):
        project.rate(f"{prefix}id1", name, 1.0 + n, note=f"{prefix}note")
        project.rate(f"{prefix}id2", name, 2.0)
    project.adjudicate(f"{prefix}id1", 1.5, note=f"{prefix}verdict", by=f"{prefix}boss")
    out = tmp_path / "out.xlsx"
    export_project(project, out)
    book = load_workbook(out)
    texts = {cell.value for sheet in book.worksheets for row in sheet.iter_rows()
             for cell in row if isinstance(cell.value, str)}
    formulas = [cell.coordinate for sheet in book.worksheets for row in sheet.iter_rows()
                for cell in row if cell.data_type in ("f", "e")]
    assert formulas == []
    wanted = {f"{prefix}{t}" for t in ("id1", "id2", "data", "genre", "left", "ann", "bob",
                                       "note", "verdict", "boss")}
    assert wanted <= texts, wanted - texts
    assert any(f"{prefix}title" in t for t in texts)
