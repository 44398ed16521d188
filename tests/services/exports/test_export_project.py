"""export_project (app/services/exports/export.py): what its report says matches the file it
wrote, unresolved items are refused unless allowed, and targets the gold file cannot take
(a folder, another format's options) are refused before anything is written."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

from simrate.core.base.errors import RuleError, SimrateError
from simrate.core.base.frames import rating_frame
from simrate.services.dataset.dataset_export import DatasetOptions
from simrate.services.exports.export import export_project
from tests.support.export_fixtures import make_project

#: t:1 two equal ratings, t:2 two ratings 4 apart (flagged), t:3 one rating, t:4 none
RATINGS = [("t:1", "ann", 1.0), ("t:1", "bob", 1.0), ("t:2", "ann", 0.0), ("t:2", "bob", 4.0),
           ("t:3", "ann", 2.0)]


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path / "p.simrate", texts=["a", "b", "c", "d"], ratings=RATINGS)
    yield p
    p.close()


def written_rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_unresolved_items_are_refused_with_their_counts_and_nothing_is_written(project,
                                                                               tmp_path):
    out = tmp_path / "gold.tsv"
    with pytest.raises(RuleError) as refused:
        export_project(project, out)
    assert "1 flagged item not adjudicated and 1 item with no rating (of 4)" in str(refused.value)
    assert not out.exists()


def test_the_report_counts_what_the_file_holds(project, tmp_path):
    out = tmp_path / "gold.tsv"
    report = export_project(project, out, allow_unresolved=True)
    rows = written_rows(out)
    assert (report.path, report.format, report.format_from_extension) == (out, "tsv", True)
    assert report.items == len(rows) == 4
    assert report.sources == dict(Counter(row["source"] or "none" for row in rows))
    assert report.flagged == sum(row["flagged"] == "true" for row in rows) == 1
    assert report.unrated == sum(row["n_ratings"] == "0" for row in rows) == 1
    assert report.warnings == []


def test_once_resolved_the_export_needs_no_allowance(project, tmp_path):
    project.adjudicate("t:2", 2.5, note="read again", by="lead")
    project.import_ratings(rating_frame({"item_id": ["t:4"], "annotator": ["ann"],
                                         "score": [3.0], "note": [""], "line": [2]}),
                           source="late.tsv")
    report = export_project(project, tmp_path / "gold.csv")
    assert (report.format, report.flagged, report.unrated) == ("csv", 0, 0)
    assert report.sources["adjudicated"] == 1


def test_a_folder_without_format_dataset_is_refused_with_the_way_out(project, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(SimrateError, match="is a folder; give a file name to write, or "
                                           "--format dataset"):
        export_project(project, folder, allow_unresolved=True)
    assert list(folder.iterdir()) == []


def test_dataset_options_belong_to_the_dataset_format(project, tmp_path):
    out = tmp_path / "gold.tsv"
    with pytest.raises(SimrateError, match="belong to --format dataset"):
        export_project(project, out, allow_unresolved=True, dataset=DatasetOptions())
    assert not out.exists()
