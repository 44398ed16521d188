"""A no-op writes nothing: saving what is stored already (a score, a skip, a verdict, an
exclusion) leaves the change log, the stored edit time and the subscribers alone."""

from __future__ import annotations

import pytest

from tests.support.helpers import new_project


@pytest.fixture
def project(tmp_path):
    project = new_project(tmp_path / "p.simrate")
    yield project
    project.close()


def snapshot(project) -> tuple:
    return (len(project.changes()), project.ratings()["updated_at"].tolist(),
            project.adjudications()["at"].tolist(), project.excluded_annotators())


@pytest.mark.parametrize("again", [
    lambda p: p.rate("x:1", "ann", 2.0),
    lambda p: p.rate("x:1", "ann", 2.0, note=None),
    lambda p: p.rate("x:1", "ann", 2.0, seconds=9.5),  # the time taken is no decision
    lambda p: p.skip("x:2", "ann", reason="unclear"),
    lambda p: p.adjudicate("x:1", 3.0, note="agreed", by="org"),
    lambda p: p.adjudicate("x:1", 3.0, note="agreed", by="someone else"),
    lambda p: p.set_excluded("bob", True, by="org"),
    lambda p: p.rate("x:3", "nobody", None),  # clearing what was never there
])
def test_saving_what_is_stored_writes_nothing(project, again):
    project.rate("x:1", "ann", 2.0)
    project.skip("x:2", "ann", reason="unclear")
    project.rate("x:1", "bob", 1.0)
    project.adjudicate("x:1", 3.0, note="agreed", by="org")
    project.set_excluded("bob", True, by="org")
    before, heard = snapshot(project), []
    project.subscribe(heard.append)
    again(project)
    assert snapshot(project) == before and heard == []
    assert "nobody" not in project.annotators()


def test_a_change_still_writes_and_moves_the_stamp(project):
    project.rate("x:1", "ann", 2.0)
    stamp = project.ratings()["updated_at"].iat[0]
    heard = []
    project.subscribe(heard.append)
    project.rate("x:1", "ann", 2.0, note="looked again")
    assert project.ratings()["updated_at"].iat[0] > stamp and len(heard) == 1
