"""Reading and writing an import as the window does: refusals, and nothing half-made left."""

from __future__ import annotations

from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.services.imports.file_import import ImportRequest, read_source, write_source

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

    def refuse(self, frame, source="", progress=None):
        raise SimrateError("refused", source)

    monkeypatch.setattr(Project, "import_items", refuse)
    with pytest.raises(SimrateError, match="refused"):
        write_source(request, *read)
    leftovers = [p for p in Path(tmp_path).iterdir() if p.name.startswith("new.simrate")]
    assert leftovers == []


# ----------------------------------------------------------------- one pipeline
TURK = ("HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
        "Input.id1,Input.left1,Input.right1,Answer.score1\n"
        "H,A1,W1,Approved,10,q1,Hello&#44; world,Hi,4\n"
        "H,A2,W2,Approved,20,q1,Hello&#44; world,Hi,3.5\n")


def contents(path: Path) -> tuple[list, list]:
    """Every item (id and texts) and every rating (with its work time) of a project."""
    with Project.open(path) as project:
        items = sorted((i, project.item(i)["left"], project.item(i)["right"])
                       for i in project.item_ids())
        ratings = sorted((i, str(a), project.rating_record(i, a)["score"],
                          project.rating_record(i, a)["seconds"])
                         for i, a in zip(project.ratings()["item_id"],
                                         project.ratings()["annotator"], strict=True))
    return items, ratings


@pytest.mark.parametrize("name, text", [("pairs.tsv", PAIRS), ("results.csv", TURK)])
def test_the_window_and_the_command_line_import_alike(tmp_path, capsys, name, text):
    # the same file into two projects, one by `simrate import`, one by the window's job
    from tests.cli.helpers import simrate

    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    by_cli, by_window = tmp_path / "cli.simrate", tmp_path / "window.simrate"
    for path in (by_cli, by_window):
        with Project.create(path, scale="sts"):
            pass
    done = simrate(capsys, "import", by_cli, source)
    assert done.status == 0, done.err
    request = ImportRequest(source, by_window)
    result = write_source(request, *read_source(request))
    assert contents(by_cli) == contents(by_window)
    items, ratings = contents(by_window)
    assert items and (ratings or name == "pairs.tsv")
    assert result.added == 2 and f"{name}: 2 {result.kind} added" in done.out


def test_read_file_names_what_a_file_holds(tmp_path):
    from simrate.services.imports.file_import import ReadOptions, read_file

    pairs, turk, ratings = (tmp_path / "pairs.tsv", tmp_path / "results.csv",
                            tmp_path / "r.tsv")
    pairs.write_text(PAIRS)
    turk.write_text(TURK)
    ratings.write_text("item_id\tscore\np1\t3\n")
    project = tmp_path / "p.simrate"
    with Project.create(project, scale="sts"):
        pass
    assert read_file(pairs).kind == "items"
    assert read_file(turk).kind == "turk"
    assert read_file(project).kind == "project" and read_file(project).frame is None
    read = read_file(ratings, options=ReadOptions(annotator="ann"))
    assert (read.kind, read.fmt, list(read.frame["annotator"])) == ("ratings", "ratings",
                                                                      ["ann"])
