"""A full disk: nothing misattributed, a plain message, no cache outliving the failure."""

from __future__ import annotations

import sys

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.support.helpers import fill_disk, free_disk, make_items, new_project, run_on_small_disk

LONG_NOTE = "n" * 200_000  # needs new pages, so the write meets the full disk


def test_rating_after_full_disk_is_stored_under_its_own_annotator(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    a, b = Project.open(path), Project.open(path)
    fill_disk(a._conn)
    with pytest.raises(SimrateError, match="the disk is full"):
        a.rate("x:1", "late", 1.0, note=LONG_NOTE)
    assert not a._conn.in_transaction
    free_disk(a._conn)
    b.rate("x:2", "x", 2.0)  # "x" may now get the id "late" would have had
    a.rate("x:1", "late", 1.0)
    c = Project.open(path)
    assert c.rating("x:1", "late") == 1.0
    assert c.rating("x:1", "x") is None
    assert c.annotators() == ["x", "late"]
    a.refresh()
    assert a.roster.ids() == c.roster.ids()


def test_failed_commit_is_a_plain_error_and_leaves_no_transaction(tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path)
    fill_disk(project._conn)
    for write in (lambda: project.import_items(make_items(3000, "big"), "f.tsv"),
                  lambda: project.adjudicate("x:1", 2.0, note=LONG_NOTE),
                  lambda: project.skip("x:2", "z", LONG_NOTE)):
        with pytest.raises(SimrateError) as caught:
            write()
        assert "the disk is full" in str(caught.value)
        assert "nothing of this change was saved" in str(caught.value)
        assert not project._conn.in_transaction
    free_disk(project._conn)
    assert project.n_items == 3 and project.item_ids() == Project.open(path).item_ids()
    assert project.annotators() == [] and project.roster.ids() == {}
    project.rate("x:1", "z", 1.0)  # the project works once there is room again
    assert Project.open(path).rating("x:1", "z") == 1.0


def test_import_ratings_on_full_disk_adds_no_annotator_to_memory(tmp_path):
    from simrate.core.base.frames import rating_frame
    path = tmp_path / "p.simrate"
    project = new_project(path)
    frame = rating_frame({"item_id": ["x:1", "x:2"], "annotator": ["ann", "bob"],
                          "score": [1.0, 2.0], "note": [LONG_NOTE, ""], "line": [2, 3]})
    fill_disk(project._conn)
    with pytest.raises(SimrateError, match="the disk is full"):
        project.import_ratings(frame, "r.csv")
    free_disk(project._conn)
    other = Project.open(path)
    other.rate("x:3", "carl", 3.0)
    project.rate("x:3", "ann", 1.0)
    assert Project.open(path).ratings().set_index("annotator")["score"].to_dict() == {
        "carl": 3.0, "ann": 1.0}


SCENARIO = '''
import os, sys
from pathlib import Path
from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.support.helpers import make_items

folder = Path(sys.argv[1])
path = folder / "p.simrate"
Project.create(path).import_items(make_items(3))
a, b = Project.open(path), Project.open(path)
filler = folder / "filler"
fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"\\\\0" * 512)
except OSError:
    pass
os.close(fd)
try:
    a.rate("x:1", "late", 1.0)
    print("first: saved")
except SimrateError as exc:
    print("first:", exc.message)
filler.unlink()
b.rate("x:2", "x", 2.0)
a.rate("x:1", "late", 1.0)
c = Project.open(path)
print("late:", c.rating("x:1", "late"), "x:", c.rating("x:1", "x"), c.annotators())
'''


def test_real_full_disk_commit_never_misattributes(tmp_path):
    """The reported case on a real full file system: COMMIT fails, SQLite rolls back."""
    folder = tmp_path / "disk"
    folder.mkdir()
    script = tmp_path / "scenario.py"
    script.write_text(SCENARIO)
    proc, _ = run_on_small_disk(folder, 256, [sys.executable, str(script), str(folder)])
    assert proc.returncode == 0, proc.stderr
    assert "first: cannot save to the project: the disk is full" in proc.stdout
    assert "late: 1.0 x: None ['x', 'late']" in proc.stdout
