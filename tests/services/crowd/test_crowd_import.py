"""Importing crowd results: a refused file leaves the project as it was, new items included."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.formats.readers.turk import read_turk
from simrate.services.crowd.crowd_import import import_crowd_results

HEAD = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"


def results(tmp_path, rows: str):
    path = tmp_path / "Batch_1_batch_results.csv"
    path.write_text(HEAD + "Input.id1,Input.left1,Input.right1,Answer.score1\n" + rows,
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("rows, message", [
    # a hair off the grid: the tolerant check let it through and the items went in alone
    ("H1,A1,W1,Approved,12,new-1,one,two,2\nH2,A2,W2,Approved,9,new-2,three,four,"
     "2.7500000001\n", "not on the grid"),
    ("H1,A1,W1,Approved,12,new-1,one,two,9\n", "outside scale"),
])
def test_a_refused_rating_adds_no_items(tmp_path, rows, message):
    path = results(tmp_path, rows)
    with Project.create(tmp_path / "p.simrate", scale="clss") as project:
        with pytest.raises(SimrateError) as error:
            import_crowd_results(project, read_turk(path), str(path))
        assert message in error.value.message
        assert error.value.line == rows.count("\n") + 1  # the header is line 1
        assert project.n_items == 0 and project.changes().empty


def test_work_time_is_saved_with_each_rating(tmp_path):
    path = results(tmp_path, "H1,A1,W1,Approved,12,new-1,one,two,2.75\n")
    with Project.create(tmp_path / "p.simrate", scale="clss") as project:
        seen = []  # what a view reads when told of the ratings: the work time is there
        project.subscribe(lambda event: seen.append(
            project.rating_record("new-1", "W1") if event.is_bulk and project.n_items else None))
        done = import_crowd_results(project, read_turk(path), str(path))
        assert done.items_added == 1 and done.ratings["added"] == 1
        assert seen[-1]["seconds"] == 12.0
        assert project.rating_record("new-1", "W1") == {
            "score": 2.75, "note": "", "skipped": False, "seconds": 12.0}


def test_a_crowd_import_that_fails_on_a_full_disk_adds_no_items(tmp_path):
    """Items and ratings go in as one transaction: the new item, which fits, stays out when
    the ratings (a long note) meet the full disk."""
    from tests.support.helpers import fill_disk, free_disk

    path = tmp_path / "Batch_1_batch_results.csv"
    path.write_text(HEAD + "Input.id1,Input.left1,Input.right1,Answer.score1,Answer.note1\n"
                    f"H1,A1,W1,Approved,12,new-1,one,two,2,{'n' * 200_000}\n",
                    encoding="utf-8")
    frame = read_turk(path)
    with Project.create(tmp_path / "p.simrate", scale="clss") as project:
        fill_disk(project._conn)
        with pytest.raises(SimrateError, match="the disk is full"):
            import_crowd_results(project, frame, str(path))
        free_disk(project._conn)
        assert project.n_items == 0 and project.ratings().empty
        assert project.items().empty and project.changes().empty  # as stored
        done = import_crowd_results(project, frame, str(path))  # with room, it goes in
        assert done.items_added == 1 and project.rating("new-1", "W1") == 2.0
