"""Reading and writing an import as the window does: refusals, and nothing half-made left."""

from __future__ import annotations

from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.services.file_import import ImportRequest, read_source, write_source

PAIRS = "id\tsentence1\tsentence2\np1\tone left\tone right\np2\ttwo left\ttwo right\n"


def test_a_new_project_from_a_file_of_pairs(tmp_path):
    source = tmp_path / "pairs.tsv"
    source.write_text(PAIRS)
    request = ImportRequest(source, tmp_path / "new.simrate", new_scale="sts", title="T")
    result = write_source(request, *read_source(request))
    assert (result.kind, result.added, result.unchanged) == ("items", 2, 0)
    assert result.summary().startswith("pairs.tsv: 2 items added")
    with Project.open(request.project_path) as project:
        assert project.item_ids() == ["p1", "p2"] and project.title == "T"


def test_a_ratings_file_cannot_start_a_project(tmp_path):
    source = tmp_path / "r.tsv"
    source.write_text("item_id\tannotator\tscore\np1\tann\t3\n")
    request = ImportRequest(source, tmp_path / "new.simrate", fmt="ratings", new_scale="sts")
    with pytest.raises(SimrateError, match="needs a file of pairs"):
        read_source(request)


def test_a_refused_write_removes_the_new_project_file(tmp_path, monkeypatch):
    source = tmp_path / "pairs.tsv"
    source.write_text(PAIRS)
    request = ImportRequest(source, tmp_path / "new.simrate", new_scale="clss")
    read = read_source(request)

    def refuse(self, frame, source=""):
        raise SimrateError("refused", source)

    monkeypatch.setattr(Project, "import_items", refuse)
    with pytest.raises(SimrateError, match="refused"):
        write_source(request, *read)
    leftovers = [p for p in Path(tmp_path).iterdir() if p.name.startswith("new.simrate")]
    assert leftovers == []
