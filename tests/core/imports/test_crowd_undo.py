"""One import is one undo step: a crowd or ratings import taken back removes the items, ratings
and annotators it added, and keeps an annotator who rated since."""

from __future__ import annotations

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error
from tests.support.samples import table_rows, turk_results


def test_one_undo_takes_back_a_crowd_import_that_added_items(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path, 2)  # x:1, x:2
    project.rate("x:1", "lead", 2.0)
    project.close()
    before = table_rows(path)
    source = turk_results(tmp_path / "Batch_7_batch_results.csv", [
        "H1,A1,w1,Approved,12,x:1,,,3",        # an item the project has
        "H2,A2,w2,Approved,20,new:1,one,two,1.5",  # an item the file brings
        "H2,A3,w1,Approved,30,new:1,one,two,2",
    ])
    result = simrate(capsys, "import", path, source)
    assert result.status == 0, result.err
    assert "1 item added" in result.out
    with Project.open(path) as opened:
        assert opened.has_item("new:1") and {"w1", "w2"} <= set(opened.annotators())

    result = simrate(capsys, "import", path, "--undo")
    assert result.status == 0, result.err
    assert "3 ratings removed, 1 item removed, 2 annotators it added removed" in result.out
    assert table_rows(path) == before
    with Project.open(path) as opened:
        assert not opened.has_item("new:1")
        assert opened.annotators() == ["lead"]
        assert opened.n_items == 2
    # the crowd import was one step: the next undo goes to the import before it (the
    # sample items, refused because lead rated one of them)
    result = simrate(capsys, "import", path, "--undo")
    assert result.status == 2
    one_line_error(result.err, "cannot undo this import: some of its items have ratings")


def test_undo_in_the_open_project_updates_what_it_shows(tmp_path):
    from simrate.formats.readers.turk import read_turk
    from simrate.services.crowd.crowd_import import import_crowd_results

    path = tmp_path / "p.simrate"
    source = turk_results(tmp_path / "results.csv", ["H1,A1,w9,Approved,12,new:1,one,two,3"])
    with new_project(path, 1) as project:
        events = []
        project.subscribe(events.append)
        import_crowd_results(project, read_turk(source), str(source))
        assert project.has_item("new:1") and "w9" in project.annotators()
        project.undo_import()
        assert not project.has_item("new:1")
        assert project.annotators() == [] and project.roster.id_of("w9") is None
        assert project.n_items == 1 and project.ratings().empty
        # the same file imports again as new (the worker comes back with a fresh id)
        import_crowd_results(project, read_turk(source), str(source))
        assert project.rating("new:1", "w9") == 3


def test_undo_of_a_ratings_import_removes_the_annotators_it_added(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path, 2)
    project.rate("x:1", "ana", 1.0)
    project.close()
    source = tmp_path / "ratings.csv"
    source.write_text("item_id,annotator,score\nx:1,ana,2\nx:2,ben,3\n", encoding="utf-8")
    assert simrate(capsys, "import", path, source).status == 0
    result = simrate(capsys, "import", path, "--undo")
    assert result.status == 0, result.err
    assert "1 annotator it added removed" in result.out
    with Project.open(path) as opened:
        assert opened.annotators() == ["ana"]  # ana was there before: she stays
        assert opened.rating("x:1", "ana") == 1.0


def test_an_annotator_who_rated_since_stays_after_the_undo(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 2).close()
    source = tmp_path / "ratings.csv"
    source.write_text("item_id,annotator,score\nx:1,ben,3\n", encoding="utf-8")
    assert simrate(capsys, "import", path, source).status == 0
    with Project.open(path) as opened:
        opened.rate("x:2", "ben", 2.0)
    assert simrate(capsys, "import", path, "--undo").status == 0
    with Project.open(path) as opened:
        assert opened.annotators() == ["ben"] and opened.rating("x:2", "ben") == 2.0
