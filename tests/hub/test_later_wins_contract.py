"""One contract for the plain file and the hub: later edit wins, an undo never erases a
newer value, a no-op writes nothing, for ratings and verdicts (exclusions: no-op here,
later-wins in test_every_kind_travels.py).

Each case runs on two writers of the same data: on a plain file two open projects (two
windows or programs), on a hub two replicas (Alice's laptop and desktop for ratings, two
organizers for verdicts), where `settle` is a sync round of each in the given order.
"""

from __future__ import annotations

import time

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingState, Verdict
from simrate.core.project import Project
from simrate.hub.team.sync import pending_count, sync_once
from tests.hub.hubs import make_project
from tests.hub.test_every_kind_travels import crew  # noqa: F401 - a fixture

ITEM = "d:3"


class Rating:
    """Alice's rating of ITEM."""

    @staticmethod
    def write(project: Project, value: float) -> None:
        project.rate(ITEM, "Alice", value)

    @staticmethod
    def read(project: Project) -> float | None:
        return project.rating(ITEM, "Alice")

    @staticmethod
    def undo(project: Project, left: float) -> None:
        """The window's undo of a first rating: only over the one it left."""
        project.set_rating_state(ITEM, "Alice", RatingState(),
                                 expect=RatingState(project.scale.to_code(left)))


class Adjudication:
    """The verdict on ITEM."""

    @staticmethod
    def write(project: Project, value: float) -> None:
        project.adjudicate(ITEM, value, by="someone")

    @staticmethod
    def read(project: Project) -> float | None:
        code = project.verdict(ITEM).code
        return None if code is None else project.scale.from_code(code)

    @staticmethod
    def undo(project: Project, left: float) -> None:
        project.set_verdict(ITEM, Verdict(), "someone",
                            expect=Verdict(project.scale.to_code(left)))


class Side:
    """Two writers and the way their views meet."""

    def __init__(self, first: Project, second: Project, hub: bool):
        self.first, self.second, self.hub = first, second, hub

    def settle(self, *order: Project) -> int:
        """Sync (hub) or reload (file) each in turn; the conflicts the rounds reported."""
        found = 0
        for project in order:
            found += sync_once(project).conflicts if self.hub else project.refresh() * 0
        return found


@pytest.fixture(params=["file", "hub", "service"])
def backend(request, tmp_path):
    """("file" | "hub" | "service", {kind: Side}); "service": Alice's laptop syncs through
    `simrate serve` (a sync link, issue 33), her desktop and the organizers direct."""
    if request.param == "file":
        one = make_project(tmp_path / "shared.simrate")
        one.rate("d:1", "Alice", 1.0)  # Alice known to both windows
        two = Project.open(one.path)
        yield "file", {Rating: Side(one, two, False), Adjudication: Side(one, two, False)}
        one.close()
        two.close()
        return
    people = request.getfixturevalue("crew")
    if request.param == "service":
        yield from through_service(people, tmp_path)
        return
    yield "hub", {Rating: Side(people["laptop"], people["desktop"], True),
                  Adjudication: Side(people["org"], people["olga"], True)}


def through_service(people: dict, tmp_path):
    """The crew with Alice's laptop replaced by a replica joined through `simrate serve`."""
    from simrate.hub.team.tokens import issue_token
    from tests.hub.servicehub import join_through
    from tests.web.servers import Server

    token, _login = issue_token(people["org"], "Alice")
    with Server(people["org"].path) as server:
        laptop = join_through(server, token, tmp_path / "laptop-service.simrate")
        yield "service", {Rating: Side(laptop, people["desktop"], True),
                          Adjudication: Side(people["org"], people["olga"], True)}
        laptop.close()
        server.stop()


def later() -> None:
    time.sleep(0.02)


@pytest.mark.parametrize("kind", [Rating, Adjudication])
@pytest.mark.parametrize("later_settles_first", [True, False])
def test_the_later_edit_wins(backend, kind, later_settles_first):
    _name, sides = backend
    side = sides[kind]
    kind.write(side.first, 1.0)
    later()
    kind.write(side.second, 4.0)
    order = (side.second, side.first) if later_settles_first else (side.first, side.second)
    side.settle(*order, *order)
    assert kind.read(side.first) == kind.read(side.second) == 4.0


@pytest.mark.parametrize("kind", [Rating, Adjudication])
def test_an_undo_never_erases_a_newer_value_written_elsewhere(backend, kind):
    name, sides = backend
    side = sides[kind]
    kind.write(side.first, 1.0)
    side.settle(side.first, side.second)
    later()
    kind.write(side.second, 4.0)
    side.settle(side.second)
    try:
        kind.undo(side.first, 1.0)  # offline on a hub: it cannot know yet
        refused = False
    except SimrateError as exc:  # on the file it knows at once
        assert "changed elsewhere" in str(exc)
        refused = True
    reported = side.settle(side.first, side.second)
    assert refused or reported == 1  # refused at once, or reported by the sync
    assert (name, refused) in {("file", True), ("hub", False), ("service", False)}
    assert kind.read(side.first) == kind.read(side.second) == 4.0


def test_a_no_op_writes_nothing(backend):
    name, sides = backend
    for kind, value in ((Rating, 2.0), (Adjudication, 3.0)):
        project = sides[kind].first
        kind.write(project, value)
        sides[kind].settle(project)
        heard = []
        stop = project.subscribe(heard.append)
        before = project.changes()["id"].max()
        stamps = project.ratings()["updated_at"].tolist(), project.adjudications()["at"].tolist()
        kind.write(project, value)
        stop()
        assert project.changes()["id"].max() == before and heard == []
        assert (project.ratings()["updated_at"].tolist(),
                project.adjudications()["at"].tolist()) == stamps
        if name == "hub":
            assert pending_count(project) == 0
    project = sides[Adjudication].first  # an exclusion set again
    project.set_excluded("Alice", True, by="o")
    before = project.changes()["id"].max()
    assert project.set_excluded("Alice", True, by="o") is True
    assert project.changes()["id"].max() == before
