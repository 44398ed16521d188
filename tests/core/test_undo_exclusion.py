"""Undo of an exclusion never overwrites a newer one: when another handle on the same file
(another window, a command, the hub's sync) changed the annotator's exclusion since the step,
the newer state stays and the undo (or redo) is refused saying why, as for ratings."""

from __future__ import annotations

import pytest

from simrate.core.actions import ExcludeCareless, History, SetExcluded
from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.quality import set_checks
from tests.core.frames import make_items, make_ratings

KNOWN = {"d:1": 0.0, "d:2": 1.0, "d:3": 2.5, "d:4": 3.5, "d:5": 5.0}


@pytest.fixture
def two(tmp_path):
    """Two handles on one real project file: ours (with the undo history) and another."""
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(make_items(5), source="items.tsv")
        project.import_ratings(make_ratings(
            [(item, name, score if name != "Odd" else 5.0 - score)
             for item, score in KNOWN.items() for name in ("amy", "Bea", "Odd")]),
            source="batch.tsv")
        set_checks(project, KNOWN)
    ours, other = Project.open(path), Project.open(path)
    yield ours, other
    other.close()
    ours.close()


def exclusions(project: Project) -> list[str]:
    return [k for k in project.changes()["kind"].tolist() if k == "exclude"]


def test_undo_leaves_an_exclusion_changed_elsewhere(two):
    ours, other = two
    history = History(ours)
    assert history.run(SetExcluded("amy", True, by="lead"))
    other.set_excluded("amy", False, by="eve")  # counted again from the other window
    logged = len(exclusions(ours))
    with pytest.raises(SimrateError) as refused:
        history.undo()
    assert "exclusion of 'amy' was changed elsewhere" in refused.value.message
    assert "newer state stays" in refused.value.message
    assert "amy" not in ours.excluded_annotators()  # eve's state stands
    assert len(exclusions(ours)) == logged  # the refused undo logged nothing
    assert not history.undo()  # the refused step left the stack


def test_undo_of_counting_again_leaves_a_newer_exclusion(two):
    ours, other = two
    ours.set_excluded("Bea", True, by="lead")
    history = History(ours)
    assert history.run(SetExcluded("Bea", False, by="lead"))
    other.set_excluded("Bea", True, by="eve")
    with pytest.raises(SimrateError, match="'Bea' was changed elsewhere"):
        history.undo()
    assert "Bea" in other.excluded_annotators()


def test_redo_leaves_an_exclusion_changed_elsewhere(two):
    ours, other = two
    history = History(ours)
    assert history.run(SetExcluded("amy", True, by="lead"))
    assert history.undo() and "amy" not in ours.excluded_annotators()
    other.set_excluded("amy", True, by="eve")
    other.set_excluded("amy", False, by="eve")  # back and forth: the same state, so fine
    assert history.redo() and "amy" in ours.excluded_annotators()
    assert history.undo()
    other.set_excluded("amy", True, by="eve")
    with pytest.raises(SimrateError, match="changed elsewhere"):
        history.redo()
    assert "amy" in ours.excluded_annotators()


def test_exclusion_undo_and_redo_without_a_change_elsewhere(two):
    ours, other = two
    history = History(ours)
    assert history.run(SetExcluded("amy", True, by="lead"))
    other.set_excluded("Bea", True, by="eve")  # someone else's exclusion is no conflict
    assert history.undo() and "amy" not in ours.excluded_annotators()
    assert history.redo() and "amy" in ours.excluded_annotators()
    assert history.undo() and "Bea" in ours.excluded_annotators()


def test_undo_of_the_careless_rule_leaves_a_worker_counted_again_elsewhere(two):
    ours, other = two
    history = History(ours)
    assert history.run(ExcludeCareless(by="lead"))
    assert ours.excluded_annotators() == ["Odd"]
    other.set_excluded("Odd", False, by="eve")
    other.set_excluded("Odd", True, by="eve")
    assert history.undo() and ours.excluded_annotators() == []  # excluded again: fine
    other.set_excluded("Odd", True, by="eve")
    with pytest.raises(SimrateError, match="'Odd' was changed elsewhere"):
        history.redo()
    history2 = History(ours)
    assert history2.run(SetExcluded("Odd", False, by="lead"))
    assert history2.run(ExcludeCareless(by="lead"))
    other.set_excluded("Odd", False, by="eve")
    with pytest.raises(SimrateError, match="'Odd' was changed elsewhere"):
        history2.undo()
    assert "Odd" not in ours.excluded_annotators()
