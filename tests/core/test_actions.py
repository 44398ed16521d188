"""Qt-free actions: do, undo and redo through the Project, with the change log as witness."""

from __future__ import annotations

import pytest

from simrate.core.actions import Adjudicate, History, SetExcluded, SetRating
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import AdjudicationChanged, RatingChanged, RatingState, Verdict
from simrate.core.project import Project
from tests.core.test_project import make_items


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.simrate", scale="clss") as p:
        p.import_items(make_items(4), source="i.tsv")
        yield p


def test_rating_undo_and_redo_restore_each_state(project):
    history = History(project)
    project.rate("x:1", "ann", 1.0, note="first")
    assert history.run(SetRating("x:1", "ann", RatingState(12, "better", False, 3.5)))
    assert project.rating_state("x:1", "ann") == RatingState(12, "better", False, 3.5)
    assert history.undo()
    restored = project.rating_state("x:1", "ann")
    assert (restored.code, restored.note, restored.skipped) == (4, "first", False)
    assert history.redo()
    assert project.rating_state("x:1", "ann").code == 12
    # each step is a logged write like any other
    assert list(project.changes()["kind"]).count("rating") == 4


def test_an_unchanged_state_is_not_an_action(project):
    history = History(project)
    project.rate("x:2", "ann", 2.0)
    same = RatingState(8, "", False, None)
    assert not history.run(SetRating("x:2", "ann", same))
    assert not history.undo()


def test_undoing_a_first_rating_removes_it(project):
    history = History(project)
    history.run(SetRating("x:3", "bob", RatingState(5)))
    history.undo()
    assert project.rating_record("x:3", "bob") is None
    assert project.ratings().empty


def test_skip_undo_brings_the_score_back(project):
    history = History(project)
    project.rate("x:1", "ann", 3.0)
    history.run(SetRating("x:1", "ann", RatingState(None, "unclear", True)))
    assert project.rating_state("x:1", "ann").skipped
    history.undo()
    assert project.rating("x:1", "ann") == 3.0


def test_verdict_undo_withdraws_and_redo_sets_again(project):
    history = History(project)
    seen = []
    project.subscribe(seen.append)
    history.run(Adjudicate("x:4", Verdict(10, "agreed"), by="lead"))
    history.undo()
    assert project.verdict("x:4") == Verdict()
    history.redo()
    assert project.verdict("x:4") == Verdict(10, "agreed")
    assert [type(e) for e in seen] == [AdjudicationChanged] * 3
    assert [e.new.code for e in seen] == [10, None, 10]


def test_exclusion_is_undoable(project):
    project.rate("x:1", "ann", 1.0)
    history = History(project)
    history.run(SetExcluded("ann", True, by="lead"))
    assert project.excluded_annotators() == ["ann"]
    history.undo()
    assert project.excluded_annotators() == []


def test_events_carry_codes_and_the_old_state(project):
    seen = []
    project.subscribe(seen.append)
    project.rate("x:1", "ann", 1.0, note="n")
    project.skip("x:1", "ann", "why")
    first, second = seen
    assert isinstance(first, RatingChanged) and first.old == RatingState()
    assert first.new.code == 4 and first.new.note == "n"
    assert second.old.code == 4 and second.new.skipped and second.new.note == "why"


def test_a_failed_action_changes_nothing_and_is_not_remembered(project):
    history = History(project)
    with pytest.raises(SimrateError):
        history.run(SetRating("no-such-item", "ann", RatingState(1)))
    assert not history.undo()


def test_describe_names_item_and_scores(project):
    action = SetRating("x:1", "ann", RatingState(13))
    action.do(project)
    assert action.describe(project.scale) == "x:1: nothing \u2192 3.25"
    verdict = Adjudicate("x:1", Verdict(4), by="lead")
    verdict.do(project)
    assert verdict.describe(project.scale) == "Adjudicate x:1: none \u2192 1"
