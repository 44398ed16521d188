"""Undo never overwrites a change it did not make: a newer value written by another process
stays, and the undo (or redo) step is refused saying why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simrate.core.actions import Adjudicate, History, SetRating
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingState, Verdict
from tests.support.helpers import new_project

ROOT = Path(__file__).resolve().parents[2]


def elsewhere(path: Path, code: str) -> None:
    """Run `code` (with `project` open on `path`) in another process."""
    script = ("import sys\nfrom simrate.core.project import Project\n"
              "with Project.open(sys.argv[1]) as project:\n"
              + "".join(f"    {line}\n" for line in code.splitlines()))
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr


@pytest.fixture
def project(tmp_path):
    project = new_project(tmp_path / "p.simrate")
    yield project
    project.close()


def test_undo_leaves_a_newer_rating_made_elsewhere(project):
    history = History(project)
    project.rate("x:1", "ann", 1.0)
    history.run(SetRating("x:1", "ann", RatingState(project.scale.to_code(2.0), "mine")))
    elsewhere(project.path, "project.rate('x:1', 'ann', 4.0, note='from the other machine')")
    with pytest.raises(SimrateError) as refused:
        history.undo()
    assert "changed elsewhere" in refused.value.message and "newer value stays" in \
        refused.value.message and "'x:1'" in refused.value.message
    record = project.rating_record("x:1", "ann")
    assert (record["score"], record["note"]) == (4.0, "from the other machine")
    assert not history.undo() and not history.redo()  # the refused step is gone
    kinds = project.changes()["kind"].tolist()
    assert kinds.count("rating") == 3  # 1.0, 2.0, 4.0: the refused undo wrote nothing


def test_undo_after_a_clear_elsewhere_does_not_bring_the_rating_back(project):
    history = History(project)
    history.run(SetRating("x:2", "ann", RatingState(project.scale.to_code(3.0))))
    history.run(SetRating("x:2", "ann", RatingState(project.scale.to_code(1.0))))
    elsewhere(project.path, "project.rate('x:2', 'ann', None)")
    with pytest.raises(SimrateError, match="changed elsewhere"):
        history.undo()
    assert project.rating_record("x:2", "ann") is None
    with pytest.raises(SimrateError):  # the older step would overwrite it as well
        history.undo()
    assert project.rating_record("x:2", "ann") is None


def test_undo_and_redo_still_work_when_nothing_changed_elsewhere(project):
    history = History(project)
    history.run(SetRating("x:1", "ann", RatingState(project.scale.to_code(2.0))))
    history.run(SetRating("x:1", "ann", RatingState(project.scale.to_code(3.0), "why")))
    elsewhere(project.path, "project.rate('x:1', 'bob', 4.0)")  # another rater, same item
    assert history.undo() and project.rating("x:1", "ann") == 2.0
    assert history.redo() and project.rating("x:1", "ann") == 3.0
    assert history.undo() and history.undo() and project.rating("x:1", "ann") is None


def test_redo_leaves_a_newer_rating_made_elsewhere(project):
    history = History(project)
    history.run(SetRating("x:3", "ann", RatingState(project.scale.to_code(2.0))))
    assert history.undo()
    elsewhere(project.path, "project.rate('x:3', 'ann', 0.0)")
    with pytest.raises(SimrateError, match="changed elsewhere"):
        history.redo()
    assert project.rating("x:3", "ann") == 0.0


def test_undo_leaves_a_newer_adjudication_made_elsewhere(project):
    history = History(project)
    history.run(Adjudicate("x:1", Verdict(project.scale.to_code(2.0), "agreed"), by="lead"))
    elsewhere(project.path, "project.adjudicate('x:1', 4.0, 'second thoughts', by='eve')")
    with pytest.raises(SimrateError, match="adjudication of 'x:1' was changed elsewhere"):
        history.undo()
    verdict = project.verdict("x:1")
    assert (project.scale.from_code(verdict.code), verdict.note) == (4.0, "second thoughts")
